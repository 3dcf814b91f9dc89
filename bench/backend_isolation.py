"""The figures of docs/reliability.md for backend fairness and the cache side channel, on SmolLM2.

    OMP_WAIT_POLICY=PASSIVE python -m bench.backend_isolation [--rounds 5]

1. Disconnect to abort: a client gives up (the openai SDK's timeout on a non-streaming request; a
   stream closed during its prefill); seconds until no request runs and no KV block is in use.
2. Worst inter-token gap of a running stream while a long prompt arrives, next to the gap one
   full-budget chunk (512 tokens, no context before it) causes.
3. The side channel: cached_tokens and time of a probe that guesses another caller's prompt right,
   and one that guesses wrong, without salts and across salts (a fresh secret every round).
4. The per-request token bound: a 7,910-character CJK message, as in the issue.

Tests assert the same behaviours with margins: test_reliability_abort.py, test_reliability_fairness.py,
test_server_security.py, test_server.py.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time

import httpx
import openai

from tests.support.backend_server import running_server

MODEL = "smollm2-135m-instruct"
SERVER_ARGS = ("--kv-cache-memory", "128MiB", "--max-model-len", "4096")
SYSTEM = {"role": "system", "content": "You are the assistant of a bank. Answer briefly and politely. " * 12}


def metric(base_url: str, name: str) -> float:
    for line in httpx.get(f"{base_url}/metrics").text.splitlines():
        if line.startswith(f"llm_backend_{name}{{"):
            return float(line.rsplit(" ", 1)[1])
    raise KeyError(name)


def seconds_until_idle(base_url: str, since: float) -> float:
    while metric(base_url, "num_requests_running") or metric(base_url, "kv_cache_blocks_used"):
        time.sleep(0.01)
    return time.monotonic() - since


def disconnect_to_abort(base_url: str, streaming: bool) -> float:
    if streaming:  # closed during the prefill of ~3,600 tokens, before any byte came
        body = {"model": MODEL, "messages": [{"role": "user", "content": "word " * 3600}], "max_tokens": 100,
                "stream": True}
        try:
            with httpx.stream("POST", f"{base_url}/v1/chat/completions", json=body,
                              timeout=httpx.Timeout(30, read=1.0)) as response:
                response.read()
        except httpx.ReadTimeout:
            pass
    else:  # the gateway's way: the SDK's timeout on a long non-streaming completion
        client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0, timeout=1.0)
        try:
            client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "A long story."}],
                                           max_tokens=1500, extra_body={"ignore_eos": True})
        except openai.APITimeoutError:
            pass
    return seconds_until_idle(base_url, time.monotonic())


class Stream:
    """A long greedy completion read in the background: when each of its tokens arrived."""

    def __init__(self, base_url: str) -> None:
        self.arrivals: list[float] = []
        self._stop = threading.Event()
        body = {"model": MODEL, "prompt": "Once upon a time", "max_tokens": 4000, "ignore_eos": True,
                "stream": True, "temperature": 0}
        self._thread = threading.Thread(target=self._read, args=(f"{base_url}/v1/completions", body))
        self._thread.start()
        while len(self.arrivals) < 5:
            time.sleep(0.01)

    def _read(self, url: str, body: dict) -> None:
        with httpx.stream("POST", url, json=body, timeout=300) as response:
            for line in response.iter_lines():
                if line.startswith("data: "):
                    self.arrivals.append(time.monotonic())
                if self._stop.is_set():
                    return

    def worst_gap(self, start: float, end: float) -> float:
        """The longest wait for a token between `start` and `end` (a token still awaited at `end` counts)."""
        times = [start] + [t for t in self.arrivals if start < t < end] + [min(end, time.monotonic())]
        return max(b - a for a, b in zip(times, times[1:]))

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


def chat(base_url: str, **extra) -> float:
    """Seconds one chat completion (of one token, unless `extra` says otherwise) takes."""
    started = time.monotonic()
    body = {"model": MODEL, "messages": [{"role": "user", "content": "Which city?"}], "max_tokens": 1, **extra}
    response = httpx.post(f"{base_url}/v1/chat/completions", json=body, timeout=300)
    assert response.status_code == 200, response.text
    return time.monotonic() - started


def worst_gap_during(base_url: str, stream: Stream, content: str) -> tuple[float, float]:
    """(the stream's worst gap, seconds) while a chat completion of `content` runs."""
    started = time.monotonic()
    took = chat(base_url, messages=[{"role": "user", "content": content}])
    return stream.worst_gap(started, started + took), took


def probe(base_url: str, text: str, salt: str | None) -> tuple[int, float]:
    """(cached_tokens, seconds) of a one-token completion of the bank conversation ending in `text`."""
    body = {"model": MODEL, "max_tokens": 1, "messages": [SYSTEM, {"role": "user", "content": text}]}
    if salt is not None:
        body.update(cache_salt=salt, cache_shared_messages=1)
    started = time.monotonic()
    usage = httpx.post(f"{base_url}/v1/chat/completions", json=body, timeout=60).json()["usage"]
    return usage["prompt_tokens_details"]["cached_tokens"], time.monotonic() - started


def side_channel(base_url: str, rounds: int, salted: bool) -> dict[str, list[tuple[int, float]]]:
    results: dict[str, list[tuple[int, float]]] = {"right": [], "wrong": []}
    for i in range(rounds):
        # A long turn, so that a hit saves time one could see.
        secret = f"Round {i}. My PIN is {4821 + i}. " + "Please keep my account details safe. " * 40
        wrong = secret.replace(str(4821 + i), "0000")
        probe(base_url, secret, f"alice-{i}" if salted else None)  # the victim's turn is cached now
        results["right"].append(probe(base_url, secret, f"mallory-{i}" if salted else None))
        results["wrong"].append(probe(base_url, wrong, f"mallory-{i}-b" if salted else None))
    return results


def summary(values: list[float]) -> str:
    return f"{min(values):.3f} / {statistics.median(values):.3f} / {max(values):.3f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with running_server(MODEL, *SERVER_ARGS) as base_url:
        print("1. disconnect -> abort (no request running, 0 KV blocks in use), s min / median / max")
        for streaming in (False, True):
            times = [disconnect_to_abort(base_url, streaming) for _ in range(args.rounds)]
            kind = "stream closed in its prefill" if streaming else "non-streaming, SDK timeout 1 s"
            print(f"   {kind:32} {summary(times)}")

        print("2. worst inter-token gap of a running stream, s")
        stream = Stream(base_url)
        try:
            budget = [worst_gap_during(base_url, stream, f"{i} " + "word " * 480)[0] for i in range(3)]
            print(f"   one full-budget chunk (~500-token prompt)   {max(budget):.3f}")
            for tokens in (1000, 2000, 3500):
                gap, took = worst_gap_during(base_url, stream, f"long {tokens} " + "word " * tokens)
                print(f"   during a {tokens}-token prefill ({took:.1f} s)    {gap:.3f}")
        finally:
            stream.close()

        print(f"3. side channel, {args.rounds} rounds: cached_tokens (all rounds) and seconds min / median / max")
        for salted in (False, True):
            results = side_channel(base_url, args.rounds, salted)
            for guess in ("right", "wrong"):
                cached = sorted({c for c, _ in results[guess]})
                seconds = [s for _, s in results[guess]]
                label = f"{'across salts' if salted else 'no salts'}, {guess} guess"
                print(f"   {label:28} cached {cached}  time {summary(seconds)}")

        message = ("北京明天会下雨吗？我要带伞吗？" * 600)[:7910]
        started = time.monotonic()
        response = httpx.post(f"{base_url}/v1/chat/completions", timeout=60, json={
            "model": MODEL, "messages": [{"role": "user", "content": message}]})
        error = response.json()["error"]
        print(f"4. a 7,910-character CJK message: HTTP {response.status_code} {error['code']} in "
              f"{time.monotonic() - started:.2f} s: {error['message']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
