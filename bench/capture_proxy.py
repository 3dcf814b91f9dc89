"""A recording proxy between the gateway and an OpenAI-compatible backend, to capture the prompts it really sends.

Every request is passed on, and its response passed back, unchanged byte for byte (a stream chunk by chunk, as it
comes); each `POST /v1/chat/completions` with a JSON body is also appended to a JSONL file once its response has
ended. Capture the prompts of an eval run, then replay them in process (bench/spec_decode_bench.py):

    python -m llm_backend serve --model qwen2.5-coder-1.5b-instruct --port 8000
    python -m bench.capture_proxy --upstream http://127.0.0.1:8000 --port 8001 --out prompts.jsonl
    WEATHER_PROVIDER=simulated MCP_CHAT_BASE_URL=http://127.0.0.1:8001/v1 mcp-chat up   # gateway only
    python -m bench.chat_eval --set dev
    python -m bench.spec_decode_bench --requests prompts.jsonl --num-speculative-tokens 2 3

A line: `{"at": ISO time of the request, "request": the body, "stream": bool, "status": the HTTP status (502: the
upstream failed; null: the client hung up before it answered), "usage": the response's usage or null (a stream has
one only with stream_options.include_usage), "first_byte_s", "total_s": seconds from the request to the first and
the last byte of the response, "complete": false when the client hung up first}`. A client that hangs up closes
the upstream request too, so the backend stops generating as it would without the proxy.
"""
from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Awaitable
from typing import Any

import httpx
import uvicorn

CAPTURED_PATH = "/v1/chat/completions"
# Hop-by-hop headers (RFC 9110 7.6.1) are the connection's, not the message's: each side sets its own. Host and
# Content-Length are set again for the upstream request by httpx.
_NOT_FORWARDED = {b"connection", b"keep-alive", b"proxy-connection", b"te", b"trailer", b"transfer-encoding",
                  b"upgrade", b"host", b"content-length"}
_NOT_RETURNED = _NOT_FORWARDED - {b"content-length"}


class CaptureProxy:
    """The ASGI app: relays every request to `upstream` and appends chat completions to `out`."""

    def __init__(self, upstream: str, out: Path) -> None:
        self.upstream = upstream.rstrip("/")
        self.out = out
        # No timeout: the gateway sets its own (X-Request-Timeout, its read timeout) and hangs up when it gives up.
        self.client = httpx.AsyncClient(timeout=None)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._relay(scope, receive, send)

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _relay(self, scope: dict, receive: Any, send: Any) -> None:
        body = await _request_body(receive)
        path = (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")  # as sent, %-escapes kept
        query = scope.get("query_string", b"").decode("latin-1")
        headers = [(name, value) for name, value in scope["headers"] if name.lower() not in _NOT_FORWARDED]
        # A Request of its own, not client.build_request: the client's default headers (Accept-Encoding: gzip
        # among them) would change what the backend sends back.
        request = httpx.Request(scope["method"], self.upstream + path + (f"?{query}" if query else ""),
                                headers=headers, content=body)
        record = _record_of(scope, body)
        relayed = _Relayed(time.perf_counter())
        hangup = asyncio.ensure_future(_disconnected(receive))
        try:
            await _unless_hung_up(self._forward(request, send, relayed), hangup)
        finally:
            hangup.cancel()
            self._append(record, relayed)

    async def _forward(self, request: httpx.Request, send: Any, relayed: _Relayed) -> None:
        """Send `request` upstream and its response back as it comes (`aiter_raw`: the bytes as sent, nothing
        decoded); cancelled, it closes the upstream request, so the backend sees the hang-up."""
        try:
            response = await self.client.send(request, stream=True)
        except httpx.HTTPError as error:
            relayed.status = 502
            await _send_whole(send, 502, {"error": {"message": f"capture proxy: upstream {self.upstream} failed: "
                                                               f"{type(error).__name__}: {error}",
                                                    "type": "upstream_error"}})
            relayed.complete = True
            return
        try:
            relayed.status = response.status_code
            await send({"type": "http.response.start", "status": response.status_code,
                        "headers": [(n, v) for n, v in response.headers.raw if n.lower() not in _NOT_RETURNED]})
            async for chunk in response.aiter_raw():
                if relayed.first_byte_s is None:
                    relayed.first_byte_s = time.perf_counter() - relayed.started
                relayed.body += chunk
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            relayed.complete = True
        finally:
            await response.aclose()

    def _append(self, record: dict | None, relayed: _Relayed) -> None:
        if record is None:
            return
        record.update(status=relayed.status, usage=_usage(bytes(relayed.body)), first_byte_s=relayed.first_byte_s,
                      total_s=time.perf_counter() - relayed.started, complete=relayed.complete)
        with self.out.open("a", encoding="utf-8") as out:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


@dataclass
class _Relayed:
    """How far a response has been passed back."""

    started: float  # time.perf_counter() once the request was read
    status: int | None = None  # None: the client hung up before the upstream answered
    body: bytearray = field(default_factory=bytearray)
    first_byte_s: float | None = None
    complete: bool = False


async def _unless_hung_up(work: Awaitable[None], hangup: asyncio.Future) -> None:
    """Run `work` to its end, or until the client hangs up (`hangup` is done): then cancel it."""
    task = asyncio.ensure_future(work)
    try:
        await asyncio.wait({task, hangup}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        task.cancel()  # nothing if it is done
        await asyncio.gather(task, return_exceptions=True)
    if not task.cancelled():
        task.result()  # its error, e.g. the upstream broke off mid-stream: uvicorn then drops the connection too


def _record_of(scope: dict, body: bytes) -> dict | None:
    """The start of a capture line for a chat completion with a JSON object body; None for anything else."""
    if scope["method"] != "POST" or scope["path"] != CAPTURED_PATH:
        return None
    try:
        request = json.loads(body)
    except ValueError:
        return None
    if not isinstance(request, dict):
        return None
    return {"at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds"),
            "request": request, "stream": bool(request.get("stream"))}


async def _request_body(receive: Any) -> bytes:
    body = bytearray()
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body", False):
            return bytes(body)


async def _disconnected(receive: Any) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _send_whole(send: Any, status: int, payload: dict) -> None:
    body = json.dumps(payload).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def _usage(body: bytes) -> dict | None:
    """The usage of a completion body, or of the last SSE chunk of a stream that has one."""
    candidates = [body, *(line[len(b"data:"):] for line in reversed(body.splitlines()) if line.startswith(b"data: {"))]
    for candidate in candidates:
        try:
            usage = json.loads(candidate).get("usage")
        except (ValueError, AttributeError):
            continue
        if usage:
            return usage
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--upstream", default="http://127.0.0.1:8000", help="the backend, without /v1")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--out", type=Path, required=True, help="JSONL file the requests are appended to")
    args = parser.parse_args()
    # Its own Server and Date headers off: the upstream's are passed back.
    uvicorn.run(CaptureProxy(args.upstream, args.out), host=args.host, port=args.port, log_level="warning",
                server_header=False, date_header=False)


if __name__ == "__main__":
    main()
