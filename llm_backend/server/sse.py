"""Server-sent events framing for OpenAI streams."""
from __future__ import annotations

import json
from typing import AsyncIterator

from starlette.responses import StreamingResponse

DONE = "data: [DONE]\n\n"


def event(payload: dict) -> str:
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"


def sse_response(events: AsyncIterator[str]) -> StreamingResponse:
    return StreamingResponse(events, media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
