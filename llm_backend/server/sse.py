"""Server-sent events framing for OpenAI streams."""
from __future__ import annotations

import json
import logging
from typing import AsyncIterator

from starlette.requests import ClientDisconnect
from starlette.responses import StreamingResponse

from llm_backend.server.errors import OpenAIError

log = logging.getLogger(__name__)

DONE = "data: [DONE]\n\n"


def event(payload: dict) -> str:
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"


def sse_response(events: AsyncIterator[str]) -> StreamingResponse:
    return StreamingResponse(ending_in_an_error_event(events), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


async def ending_in_an_error_event(events: AsyncIterator[str]) -> AsyncIterator[str]:
    """`events`, but a failure after the 200 went out (an engine step that failed, a deadline that
    passed) ends the stream with an OpenAI-style error event, so the client reads why rather than a
    cut connection.

    A client disconnect ends the stream: Starlette cancels it (CancelledError is not an Exception),
    or the request noticed first (ClientDisconnect), and there is no one left to tell.
    """
    try:
        async for item in events:
            yield item
    except ClientDisconnect:
        return
    except OpenAIError as exc:
        yield event(exc.body())
    except Exception as exc:
        log.exception("stream failed after it started")
        yield event({"error": {"message": f"Internal server error: {type(exc).__name__}: {exc}",
                               "type": "server_error", "param": None, "code": None}})
