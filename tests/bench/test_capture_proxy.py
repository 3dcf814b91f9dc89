"""bench/capture_proxy.py as a process in front of the scripted LLM (tests/support/fake_llm.py): what passes
through is what the upstream sent, byte for byte, and each chat completion lands in the JSONL file."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.support.gateway_processes import REPO
from tests.support.processes import free_port, stop, wait_http

REQUEST = {"model": "fake-model", "messages": [{"role": "user", "content": "Wetter in Zürich?"}], "max_tokens": 64}


@pytest.fixture(scope="module")
def proxy(fake_llm, tmp_path_factory):
    """The proxy's URL and the JSONL file it writes."""
    out = tmp_path_factory.mktemp("capture") / "prompts.jsonl"
    port = free_port()
    log = out.with_suffix(".log")
    process = subprocess.Popen([sys.executable, "-m", "bench.capture_proxy", "--upstream", fake_llm.url,
                                "--port", str(port), "--out", str(out)],
                               cwd=REPO, stdout=log.open("w"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    wait_http(f"{url}/v1/models", process, log, status=200)
    yield url, out
    stop(process)


def captured(out: Path) -> list[dict]:
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()] if out.exists() else []


def wait_for(condition, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)


def without_created(body: bytes) -> bytes:
    """A reply with its `created` timestamps blanked: the fake stamps each chunk with the second it is made."""
    return re.sub(rb'"created": \d+', b'"created": 0', body)


def test_a_completion_passes_byte_for_byte_with_its_headers_and_is_captured_with_its_usage(proxy, fake_llm):
    url, out = proxy
    raw = '{"id": "x",  "choices": [{"message": {"content": "12 °C"}}], "usage": {"prompt_tokens": 9}}\n'
    fake_llm.script({"raw": raw}, {"status": 500})
    before = len(captured(out))
    headers = {"Authorization": "Bearer secret", "X-Request-Timeout": "42"}
    reply = httpx.post(f"{url}/v1/chat/completions", json=REQUEST, headers=headers)
    failed = httpx.post(f"{url}/v1/chat/completions", json=REQUEST)
    assert reply.status_code == 200 and reply.content == raw.encode()
    assert reply.headers["content-type"] == "application/json"
    assert failed.status_code == 500 and failed.json() == {"error": {"message": "scripted failure"}}
    assert fake_llm.requests() == [REQUEST, REQUEST]
    assert fake_llm.headers()[0] == {"authorization": "Bearer secret", "x-request-timeout": "42"}
    lines = captured(out)[before:]
    assert [(line["request"], line["status"], line["stream"], line["complete"]) for line in lines] == [
        (REQUEST, 200, False, True), (REQUEST, 500, False, True)]
    assert lines[0]["usage"] == {"prompt_tokens": 9} and lines[1]["usage"] is None
    assert 0 < lines[0]["first_byte_s"] <= lines[0]["total_s"]


def test_a_stream_passes_unchanged_and_other_routes_are_not_captured(proxy, fake_llm):
    url, out = proxy
    request = {**REQUEST, "stream": True}
    reply = {"content": "Zürich: 12 °C, light rain, wind 14 km/h."}  # no tool call: its id counts the requests
    fake_llm.script(reply, reply)
    before = len(captured(out))
    direct = httpx.post(f"{fake_llm.url}/v1/chat/completions", json=request)
    relayed = httpx.post(f"{url}/v1/chat/completions", json=request)
    assert relayed.headers["content-type"] == direct.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert without_created(relayed.content) == without_created(direct.content)
    assert relayed.content.endswith(b"data: [DONE]\n\n")
    assert httpx.get(f"{url}/v1/models").json()["data"][0]["id"] == "fake-model"
    (line,) = captured(out)[before:]
    assert line["request"] == request and line["stream"] and line["complete"] and line["usage"] is None


def test_a_client_hanging_up_mid_stream_closes_the_upstream_stream(proxy, fake_llm):
    """The backend aborts a request whose client is gone: through the proxy it must see the hang-up too."""
    url, out = proxy
    fake_llm.script({"content": "x" * 300, "token_gap": 0.1})  # 100 chunks: 10 s
    before = len(captured(out))
    with httpx.stream("POST", f"{url}/v1/chat/completions", json={**REQUEST, "stream": True}) as stream:
        next(stream.iter_raw())
    wait_for(lambda: fake_llm.closed_streams() and len(captured(out)) > before)
    assert fake_llm.closed_streams() and fake_llm.finished_streams() == 0
    (line,) = captured(out)[before:]
    assert line["status"] == 200 and not line["complete"]
