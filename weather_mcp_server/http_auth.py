"""Who may call the weather server over HTTP (`--transport http`; stdio needs none of this).

Three modes, chosen by the environment (or `.env`):
- none (the default): fine on 127.0.0.1, where the server binds unless told otherwise;
- a static bearer token, `WEATHER_MCP_TOKEN`: clients send `Authorization: Bearer <token>`;
- OAuth 2.1 resource server (the MCP authorization spec), `WEATHER_MCP_OAUTH_ISSUER` and friends: the SDK publishes
  the protected-resource metadata (`/.well-known/oauth-protected-resource/mcp`) naming the authorization server,
  answers 401 with a `WWW-Authenticate` pointing there, and accepts only tokens that the authorization server's
  RFC 7662 introspection endpoint reports active, issued for this server's URL (RFC 8707) and carrying the
  required scopes.
Both checks are the SDK's resource-server support (`AuthSettings` and a `TokenVerifier`).
"""

from __future__ import annotations

import hmac
import os
from dataclasses import dataclass
from typing import Any

import httpx
from dotenv import load_dotenv
from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.auth.settings import AuthSettings

_INTROSPECTION_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class HttpAuthSettings:
    """The HTTP auth knobs; `from_env()` refuses contradictory or incomplete ones at start-up."""

    token: str | None = None
    oauth_issuer: str | None = None
    introspection_url: str | None = None
    resource_url: str | None = None  # this server's MCP URL as clients use it: tokens must be issued for it
    required_scopes: tuple[str, ...] = ()
    client_id: str | None = None  # how this server authenticates to the introspection endpoint, if it must
    client_secret: str | None = None

    @property
    def enabled(self) -> bool:
        return bool(self.token or self.oauth_issuer)

    @classmethod
    def from_env(cls) -> HttpAuthSettings:
        load_dotenv()
        env = {key: value.strip() for key, value in os.environ.items() if key.startswith("WEATHER_MCP_")}
        settings = cls(
            token=env.get("WEATHER_MCP_TOKEN") or None,
            oauth_issuer=env.get("WEATHER_MCP_OAUTH_ISSUER") or None,
            introspection_url=env.get("WEATHER_MCP_OAUTH_INTROSPECTION_URL") or None,
            resource_url=env.get("WEATHER_MCP_RESOURCE_URL") or None,
            required_scopes=tuple(env.get("WEATHER_MCP_OAUTH_SCOPES", "").replace(",", " ").split()),
            client_id=env.get("WEATHER_MCP_OAUTH_CLIENT_ID") or None,
            client_secret=env.get("WEATHER_MCP_OAUTH_CLIENT_SECRET") or None,
        )
        if settings.token and settings.oauth_issuer:
            raise ValueError("set WEATHER_MCP_TOKEN or WEATHER_MCP_OAUTH_ISSUER, not both")
        if settings.oauth_issuer and not (settings.introspection_url and settings.resource_url):
            raise ValueError("WEATHER_MCP_OAUTH_ISSUER needs WEATHER_MCP_OAUTH_INTROSPECTION_URL and "
                             "WEATHER_MCP_RESOURCE_URL (this server's /mcp URL as clients reach it)")
        return settings


class StaticTokenVerifier(TokenVerifier):
    """Accepts exactly one token, compared in constant time."""

    def __init__(self, token: str) -> None:
        self._token = token.encode()

    async def verify_token(self, token: str) -> AccessToken | None:
        if not hmac.compare_digest(token.encode(), self._token):
            return None
        return AccessToken(token=token, client_id="WEATHER_MCP_TOKEN", scopes=[])


class IntrospectionTokenVerifier(TokenVerifier):
    """Asks the authorization server about each token (RFC 7662); an unreachable one means no access."""

    def __init__(self, settings: HttpAuthSettings) -> None:
        assert settings.introspection_url is not None
        self._url = settings.introspection_url
        self._resource = settings.resource_url
        credentials = (settings.client_id, settings.client_secret or "")
        self._auth = httpx.BasicAuth(*credentials) if settings.client_id else None

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            async with httpx.AsyncClient(timeout=_INTROSPECTION_TIMEOUT_S) as client:
                response = await client.post(self._url, data={"token": token}, auth=self._auth)
            claims = response.json() if response.status_code == 200 else {}
        except (httpx.HTTPError, ValueError):
            return None
        if not isinstance(claims, dict) or claims.get("active") is not True:
            return None
        return AccessToken(
            token=token, client_id=str(claims.get("client_id", "")), scopes=str(claims.get("scope", "")).split(),
            expires_at=claims.get("exp") if isinstance(claims.get("exp"), int) else None,
            resource=self._audience(claims.get("aud")), subject=claims.get("sub"),
            claims={"iss": claims["iss"]} if "iss" in claims else None,
        )

    def _audience(self, audience: Any) -> str | None:
        """The token's resource: `aud` is a string or a list; for a list, the entry naming this server."""
        if isinstance(audience, list):
            return self._resource if self._resource in audience else None
        return audience if isinstance(audience, str) else None


def server_auth_options(settings: HttpAuthSettings) -> dict[str, Any]:
    """`MCPServer(**...)` arguments for the configured mode: `auth` and `token_verifier`, or nothing."""
    if settings.oauth_issuer:
        auth = AuthSettings(issuer_url=settings.oauth_issuer, resource_server_url=settings.resource_url,
                            required_scopes=list(settings.required_scopes) or None, validate_token_resource=True)
        return {"auth": auth, "token_verifier": IntrospectionTokenVerifier(settings)}
    if settings.token:
        # No metadata is published for a static token (no resource_server_url), so the issuer the model
        # requires is never shown or used.
        auth = AuthSettings(issuer_url="http://127.0.0.1", resource_server_url=None, validate_token_resource=False)
        return {"auth": auth, "token_verifier": StaticTokenVerifier(settings.token)}
    return {}
