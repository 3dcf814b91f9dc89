"""Model profiles (configs/models.json): which OpenAI-compatible endpoint routes tools and which writes."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

TOOL_MODES = ("native", "prompt_json")
TOOL_CHOICES = ("auto", "required")
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


@dataclass(frozen=True)
class Endpoint:
    """One model behind an OpenAI-compatible API."""

    profile: str
    base_url: str
    model: str
    api_key: str
    tool_mode: str = "native"
    temperature: float = 0.0
    max_tokens: int = 512
    timeout_s: float = 120.0
    max_tool_rounds: int | None = None  # overrides the gateway default for models that loop
    # "required": the first round must make one tool call or take the `answer_directly` escape. For small models
    # behind a constrained-decoding backend: no preamble before the call (the 1.5B model wrote 30 tokens of
    # pseudo-XML first), and no invented data instead of a call.
    tool_choice: str = "auto"
    # The endpoint takes vLLM's `structured_outputs` extension (llm_backend and vLLM do, OpenAI does not): the
    # writer's answer to a question with data is then constrained to quote at least one figure.
    structured_outputs: bool = False
    # A small writer summarising a list of days gets days wrong: longer lists are shown as the server words them.
    max_written_records: int | None = None
    # The endpoint takes vLLM's `cache_salt` (llm_backend also `cache_shared_messages`): each user's prompts are
    # salted, so no user can probe another's through the prefix cache, while the system prompt stays shared.
    cache_salt: bool = False
    # The endpoint reports its prefill as it goes (llm_backend's `stream_options.include_progress`): every call is
    # then streamed, and `timeout_s` is the longest silence allowed, not the longest call (a slow CPU may take
    # minutes to read a long prompt, and is not stalled while it reports progress).
    prefill_progress: bool = False
    api_key_env: str = ""  # the variable `api_key` came from: `mcp-chat up` hands its backend the same key

    @property
    def on_loopback(self) -> bool:
        """The endpoint is on this machine."""
        return urlparse(self.base_url).hostname in LOOPBACK_HOSTS


@dataclass(frozen=True)
class ModelRoles:
    """The router picks tools; the writer writes the answer (the same endpoint unless hybrid)."""

    router: Endpoint
    writer: Endpoint

    @property
    def hybrid(self) -> bool:
        return self.router != self.writer


def _endpoint(name: str, entry: dict[str, Any]) -> Endpoint:
    tool_mode = entry.get("tool_mode", "native")
    if tool_mode not in TOOL_MODES:
        raise ValueError(f"profile {name!r}: tool_mode must be one of {TOOL_MODES}")
    tool_choice = entry.get("tool_choice", "auto")
    if tool_choice not in TOOL_CHOICES or (tool_choice == "required" and tool_mode != "native"):
        raise ValueError(f"profile {name!r}: tool_choice must be one of {TOOL_CHOICES} (required needs native)")
    # A local server without a key ignores it, but the openai SDK refuses an empty one.
    api_key = os.environ.get(entry.get("api_key_env", ""), "") or "not-needed"
    return Endpoint(
        profile=name,
        base_url=entry["base_url"],
        model=entry["model"],
        api_key=api_key,
        tool_mode=tool_mode,
        temperature=float(entry.get("temperature", 0.0)),
        max_tokens=int(entry.get("max_tokens", 512)),
        timeout_s=float(entry.get("timeout_s", 120.0)),
        max_tool_rounds=entry.get("max_tool_rounds"),
        tool_choice=tool_choice,
        structured_outputs=bool(entry.get("structured_outputs", False)),
        max_written_records=entry.get("max_written_records"),
        cache_salt=bool(entry.get("cache_salt", False)),
        prefill_progress=bool(entry.get("prefill_progress", False)),
        api_key_env=entry.get("api_key_env", ""),
    )


def _profiles(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))["profiles"]


def _roles(profiles: dict[str, Any], profile: str) -> ModelRoles:
    if profile not in profiles:
        raise ValueError(f"unknown model profile {profile!r}; known: {sorted(profiles)}")
    entry = profiles[profile]
    if "router" in entry:
        return ModelRoles(_endpoint(entry["router"], profiles[entry["router"]]),
                          _endpoint(entry["writer"], profiles[entry["writer"]]))
    endpoint = _endpoint(profile, entry)
    return ModelRoles(endpoint, endpoint)


def load_roles(
    path: Path, profile: str, base_url_override: str | None = None, model_override: str | None = None
) -> ModelRoles:
    """Resolve `profile` (a plain endpoint, or `{"router": ..., "writer": ...}` for hybrid)."""
    roles = _roles(_profiles(path), profile)
    overrides = {k: v for k, v in (("base_url", base_url_override), ("model", model_override)) if v}
    if not overrides:
        return roles
    # The override (tests, one-off runs) points both roles at the same endpoint.
    router = replace(roles.router, **overrides)
    return ModelRoles(router, router)


def load_every_profile(path: Path) -> dict[str, ModelRoles | str]:
    """Every profile of the file, in its order: its roles, or what is wrong with its entry (a broken profile no
    conversation uses must not keep the gateway from serving the others)."""
    profiles = _profiles(path)
    resolved: dict[str, ModelRoles | str] = {}
    for name in profiles:
        try:
            resolved[name] = _roles(profiles, name)
        except (KeyError, TypeError, ValueError) as error:
            resolved[name] = f"its entry in {path.name} is invalid ({type(error).__name__}: {error})"
    return resolved


def missing_key(roles: ModelRoles) -> str | None:
    """Why the profile cannot answer now: an endpoint beyond this machine whose key variable is not set (the SDK
    would send a placeholder, and every call fail with 401). A local server takes any key, or none."""
    for endpoint in (roles.router, roles.writer):
        if endpoint.api_key_env and not endpoint.on_loopback and not os.environ.get(endpoint.api_key_env):
            return f"{endpoint.api_key_env} is not set"
    return None
