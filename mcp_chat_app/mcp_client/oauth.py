"""OAuth 2.1 for remote MCP servers (the MCP authorization spec), through the SDK's `OAuthClientProvider`.

The SDK does the protocol: on a 401 it reads the server's protected-resource metadata, the authorization
server's metadata, registers the gateway (dynamic client registration), sends a person to the authorization URL
with a PKCE challenge, exchanges the code, and refreshes the access token when it expires. The gateway supplies
what a headless process lacks: the URL is logged and offered to the admin (`GET /servers/<name>/authorization`),
the authorization server sends the browser back to `GET /oauth/callback`, and tokens live in a file per server
(`<data dir>/oauth/<name>.json`, mode 0600), so a restart refreshes instead of asking again.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider, OAuthFlowError
from mcp.shared.auth import (
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)

from mcp_chat_app.mcp_client.registry import ServerSpec

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class OAuthSettings:
    """The gateway's side of every server's OAuth flow."""

    redirect_uri: str  # the gateway's `/oauth/callback`, as the person's browser reaches it
    token_dir: Path
    consent_timeout_s: float = 900.0  # how long one authorization URL stays good
    client_name: str = "mcp-chat gateway"


class FileTokenStorage:
    """The SDK's `TokenStorage` in one JSON file: tokens, the registered client, and the discovered metadata."""

    def __init__(self, path: Path) -> None:
        self._path = path

    async def get_tokens(self) -> OAuthToken | None:
        stored = self._read().get("tokens")
        if stored is None:
            return None
        tokens = OAuthToken.model_validate(stored)
        # Loaded tokens carry no expiry time, so the SDK would use the access token until a 401 and then ask a
        # person again. Handing out only the refresh token makes it refresh first, which learns the expiry.
        return tokens.model_copy(update={"access_token": ""}) if tokens.refresh_token else tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self._write("tokens", tokens.model_dump(mode="json", exclude_none=True))

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        stored = self._read().get("client")
        return None if stored is None else OAuthClientInformationFull.model_validate(stored)

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._write("client", client_info.model_dump(mode="json", exclude_none=True))

    def metadata(self) -> tuple[ProtectedResourceMetadata | None, OAuthMetadata | None]:
        """The protected-resource and authorization-server metadata a flow discovered."""
        stored = self._read()
        resource, server = stored.get("resource_metadata"), stored.get("server_metadata")
        return (None if resource is None else ProtectedResourceMetadata.model_validate(resource),
                None if server is None else OAuthMetadata.model_validate(server))

    def set_metadata(self, resource: ProtectedResourceMetadata | None, server: OAuthMetadata | None) -> None:
        for key, value in (("resource_metadata", resource), ("server_metadata", server)):
            if value is not None:
                self._write(key, value.model_dump(mode="json", exclude_none=True))

    def _read(self) -> dict:
        try:
            return json.loads(self._path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}

    def _write(self, key: str, value: dict) -> None:
        document = {**self._read(), key: value}
        self._path.parent.mkdir(parents=True, exist_ok=True)
        staging = self._path.with_suffix(".tmp")
        descriptor = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # secrets: owner only
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump(document, file)
        staging.replace(self._path)


class ServerAuthorization:
    """One server's OAuth client; `on_person` is told when the flow starts and stops waiting on a person."""

    def __init__(self, spec: ServerSpec, settings: OAuthSettings, on_person: Callable[[bool], None]) -> None:
        assert spec.url is not None
        self._name = spec.name
        self._settings = settings
        self._on_person = on_person
        self._pending: asyncio.Future[AuthorizationCodeResult] | None = None
        self.authorization_url: str | None = None
        metadata = OAuthClientMetadata(
            redirect_uris=[settings.redirect_uri], client_name=settings.client_name, scope=spec.oauth_scope,
            grant_types=["authorization_code", "refresh_token"], response_types=["code"],
            token_endpoint_auth_method="none",  # a public client: PKCE, no secret to keep
        )
        self._storage = FileTokenStorage(settings.token_dir / f"{spec.name}.json")
        self.provider = OAuthClientProvider(
            server_url=spec.url, client_metadata=metadata, storage=self._storage,
            redirect_handler=self._ask_person, callback_handler=self._person_answered,
        )
        # The SDK discovers the metadata only on a 401, so after a restart it would send the refresh to the
        # resource server's own /token. What the last flow discovered is put back first.
        context = self.provider.context
        context.protected_resource_metadata, context.oauth_metadata = self._storage.metadata()
        if context.protected_resource_metadata and context.protected_resource_metadata.authorization_servers:
            context.auth_server_url = str(context.protected_resource_metadata.authorization_servers[0])

    def complete(self, state: str, code: str | None, iss: str | None, error: str | None) -> bool:
        """Hand the callback's code (or the authorization server's `error`) to the waiting flow; False if no
        flow waits for this `state`."""
        pending, url = self._pending, self.authorization_url
        if pending is None or pending.done() or url is None or parse_qs(urlparse(url).query).get("state") != [state]:
            return False
        if error or not code:
            pending.set_exception(OAuthFlowError(f"authorization refused: {error or 'no code in the callback'}"))
        else:
            pending.set_result(AuthorizationCodeResult(code=code, state=state, iss=iss))
        return True

    async def _ask_person(self, url: str) -> None:
        context = self.provider.context  # discovery is done by now: keep it for the refreshes after a restart
        self._storage.set_metadata(context.protected_resource_metadata, context.oauth_metadata)
        self._pending = asyncio.get_running_loop().create_future()
        self.authorization_url = url
        self._on_person(True)
        logger.warning("MCP server %s needs authorization: open %s (or GET /servers/%s/authorization as admin)",
                       self._name, url, self._name)

    async def _person_answered(self) -> AuthorizationCodeResult:
        assert self._pending is not None
        try:
            return await asyncio.wait_for(self._pending, self._settings.consent_timeout_s)
        except TimeoutError:
            raise TimeoutError(f"nobody authorized within {self._settings.consent_timeout_s:g}s") from None
        finally:
            self.authorization_url = None
            self._on_person(False)
