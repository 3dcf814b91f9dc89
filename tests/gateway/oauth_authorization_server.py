"""A local OAuth 2.1 authorization server for the gateway's OAuth tests (a real HTTP process).

The protocol endpoints are the MCP SDK's authorization-server routes (metadata, dynamic client registration,
`/authorize`, `/token` with PKCE checks and refresh), over the in-memory provider below. What a test needs on top:
- `/authorize` consents at once as the person signed in (`POST /_login {"subject"}`, default `tester`; the test
  plays the person: it follows the redirect to the gateway's callback); tokens carry that subject (`sub`);
- access tokens live `AS_ACCESS_TTL_S` seconds (default 2), so a test sees them expire and be refreshed;
- `POST /introspect` (RFC 7662, HTTP Basic `weather-rs:rs-secret`) lets the weather server check tokens;
- `GET /_stats` counts registrations, consents, code exchanges, refreshes and introspections;
- `GET /_issued` lists every access and refresh token issued (to check none is stored in plaintext).

Run: python tests/gateway/oauth_authorization_server.py PORT
"""

import base64
import math
import os
import secrets
import sys
import time

import uvicorn
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.routes import create_auth_routes
from mcp.server.auth.settings import ClientRegistrationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl, ConfigDict, TypeAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

SCOPE = "weather"
RESOURCE_SERVER_CREDENTIALS = "weather-rs:rs-secret"
ACCESS_TTL_S = int(os.environ.get("AS_ACCESS_TTL_S", "2"))
signed_in = {"subject": "tester"}  # the person at the browser: who consents
stats = {"registrations": 0, "consents": 0, "code_exchanges": 0, "refreshes": 0, "introspections": 0}


class Provider:
    """Clients, codes and tokens in memory; every token is bound to the resource it was asked for."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.refresh_tokens: dict[str, RefreshToken] = {}
        self.access_tokens: dict[str, AccessToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        stats["registrations"] += 1
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        stats["consents"] += 1
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or [SCOPE], expires_at=time.time() + 300, client_id=client.client_id,
            code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly, resource=params.resource,
            subject=signed_in["subject"])
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        found = self.codes.get(code)
        return found if found and found.client_id == client.client_id else None

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          code: AuthorizationCode) -> OAuthToken:
        stats["code_exchanges"] += 1
        del self.codes[code.code]
        return self._issue(client.client_id, code.scopes, code.resource, code.subject)

    async def load_refresh_token(self, client: OAuthClientInformationFull, token: str) -> RefreshToken | None:
        found = self.refresh_tokens.get(token)
        return found if found and found.client_id == client.client_id else None

    async def exchange_refresh_token(self, client: OAuthClientInformationFull, refresh_token: RefreshToken,
                                     scopes: list[str]) -> OAuthToken:
        stats["refreshes"] += 1
        del self.refresh_tokens[refresh_token.token]  # rotated: each refresh token works once
        return self._issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource,
                           refresh_token.subject)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access_tokens.get(token)
        return found if found and (found.expires_at or 0) > time.time() else None

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access_tokens.pop(token.token, None)
        self.refresh_tokens.pop(token.token, None)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None, subject: str | None) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        issued["access"].append(access)
        issued["refresh"].append(refresh)
        # Rounded up: a token lives at least the `expires_in` it is announced with (rounded down it could lapse a
        # second early, and the client, still trusting it, would get a 401 and ask the person again).
        self.access_tokens[access] = AccessToken(token=access, client_id=client_id, scopes=scopes,
                                                 expires_at=math.ceil(time.time()) + ACCESS_TTL_S, resource=resource,
                                                 subject=subject)
        self.refresh_tokens[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes,
                                                    resource=resource, subject=subject)
        return OAuthToken(access_token=access, expires_in=ACCESS_TTL_S, scope=" ".join(scopes), refresh_token=refresh)


provider = Provider()
issued: dict[str, list[str]] = {"access": [], "refresh": []}


async def introspect(request: Request) -> Response:
    expected = "Basic " + base64.b64encode(RESOURCE_SERVER_CREDENTIALS.encode()).decode()
    if request.headers.get("authorization") != expected:
        return JSONResponse({"error": "invalid_client"}, status_code=401)
    stats["introspections"] += 1
    token = await provider.load_access_token(str((await request.form()).get("token", "")))
    if token is None:
        return JSONResponse({"active": False})
    return JSONResponse({"active": True, "client_id": token.client_id, "scope": " ".join(token.scopes),
                         "exp": token.expires_at, "aud": token.resource, "sub": token.subject, "iss": ISSUER})


async def get_stats(request: Request) -> Response:
    return JSONResponse(stats)


async def get_issued(request: Request) -> Response:
    return JSONResponse(issued)


async def login(request: Request) -> Response:
    signed_in["subject"] = str((await request.json())["subject"])
    return JSONResponse(signed_in)


if __name__ == "__main__":
    port = int(sys.argv[1])
    ISSUER = f"http://127.0.0.1:{port}"
    # The issuer exactly as the resource server names it (no trailing slash added): clients compare them as strings.
    issuer = TypeAdapter(AnyHttpUrl, config=ConfigDict(url_preserve_empty_path=True)).validate_python(ISSUER)
    routes = create_auth_routes(provider, issuer_url=issuer, client_registration_options=ClientRegistrationOptions(
        enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE]))
    app = Starlette(routes=[*routes, Route("/introspect", introspect, methods=["POST"]),
                            Route("/_stats", get_stats, methods=["GET"]),
                            Route("/_issued", get_issued, methods=["GET"]),
                            Route("/_login", login, methods=["POST"])])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
