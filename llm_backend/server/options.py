"""The HTTP side of `llm-backend serve`: where it listens and how it guards itself (EngineConfig has the rest)."""
from __future__ import annotations

from dataclasses import dataclass

from llm_backend.server.access import is_loopback

API_KEY_ENV = "LLM_BACKEND_API_KEY"


@dataclass(frozen=True)
class ServeOptions:
    host: str = "127.0.0.1"
    port: int = 8000
    api_key: str | None = None
    insecure: bool = False  # serve beyond loopback without a key, knowingly
    debug_endpoints: bool = False  # /debug/kv_cache
    # The work one request may ask for, in prompt tokens (a 413 above it): on a CPU 8,192 uncached tokens take
    # Qwen2.5-1.5B a minute or more. Not less: a tool-using router's fixed prompt alone is ~3,900 tokens (the
    # weather server's seven tools), and a follow-up adds the conversation to it.
    max_prompt_tokens: int = 8192

    def check(self) -> None:
        """Refuse settings that would expose the model to the network unguarded; raises ValueError."""
        if self.max_prompt_tokens < 1:
            raise ValueError("--max-prompt-tokens must be at least 1")
        if not self.api_key and not self.insecure and not is_loopback(self.host):
            raise ValueError(
                f"refusing to serve on {self.host!r} without an API key: anyone who can reach the port could "
                f"use the model. Set {API_KEY_ENV} (or --api-key), or pass --insecure to serve without one.")
