"""Who may call what: the API key (`--api-key`, checked as vLLM checks its own) and loopback-only metrics.

With a key, every route needs `Authorization: Bearer <key>` except `/health` (a liveness probe) and
`/openapi.json` (the interface, nothing private). `/metrics` tells how busy the server is and how often
prompts hit the cache, so it is served to loopback clients, and to others only with the key: without a
key, only to loopback. The check is an ASGI middleware, so it runs before any body is read.
"""
from __future__ import annotations

import hmac
import ipaddress

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from llm_backend.server.errors import OpenAIError, invalid_api_key

OPEN_PATHS = frozenset({"/health", "/openapi.json"})
LOOPBACK_PATHS = frozenset({"/metrics"})


def is_loopback(host: str | None) -> bool:
    """Whether `host` (an address or `localhost`) can only be this machine."""
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host or "")
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:127.0.0.1
    return (mapped or address).is_loopback


class AccessControl:
    def __init__(self, app: ASGIApp, api_key: str | None) -> None:
        self.app = app
        self._expected = f"Bearer {api_key}".encode() if api_key else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        error = self._refusal(scope) if scope["type"] == "http" else None
        if error is None:
            await self.app(scope, receive, send)
            return
        response = JSONResponse(error.body(), status_code=error.status, headers={"WWW-Authenticate": "Bearer"})
        await response(scope, receive, send)

    def _refusal(self, scope: Scope) -> OpenAIError | None:
        path = scope["path"]
        if path in OPEN_PATHS:
            return None
        if path in LOOPBACK_PATHS and is_loopback((scope.get("client") or (None,))[0]):
            return None
        if self._expected is None:
            if path not in LOOPBACK_PATHS:
                return None
            return OpenAIError(403, f"{path} is served to loopback clients only; start the server with "
                               "--api-key to reach it with the key from elsewhere.", code="forbidden")
        sent = dict(scope["headers"]).get(b"authorization", b"")
        return None if hmac.compare_digest(sent, self._expected) else invalid_api_key()
