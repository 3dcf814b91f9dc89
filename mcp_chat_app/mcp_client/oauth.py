"""OAuth 2.1 for remote MCP servers (the MCP authorization spec), through the SDK's `OAuthClientProvider`, per user.

The SDK does the protocol: on a 401 it reads the server's protected-resource metadata, the authorization
server's metadata, registers the gateway (dynamic client registration), sends a person to the authorization URL
with a PKCE challenge, exchanges the code, and refreshes the access token when it expires. The gateway supplies
what a headless process lacks, per user: a server's shared session only probes it (a 401 that leads to the consent
step means "each user signs in"); each user's calls then go through that user's own session and tokens
(user_sessions.py), whose authorization URL is offered to that user; the authorization server sends the browser
back to `GET /oauth/callback`. What is stored (secret_store.py): per server the gateway's registration, the
discovered metadata and the tool catalog; per (server, user) that user's tokens, so a restart refreshes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
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
from mcp_chat_app.mcp_client.secret_store import SecretStore

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class OAuthSettings:
    """The gateway's side of every server's OAuth flow."""

    redirect_uri: str  # the gateway's `/oauth/callback`, as the person's browser reaches it
    store: SecretStore
    consent_timeout_s: float = 900.0  # how long one authorization URL stays good
    idle_s: float = 1800.0  # a user's session to a server closes after this long without calls
    client_name: str = "mcp-chat gateway"


class EachUserSignsIn(Exception):
    """The server wants a person's consent: a shared session cannot have one, each user's session asks its own."""


class OAuthStorage:
    """The SDK's `TokenStorage` for one server and one user (`user=None`: the server's probe, which keeps no tokens).
    Registration, metadata and catalog are the server's, shared by its users; tokens are the user's alone."""

    def __init__(self, store: SecretStore, server: str, user: str | None) -> None:
        self._store = store
        self._server_document = server
        self._user_document = None if user is None else f"{server}/users/{user}"

    async def get_tokens(self) -> OAuthToken | None:
        stored = self.user_value("tokens")
        if stored is None:
            return None
        tokens = OAuthToken.model_validate(stored)
        # Loaded tokens carry no expiry time, so the SDK would use the access token until a 401 and then ask a
        # person again. Handing out only the refresh token makes it refresh first, which learns the expiry.
        return tokens.model_copy(update={"access_token": ""}) if tokens.refresh_token else tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        if self._user_document is not None:
            self._write(self._user_document, "tokens", tokens.model_dump(mode="json", exclude_none=True))

    def user_value(self, key: str) -> Any:
        return None if self._user_document is None else self._store.read(self._user_document).get(key)

    def forget_user(self) -> bool:
        """Drop this user's tokens; False if there were none."""
        return self._user_document is not None and self._store.delete(self._user_document)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        stored = self.server_value("client")
        return None if stored is None else OAuthClientInformationFull.model_validate(stored)

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._write(self._server_document, "client", client_info.model_dump(mode="json", exclude_none=True))

    def metadata(self) -> tuple[ProtectedResourceMetadata | None, OAuthMetadata | None]:
        """The protected-resource and authorization-server metadata a flow discovered."""
        resource, server = self.server_value("resource_metadata"), self.server_value("server_metadata")
        return (None if resource is None else ProtectedResourceMetadata.model_validate(resource),
                None if server is None else OAuthMetadata.model_validate(server))

    def set_metadata(self, resource: ProtectedResourceMetadata | None, server: OAuthMetadata | None) -> None:
        for key, value in (("resource_metadata", resource), ("server_metadata", server)):
            if value is not None:
                self._write(self._server_document, key, value.model_dump(mode="json", exclude_none=True))

    def server_value(self, key: str) -> Any:
        return self._store.read(self._server_document).get(key)

    def set_server_value(self, key: str, value: Any) -> None:
        self._write(self._server_document, key, value)

    def _write(self, name: str, key: str, value: Any) -> None:
        self._store.write(name, {**self._store.read(name), key: value})


class ServerAuthorization:
    """One server's OAuth client for one user (`user=None`: the shared session's probe, which raises
    EachUserSignsIn where a person would be asked); `on_person` is told when the flow starts and stops waiting."""

    def __init__(self, spec: ServerSpec, settings: OAuthSettings, on_person: Callable[[bool], None],
                 user: str | None = None) -> None:
        assert spec.url is not None
        self._name = spec.name
        self.user = user
        self._settings = settings
        self._on_person = on_person
        self._pending: asyncio.Future[AuthorizationCodeResult] | None = None
        self.authorization_url: str | None = None
        self.each_user_signs_in = False  # set by the probe: the server asked for a person's consent
        metadata = OAuthClientMetadata(
            redirect_uris=[settings.redirect_uri], client_name=settings.client_name, scope=spec.oauth_scope,
            grant_types=["authorization_code", "refresh_token"], response_types=["code"],
            token_endpoint_auth_method="none",  # a public client: PKCE, no secret to keep
        )
        self.storage = OAuthStorage(settings.store, spec.name, user)
        self.provider = OAuthClientProvider(
            server_url=spec.url, client_metadata=metadata, storage=self.storage,
            redirect_handler=self._ask_person, callback_handler=self._person_answered,
        )
        # The SDK discovers the metadata only on a 401, so after a restart it would send the refresh to the
        # resource server's own /token. What the last flow discovered is put back first.
        context = self.provider.context
        context.protected_resource_metadata, context.oauth_metadata = self.storage.metadata()
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
        self.storage.set_metadata(context.protected_resource_metadata, context.oauth_metadata)
        if self.user is None:
            self.each_user_signs_in = True
            raise EachUserSignsIn(f"server {self._name!r} asks each user to authorize")
        self._pending = asyncio.get_running_loop().create_future()
        self.authorization_url = url
        self._on_person(True)
        # The URL (its `state` binds the answer to this user's flow) goes to this user only, never to the log.
        logger.info("MCP server %s waits for %s to authorize it", self._name, self.user)

    async def _person_answered(self) -> AuthorizationCodeResult:
        assert self._pending is not None
        try:
            return await asyncio.wait_for(self._pending, self._settings.consent_timeout_s)
        except TimeoutError:
            raise TimeoutError(f"nobody authorized within {self._settings.consent_timeout_s:g}s") from None
        finally:
            self.authorization_url = None
            self._on_person(False)
