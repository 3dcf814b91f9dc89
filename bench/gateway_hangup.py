"""How fast a client's hang-up reaches the backend: hang up on a running gateway at each stage of an answer and
time until llm_backend has no running request and counts one more abort (its loopback `/metrics`).

Needs the whole system running (`make run`, or `llm-backend serve` and `mcp-chat serve`). Prints one table:

    python -m bench.gateway_hangup --gateway http://127.0.0.1:8081 --backend http://127.0.0.1:8000
"""
from __future__ import annotations

import argparse
import json
import re
import socket
import time
import uuid
from urllib.parse import urlparse

import httpx

STAGES = [  # (stage, request body, seconds before the hang-up)
    ("writing, no tools", {"message": "Write a very long poem about the sea, at least 40 lines.", "use_tools": False},
     3.0),
    ("before the first token", {"message": "Write a very long poem about mountains, at least 40 lines.",
                                "use_tools": False}, 0.3),
    ("routing a weather question", {"message": "What will the weather be like in Rome over the next five days?"},
     1.0),
    ("writing, SSE", {"message": "Write a very long poem about rivers, at least 40 lines.", "use_tools": False,
                      "stream": True}, 3.0),
]


def _metric(text: str, name: str, label: str = "") -> float:
    found = re.search(rf"^{name}{{[^}}]*{label}[^}}]*}} ([0-9.e+]+)", text, re.M)
    return float(found.group(1)) if found else 0.0


def _backend_state(metrics_url: str) -> tuple[float, float, float]:
    """Running requests, aborted requests so far, KV blocks in use."""
    text = httpx.get(metrics_url, timeout=5).text
    return (_metric(text, "llm_backend_num_requests_running"),
            _metric(text, "llm_backend_requests_total", 'outcome="aborted"'),
            _metric(text, "llm_backend_kv_cache_blocks_used"))


def hang_up(gateway: str, metrics_url: str, body: dict, after_s: float) -> dict:
    user = f"hangup-{uuid.uuid4().hex[:8]}"
    address = urlparse(gateway)
    payload = json.dumps(body).encode()
    aborted_before = _backend_state(metrics_url)[1]
    connection = socket.create_connection((address.hostname, address.port))
    connection.sendall(f"POST /chat/{user} HTTP/1.1\r\nHost: {address.netloc}\r\nContent-Type: application/json\r\n"
                       f"Content-Length: {len(payload)}\r\n\r\n".encode() + payload)
    time.sleep(after_s)
    running_at_hang_up = _backend_state(metrics_url)[0]
    connection.close()
    hung_up = time.monotonic()
    while True:
        running, aborted, blocks = _backend_state(metrics_url)
        if (running == 0 and aborted > aborted_before) or time.monotonic() - hung_up > 30:
            break
        time.sleep(0.02)
    stored = httpx.get(f"{gateway}/chat/{user}/history", timeout=5).json()["messages"]
    return {"busy": running_at_hang_up > 0, "abort_s": time.monotonic() - hung_up,
            "aborts": aborted - aborted_before, "kv_blocks": blocks, "stored": len(stored)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gateway", default="http://127.0.0.1:8081")
    parser.add_argument("--backend", default="http://127.0.0.1:8000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    metrics_url = f"{args.backend.rstrip('/')}/metrics"
    print(f"{'stage':28} {'hang-up at':>10} {'abort after':>11} {'aborts':>6} {'KV blocks':>9} {'stored':>6}")
    for stage, body, after_s in STAGES:
        for _ in range(args.repeat):
            row = hang_up(args.gateway.rstrip("/"), metrics_url, body, after_s)
            if not row["busy"]:
                print(f"{stage:28} {after_s:>9.1f}s  (the backend was idle at the hang-up: not counted)")
                continue
            print(f"{stage:28} {after_s:>9.1f}s {row['abort_s']:>10.2f}s {row['aborts']:>6.0f} "
                  f"{row['kv_blocks']:>9.0f} {row['stored']:>6}")
            time.sleep(1)


if __name__ == "__main__":
    main()
