"""The LLM side: one OpenAI-compatible endpoint through the `openai` SDK, streaming or not.

Every request tells the server when this client gives up (`X-Request-Timeout`, the profile's `timeout_s`), so
the server stops working for a caller who is gone. An endpoint with `prefill_progress` (llm_backend) instead
streams every call with progress reports during its prefill: the call then has no deadline at all, only a
longest silence (`timeout_s` between two bytes), so a slow CPU reading a long prompt is never cut off while it
reports, and a stalled one is (LlmTimeout). The reports go to the context's listener (`set_progress_listener`).
On an endpoint with `cache_salt`, a call made on a user's behalf (`set_caller`) carries that user's salt: the
server's prefix cache then never shows one user what another wrote, while the leading system messages (system
prompt and tool list, no user data) stay shared.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import httpx
import openai

from mcp_chat_app.cancellation import Cancellation, Cancelled
from mcp_chat_app.llm.profiles import Endpoint
from mcp_chat_app.llm.watch import LlmWatch

TIMEOUT_HEADER = "X-Request-Timeout"
# The user the current request is for; None (warm-up, `mcp-chat ask`) means no one's data is in the prompt.
_caller: ContextVar[str | None] = ContextVar("llm_caller", default=None)
# Salts are keyed per gateway process: unguessable, so no one can send another user's salt to the backend.
_SALT_KEY = secrets.token_bytes(32)


@dataclass(frozen=True)
class PrefillProgress:
    """How far the endpoint has read one call's prompt: `done` of `total` tokens are in its KV cache, `cached` of
    them came from its prefix cache. `call` tells the calls of one listener apart (the completion's id)."""

    call: str
    done: int
    total: int
    cached: int


ProgressListener = Callable[[PrefillProgress], None]
# Who hears the prefill progress of the LLM calls made in this context (a streamed chat, the warm-up); None: no one.
_progress_listener: ContextVar[ProgressListener | None] = ContextVar("llm_progress_listener", default=None)


def set_caller(user: str | None) -> None:
    """LLM calls from here on in this context are made for `user` (see the module docstring)."""
    _caller.set(user)


def current_caller() -> str | None:
    """The user this context's request is for (the tool calls act as them on per-user OAuth servers)."""
    return _caller.get()


def set_progress_listener(listener: ProgressListener | None) -> None:
    """LLM calls from here on in this context report their prefill progress to `listener` (on endpoints with
    `prefill_progress`; it is called on the thread that reads the reply)."""
    _progress_listener.set(listener)


class LlmUnavailable(Exception):
    """The model endpoint cannot be reached or answered with a server error (HTTP 503 for our callers)."""


class LlmUnreachable(LlmUnavailable):
    """No answer at all (connection refused or reset) or a server error (5xx): may pass by itself (HTTP 503)."""


class LlmTimeout(LlmUnavailable):
    """The model endpoint took longer than the profile's `timeout_s`, or, with `prefill_progress`, sent nothing
    for that long (HTTP 504 for our callers)."""


class LlmPromptTooLong(LlmUnavailable):
    """The model endpoint refused the prompt as longer than it takes (HTTP 413 for our callers)."""


class LlmBadResponse(LlmUnavailable):
    """The model endpoint answered 200 with something that is not a chat completion (HTTP 502)."""


@dataclass
class ModelToolCall:
    """A tool call as the model wrote it (arguments still raw JSON text)."""

    id: str
    name: str
    arguments: str


@dataclass
class ChatTurn:
    """One model reply: text, tool calls, or both."""

    content: str = ""
    tool_calls: list[ModelToolCall] = field(default_factory=list)
    duration_ms: float = 0.0


class LlmClient:
    """Talks to one endpoint; `on_token` turns on streaming so the caller can forward text as it comes (an
    endpoint with `prefill_progress` streams every call)."""

    def __init__(self, endpoint: Endpoint, hung_after_s: float = 120.0) -> None:
        self.endpoint = endpoint
        self.watch = LlmWatch(hung_after_s)  # sees every call at the HTTP layer: is the endpoint answering?
        # `timeout_s` is, among others, httpx's read timeout: the longest wait for the next byte. With progress
        # reports a silence that long is a stall, however long the call has run; without, a completion comes in
        # one piece, so it is the longest call, and the server is told so.
        headers = {} if endpoint.prefill_progress else {TIMEOUT_HEADER: f"{endpoint.timeout_s:g}"}
        self._client = openai.OpenAI(base_url=endpoint.base_url, api_key=endpoint.api_key,
                                     timeout=endpoint.timeout_s, max_retries=0,
                                     http_client=openai.DefaultHttpxClient(transport=self.watch.transport()),
                                     default_headers=headers)

    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
             on_token: Callable[[str], None] | None = None, tool_choice: str = "auto",
             parallel_tool_calls: bool | None = None, calls_of_one_tool: bool = False,
             regex: str | None = None, max_tokens: int | None = None, shared: int | None = None,
             cancellation: Cancellation | None = None, stop_when: Callable[[str], bool] | None = None) -> ChatTurn:
        """One completion; raises LlmUnavailable when the endpoint is down or fails.

        `calls_of_one_tool`: the reply is streamed and cut off at the first call of a tool other than the
        first call's (the same request for several places is kept; a small model listing every tool is not
        left to run on until max_tokens). `regex`: the reply text must match it (needs an endpoint with
        `structured_outputs`). `shared`: how many leading messages hold no user data (default: the system
        messages), so a salted prompt cache still shares them across users. `cancellation`: the reply is
        streamed, and the stream closed when it is cancelled (the server then aborts); raises Cancelled.
        `stop_when`: the reply is streamed, and ends early once the text so far satisfies it (a model looping)."""
        request: dict[str, Any] = {
            "model": self.endpoint.model,
            "messages": messages,
            "temperature": self.endpoint.temperature,
            "max_tokens": max_tokens or self.endpoint.max_tokens,
        }
        extra_body = self._cache_scope(messages, shared)
        if regex is not None:
            extra_body["structured_outputs"] = {"regex": regex}
        if extra_body:
            request["extra_body"] = extra_body
        if tools:
            request["tools"] = tools
            request["tool_choice"] = tool_choice
            if parallel_tool_calls is not None:
                request["parallel_tool_calls"] = parallel_tool_calls
        if self.endpoint.prefill_progress:
            request["stream_options"] = {"include_progress": True}
        streamed = (self.endpoint.prefill_progress or on_token is not None or calls_of_one_tool
                    or cancellation is not None or stop_when is not None)
        started = time.perf_counter()
        try:
            if not streamed:
                turn = self._complete(request)
            else:
                turn = self._stream(request, on_token or (lambda token: None), calls_of_one_tool, cancellation,
                                    _progress_listener.get(), stop_when)
        except (openai.APIError, httpx.HTTPError) as error:
            if cancellation is not None and cancellation.cancelled:
                raise Cancelled("the client went away during the LLM call") from error
            raise _mapped(error, self.endpoint) from error
        turn.duration_ms = (time.perf_counter() - started) * 1000
        return turn

    def _cache_scope(self, messages: list[dict[str, Any]], shared: int | None) -> dict[str, Any]:
        """`cache_salt` for the current user, sharing the leading messages without user data; nothing without a
        user."""
        user = _caller.get()
        if not self.endpoint.cache_salt or user is None:
            return {}
        salt = hmac.new(_SALT_KEY, user.encode(), hashlib.sha256).hexdigest()[:32]
        if shared is None:
            shared = 0
            while shared < len(messages) - 1 and messages[shared]["role"] == "system":
                shared += 1
        return {"cache_salt": salt, "cache_shared_messages": shared}

    def _complete(self, request: dict[str, Any]) -> ChatTurn:
        # The SDK builds its response objects without validating them, so a broken body
        # surfaces as any of these when it is read.
        try:
            message = self._client.chat.completions.create(**request).choices[0].message
            calls = [ModelToolCall(str(call.id), str(call.function.name), str(call.function.arguments or "{}"))
                     for call in message.tool_calls or [] if getattr(call, "function", None)]
            content = message.content or ""
        except (ValueError, TypeError, LookupError, AttributeError) as error:
            raise LlmBadResponse(f"LLM at {self.endpoint.base_url} sent a malformed completion: "
                                 f"{type(error).__name__}: {error}") from error
        if not isinstance(content, str):
            raise LlmBadResponse(f"LLM at {self.endpoint.base_url} sent non-text content")
        return ChatTurn(content=content, tool_calls=calls)

    def _stream(self, request: dict[str, Any], on_token: Callable[[str], None], calls_of_one_tool: bool,
                cancellation: Cancellation | None, on_progress: ProgressListener | None,
                stop_when: Callable[[str], bool] | None = None) -> ChatTurn:
        content: list[str] = []
        calls: dict[int, ModelToolCall] = {}
        finish_reason = None
        answered = False
        # Leaving the `with` early closes the connection, which stops the generation server-side; so does a
        # cancellation, from its own thread.
        with self._open_stream(request, cancellation) as stream:
            stop_watching = cancellation.on_cancel(stream.close) if cancellation else (lambda: None)
            try:
                for chunk in stream:
                    if not chunk.choices:  # a usage or progress report: no part of the answer
                        progress = _prefill_progress(chunk)
                        if progress is not None and on_progress is not None:
                            on_progress(progress)
                        continue
                    answered = True
                    finish_reason = chunk.choices[0].finish_reason or finish_reason
                    delta = chunk.choices[0].delta
                    if delta.content:
                        content.append(delta.content)
                        on_token(delta.content)
                        if stop_when is not None and stop_when("".join(content)):
                            break
                    for piece in delta.tool_calls or []:
                        call = calls.setdefault(piece.index, ModelToolCall(piece.id or f"call_{piece.index}", "", ""))
                        if piece.function and piece.function.name:
                            call.name += piece.function.name
                        if piece.function and piece.function.arguments:
                            call.arguments += piece.function.arguments
                    if calls_of_one_tool and _other_tool_started(calls):
                        calls.pop(max(calls))
                        break
            finally:
                stop_watching()
        if cancellation is not None:
            cancellation.check()  # a stream closed under the loop may end without an error
        if not answered:  # a 200 that is no event stream (an HTML error page, a bare JSON body) reads as empty
            raise LlmBadResponse(f"LLM at {self.endpoint.base_url} sent no completion chunks")
        streamed = [calls[i] for i in sorted(calls)]
        if finish_reason == "length" and streamed:
            # The last call was cut off by max_tokens after its first fragments had gone out: not a call.
            streamed.pop()
        return ChatTurn(content="".join(content), tool_calls=streamed)

    def probe(self) -> None:
        """A one-token completion, so `watch` learns whether a hung endpoint answers again (after `claim_probe`)."""
        try:
            self.chat([{"role": "user", "content": "ping"}], max_tokens=1)
        except LlmUnavailable:
            pass  # the watch has recorded how it went
        finally:
            self.watch.probe_done()

    def reachable(self, timeout_s: float = 2.0) -> bool:
        """Whether the endpoint answers HTTP at all (any status counts: the server is up)."""
        try:
            httpx.get(f"{self.endpoint.base_url.rstrip('/')}/models", timeout=timeout_s,
                      headers={"Authorization": f"Bearer {self.endpoint.api_key}"})
        except httpx.HTTPError:
            return False
        return True

    def _open_stream(self, request: dict[str, Any], cancellation: Cancellation | None) -> Any:
        """The streamed completion, opened. A server answers only after its prefill; with a cancellation the
        stream is opened on a worker thread, so a client that goes away meanwhile is not kept waiting: the stream
        that opens later is closed at once, which aborts the generation."""
        def create() -> Any:
            return self._client.chat.completions.create(**request, stream=True)

        if cancellation is None:
            return create()
        opened: Future = Future()

        def open_stream() -> None:
            try:
                opened.set_result(create())
            except Exception as error:  # handed to the waiting caller
                opened.set_exception(error)

        woken = threading.Event()
        stop_watching = cancellation.on_cancel(woken.set)
        opened.add_done_callback(lambda _: woken.set())
        threading.Thread(target=open_stream, name="llm-open", daemon=True).start()
        woken.wait()
        stop_watching()
        if cancellation.cancelled:
            opened.add_done_callback(_close_late_stream)
            raise Cancelled("the client went away before the LLM answered")
        return opened.result()


def _close_late_stream(opened: Future) -> None:
    if opened.exception() is None:
        opened.result().close()


def _prefill_progress(chunk: Any) -> PrefillProgress | None:
    """The `prefill` report of a choice-less chunk (`{"done", "total", "cached"}`, kept by the SDK in
    `model_extra`); None for any other chunk, or a report that is not whole numbers."""
    report = (chunk.model_extra or {}).get("prefill")
    if not isinstance(report, dict):
        return None
    numbers = [report.get(key, 0) for key in ("done", "total", "cached")]
    if not all(isinstance(number, int) for number in numbers):
        return None
    return PrefillProgress(str(chunk.id), *numbers)


def _mapped(error: Exception, endpoint: Endpoint) -> LlmUnavailable:
    """A failed call as our callers see it: 504 slow, 413 too long, 503 down or failing."""
    if isinstance(error, openai.APITimeoutError) and endpoint.prefill_progress:
        return LlmTimeout(f"LLM at {endpoint.base_url} sent nothing for {endpoint.timeout_s:g}s: it stalled")
    if isinstance(error, openai.APITimeoutError):
        return LlmTimeout(f"LLM at {endpoint.base_url} did not answer within {endpoint.timeout_s:g}s")
    if isinstance(error, openai.APIStatusError) and error.status_code == 413:
        return LlmPromptTooLong(f"the conversation is too long for the model at {endpoint.base_url}; clear the "
                                "history or ask a shorter question")
    if isinstance(error, openai.APIStatusError) and not isinstance(error, openai.InternalServerError):
        return LlmUnavailable(f"LLM at {endpoint.base_url} answered HTTP {error.status_code}")
    return LlmUnreachable(f"LLM at {endpoint.base_url} unavailable: {error}")


def _other_tool_started(calls: dict[int, ModelToolCall]) -> bool:
    """Whether the latest call names a different tool than the first (names arrive whole, in the call's first
    delta, from OpenAI-compatible servers)."""
    if len(calls) < 2:
        return False
    latest = calls[max(calls)]
    return bool(latest.name) and latest.name != calls[min(calls)].name
