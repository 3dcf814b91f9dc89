"""OpenAI-style error objects and the Starlette handlers that produce them.

Every failure a client can cause leaves the server through `OpenAIError`, so the
status code and the JSON body (`{"error": {"message", "type", "param", "code"}}`)
are decided in one place.
"""
from __future__ import annotations

import json
from typing import Any

import pydantic
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response


class OpenAIError(Exception):
    """A request failure that maps onto an OpenAI error response."""

    def __init__(self, status: int, message: str, *, type: str = "invalid_request_error",
                 param: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type
        self.param = param
        self.code = code

    def body(self) -> dict:
        return {"error": {"message": self.message, "type": self.type,
                          "param": self.param, "code": self.code}}


def bad_request(message: str, *, param: str | None = None, code: str | None = None) -> OpenAIError:
    return OpenAIError(400, message, param=param, code=code)


def model_not_found(model: str) -> OpenAIError:
    return OpenAIError(404, f"The model `{model}` does not exist.", param="model",
                       code="model_not_found")


def context_too_long(prompt_tokens: int, max_tokens: int, max_model_len: int) -> OpenAIError:
    return bad_request(
        f"This model's maximum context length is {max_model_len} tokens. However, you requested "
        f"{prompt_tokens + max_tokens} tokens ({prompt_tokens} in the messages, {max_tokens} in "
        "the completion). Please reduce the length of the messages or completion.",
        param="messages", code="context_length_exceeded")


def prompt_too_long(prompt_tokens: int, limit: int) -> OpenAIError:
    return OpenAIError(
        413, f"The prompt has {prompt_tokens} tokens, more than this server's limit of {limit} tokens "
        "per request. Please shorten the messages (or the tool list).",
        param="messages", code="prompt_too_long")


def deadline_exceeded(timeout_s: float) -> OpenAIError:
    return OpenAIError(504, f"The request did not finish within its X-Request-Timeout of {timeout_s:g} s "
                       "and was aborted.", type="timeout_error", code="request_timeout")


def invalid_api_key() -> OpenAIError:
    return OpenAIError(401, "Incorrect or missing API key: send 'Authorization: Bearer <key>' with the "
                       "key the server was started with (--api-key).", code="invalid_api_key")


def from_validation_error(error: pydantic.ValidationError) -> OpenAIError:
    """The most telling pydantic complaint, phrased with the offending field path.

    For a union field pydantic lists one complaint per member; the member whose type
    matched but whose constraint failed (a too-long list) says more than "not a string".
    """
    complaints = error.errors()
    first = next((c for c in complaints if not c["type"].endswith("_type")), complaints[0])
    location = ".".join(str(part) for part in first["loc"])
    if first["type"] == "extra_forbidden":
        return bad_request(f"Unsupported parameter: '{location}' is not supported by this server.",
                           param=location, code="unsupported_parameter")
    return bad_request(f"{location}: {first['msg']}" if location else first["msg"],
                       param=location or None)


def payload_too_large(limit: int) -> OpenAIError:
    return OpenAIError(413, f"The request body is larger than this server's limit of {limit} bytes.",
                       code="request_too_large")


async def read_body(request: Request, limit: int) -> bytes:
    """The raw body, refused with a 413 as soon as it is known to exceed `limit` bytes.

    A declared Content-Length is checked before reading anything; a chunked body is counted
    as it arrives, so an oversized upload never sits in memory whole.
    """
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise payload_too_large(limit)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise payload_too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


async def parse_json_body(request: Request) -> dict:
    """The request body as a JSON object of valid Unicode, or a 400/413 saying why it is not one."""
    raw = await read_body(request, request.app.state.server.max_request_bytes)
    try:
        body = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise bad_request(f"The request body is not valid JSON: {exc}") from exc
    except RecursionError as exc:
        raise bad_request("The request body is nested too deeply.") from exc
    if not isinstance(body, dict):
        raise bad_request("The request body must be a JSON object.")
    try:
        # JSON may escape lone UTF-16 surrogates (\ud800) that no tokenizer or UTF-8 encoder accepts.
        json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise bad_request("The request body contains a lone UTF-16 surrogate, which is not valid "
                          "Unicode text.") from exc
    return body


async def parse_request_model(request: Request, model: type[pydantic.BaseModel]) -> Any:
    """The body validated as `model`, or a 400 naming the first offending field."""
    return validate_request(model, await parse_json_body(request))


def validate_request(model: type[pydantic.BaseModel], body: Any) -> Any:
    """A parsed body validated as `model`, or a 400 naming the first offending field."""
    try:
        return model.model_validate(body)
    except pydantic.ValidationError as exc:
        raise from_validation_error(exc) from exc


async def handle_openai_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, OpenAIError)
    request.app.state.server.metrics.record_request(request.url.path, f"error_{exc.status}")
    return JSONResponse(exc.body(), status_code=exc.status)


async def handle_http_exception(request: Request, exc: Exception) -> JSONResponse:
    """Unknown routes and wrong methods answer in the same error shape as everything else."""
    assert isinstance(exc, HTTPException)
    error = OpenAIError(exc.status_code, exc.detail or "HTTP error", type="invalid_request_error")
    # Keeps the 405's Allow header, which tells a client the methods it may use (RFC 9110).
    return JSONResponse(error.body(), status_code=exc.status_code, headers=exc.headers)


async def handle_client_disconnect(request: Request, exc: Exception) -> Response:
    """The client hung up (its request was aborted, see `lifetime`): nobody reads this answer."""
    return Response(status_code=499)


async def handle_unexpected(request: Request, exc: Exception) -> JSONResponse:
    error = OpenAIError(500, f"Internal server error: {type(exc).__name__}: {exc}",
                        type="server_error")
    return JSONResponse(error.body(), status_code=500)
