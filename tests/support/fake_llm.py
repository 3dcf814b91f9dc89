"""A scripted OpenAI-compatible chat server for the gateway tests (a real HTTP process).

Tests queue replies with `POST /_script {"replies": [...]}`; each `/v1/chat/completions` call pops
one. A reply is `{"content": "..."}`, `{"tool_calls": [{"name", "arguments"}]}` (arguments an object
or raw text), `{"status": 500}`, or `{"raw": "..."}` (a 200 whose body is that text, not a completion);
`"delay": seconds` in any reply holds it back that long; `"call_gap": seconds` pauses a stream inside
each call, `"token_gap": seconds` between its content chunks (a long generation); `"finish_reason"` overrides the one sent.
`"prefill": {"total": N, "chunk_s": [s1, s2, ...]}` reads the prompt in chunks taking that long each (a long one is a
stall); a stream asked for `stream_options.include_progress` gets llm_backend's report after each chunk, a
choice-less chunk with `"prefill": {"done", "total", "cached"}`, its headers after the first, as llm_backend does. With `"auto": true` in the script, requests
beyond the queued replies are answered by rule instead (for load tests, where concurrent users
cannot share one queue): a user message starting with "weather:" gets a call to
`weather__get_current_weather`, anything else the reply "echo: <the last user message>" (for the gateway's writer,
the question its request quotes). `GET /_requests` returns the request bodies received since the
last script, and their Authorization and X-Request-Timeout headers, so tests can check what the gateway sent. Streaming (`"stream": true`) is supported.

Run: python tests/support/fake_llm.py PORT
"""

import asyncio
import itertools
import json
import sys
import time
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

_replies: list[dict[str, Any]] = []
_requests: list[dict[str, Any]] = []
_headers: list[dict[str, str | None]] = []
_auto = {"on": False}
_finished_streams = {"count": 0}  # streams sent to their end; one the client closed early never counts
_closed_streams: list[float] = []  # when a client closed a stream before its end (time.time())
_completion_ids = itertools.count()


def _tool_calls(reply: dict[str, Any]) -> list[dict[str, Any]]:
    calls = []
    for index, call in enumerate(reply.get("tool_calls", [])):
        arguments = call.get("arguments", {})
        calls.append({
            "id": f"call_{len(_requests)}_{index}",
            "type": "function",
            "function": {"name": call["name"],
                         "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments)},
        })
    return calls


def _finish_reason(reply: dict[str, Any], calls: list[dict[str, Any]]) -> str:
    return reply.get("finish_reason") or ("tool_calls" if calls else "stop")


def _completion(reply: dict[str, Any], model: str) -> dict[str, Any]:
    calls = _tool_calls(reply)
    message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": f"chatcmpl-{len(_requests)}", "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": _finish_reason(reply, calls)}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


async def _chunks(reply: dict[str, Any], model: str, reports: list[dict[str, int]]):
    finished = False
    try:
        for report in reports:
            then_s = report.pop("_then_s")
            yield f"data: {json.dumps(report)}\n\n"
            await asyncio.sleep(then_s)
        async for frame in _frames(reply, model):
            yield frame
        finished = True
        _finished_streams["count"] += 1
    finally:
        if not finished:
            _closed_streams.append(time.time())


async def _frames(reply: dict[str, Any], model: str):
    def frame(delta: dict[str, Any], finish: str | None = None) -> str:
        chunk = {"id": "chatcmpl-stream", "object": "chat.completion.chunk", "created": int(time.time()),
                 "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return f"data: {json.dumps(chunk)}\n\n"

    yield frame({"role": "assistant"})
    content = reply.get("content") or ""
    for start in range(0, len(content), 3):
        yield frame({"content": content[start:start + 3]})
        await asyncio.sleep(reply.get("token_gap", 0))
    calls = _tool_calls(reply)
    for index, call in enumerate(calls):
        arguments = call["function"]["arguments"]
        half = len(arguments) // 2
        yield frame({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                     "function": {"name": call["function"]["name"], "arguments": arguments[:half]}}]})
        await asyncio.sleep(reply.get("call_gap", 0))
        yield frame({"tool_calls": [{"index": index, "function": {"arguments": arguments[half:]}}]})
    yield frame({}, _finish_reason(reply, calls))
    yield "data: [DONE]\n\n"


def _auto_reply(body: dict[str, Any]) -> dict[str, Any]:
    messages = body["messages"]
    question = next(m["content"] for m in reversed(messages) if m["role"] == "user")
    if messages[-1]["role"] == "user" and question.startswith("weather:") and body.get("tools"):
        return {"tool_calls": [{"name": "weather__get_current_weather", "arguments": {"city": "Beijing"}}]}
    if question.startswith("Question: "):  # the gateway's writer: echo the user's question, not its request
        question = question.splitlines()[0].removeprefix("Question: ")
    return {"content": f"echo: {question.split(chr(10) * 2)[0]}"}  # without the router's notes


async def chat_completions(request: Request) -> Response:
    body = await request.json()
    if _auto["on"]:
        reply = _replies.pop(0) if _replies else _auto_reply(body)
        return await _respond(reply, body)  # not recorded: a long load run would hoard every request
    _requests.append(body)
    _headers.append({name: request.headers.get(name) for name in ("authorization", "x-request-timeout")})
    reply = _replies.pop(0) if _replies else {"content": "(no scripted reply)"}
    return await _respond(reply, body)


def _progress_reports(reply: dict[str, Any], body: dict[str, Any]) -> list[dict[str, Any]]:
    """The prefill's progress chunks, each with how long the next chunk takes (`_then_s`); none when not asked."""
    prefill = reply.get("prefill")
    if not prefill or not (body.get("stream_options") or {}).get("include_progress"):
        return []
    total, seconds = prefill["total"], prefill["chunk_s"]
    completion = f"chatcmpl-{next(_completion_ids)}"
    return [{"id": completion, "object": "chat.completion.chunk", "created": int(time.time()), "model": body["model"],
             "choices": [], "prefill": {"done": total * (index + 1) // len(seconds), "total": total, "cached": 0},
             "_then_s": seconds[index + 1] if index + 1 < len(seconds) else 0}
            for index in range(len(seconds))]


async def _respond(reply: dict[str, Any], body: dict[str, Any]) -> Response:
    await asyncio.sleep(reply.get("delay", 0))
    if "raw" in reply:
        return Response(reply["raw"], media_type="application/json")
    if "status" in reply:
        return JSONResponse({"error": {"message": "scripted failure"}}, status_code=reply["status"])
    reports = _progress_reports(reply, body)
    prefill_s = reply.get("prefill", {}).get("chunk_s", [])
    # Reporting, the headers go out after the first chunk; silent, after the whole prefill.
    await asyncio.sleep(sum(prefill_s[:1] if reports else prefill_s))
    if body.get("stream"):
        return StreamingResponse(_chunks(reply, body["model"], reports), media_type="text/event-stream")
    return JSONResponse(_completion(reply, body["model"]))


async def set_script(request: Request) -> Response:
    script = await request.json()
    _replies[:] = script["replies"]
    _auto["on"] = bool(script.get("auto", False))
    _requests.clear()
    _headers.clear()
    _finished_streams["count"] = 0
    _closed_streams.clear()
    return JSONResponse({"queued": len(_replies)})


async def get_requests(request: Request) -> Response:
    return JSONResponse({"requests": _requests, "headers": _headers,
                         "finished_streams": _finished_streams["count"], "closed_streams": _closed_streams})


async def models(request: Request) -> Response:
    return JSONResponse({"object": "list", "data": [{"id": "fake-model", "object": "model"}]})


app = Starlette(routes=[
    Route("/v1/chat/completions", chat_completions, methods=["POST"]),
    Route("/v1/models", models, methods=["GET"]),
    Route("/_script", set_script, methods=["POST"]),
    Route("/_requests", get_requests, methods=["GET"]),
])

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
