"""Every model profile's chat pipeline (configs/models.json): a conversation may pick its profile, so each one's
pipeline and LLM clients are created on its first turn and then kept, like the default's (created at start)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from mcp_chat_app.chat.pipeline import ChatPipeline
from mcp_chat_app.llm.client import LlmClient
from mcp_chat_app.llm.profiles import Endpoint, ModelRoles, missing_key

# A pipeline over a router and a writer client; the gateway's tools, media store and assistant are bound in it.
PipelineFactory = Callable[[LlmClient, LlmClient], ChatPipeline]


class UnknownProfile(Exception):
    """No profile has this name."""

    def __init__(self, profile: str, known: list[str]) -> None:
        super().__init__(f"unknown profile {profile!r}; known: {', '.join(known)}")
        self.profile, self.known = profile, known


class UnavailableProfile(Exception):
    """The profile exists but cannot answer now (its key is not set, its entry is invalid)."""

    def __init__(self, profile: str, reason: str) -> None:
        super().__init__(f"profile {profile!r} is unavailable: {reason}")
        self.profile, self.reason = profile, reason


class Pipelines:
    """Thread-safe: turns of several conversations may ask for a profile's pipeline at once. Clients are shared by
    endpoint, so a hybrid profile's router is the same client (one health watch) as the plain profile it names."""

    def __init__(self, default: str, profiles: dict[str, ModelRoles | str], build: PipelineFactory,
                 hung_after_s: float) -> None:
        """`profiles`: each profile's roles, or why its entry cannot be used (load_every_profile)."""
        self.default = default
        self._profiles = profiles
        self._build = build
        self._hung_after_s = hung_after_s
        self._lock = threading.Lock()
        self._clients: dict[Endpoint, LlmClient] = {}
        self._pipelines: dict[str, ChatPipeline] = {}

    def names(self) -> list[str]:
        return list(self._profiles)

    def roles(self, profile: str) -> ModelRoles | None:
        """The profile's endpoints; None for an invalid entry."""
        roles = self._profiles[profile]
        return roles if isinstance(roles, ModelRoles) else None

    def unavailable(self, profile: str) -> str | None:
        """Why the profile cannot answer now, or None when it can."""
        roles = self._profiles[profile]
        return roles if isinstance(roles, str) else missing_key(roles)

    def check(self, profile: str) -> None:
        """Raise UnknownProfile or UnavailableProfile unless a turn can use `profile`."""
        if profile not in self._profiles:
            raise UnknownProfile(profile, self.names())
        reason = self.unavailable(profile)
        if reason is not None:
            raise UnavailableProfile(profile, reason)

    def pipeline(self, profile: str) -> ChatPipeline:
        """The pipeline of a valid profile (`check` first), created on first use."""
        with self._lock:
            if profile not in self._pipelines:
                roles = self._profiles[profile]
                assert isinstance(roles, ModelRoles), f"profile {profile!r} is invalid: {roles}"
                self._pipelines[profile] = self._build(self._client(roles.router), self._client(roles.writer))
            return self._pipelines[profile]

    def clients(self) -> list[LlmClient]:
        """The clients created so far, in that order (the default profile's first): the LLMs /health watches."""
        with self._lock:
            return list(self._clients.values())

    def _client(self, endpoint: Endpoint) -> LlmClient:
        if endpoint not in self._clients:
            self._clients[endpoint] = LlmClient(endpoint, self._hung_after_s)
        return self._clients[endpoint]
