"""What every route handler needs: the engine, its tokenizer, grammars, metrics and limits."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llm_backend.server.errors import model_not_found, prompt_too_long
from llm_backend.server.metrics import ServerMetrics
from llm_backend.structured.grammars import GrammarCache


@dataclass
class ServerState:
    engine: Any  # AsyncLLMEngine, or anything with its generate/stats interface
    tokenizer: Any
    served_model_name: str
    max_model_len: int
    grammars: GrammarCache
    metrics: ServerMetrics
    max_prompt_tokens: int  # ServeOptions.max_prompt_tokens
    debug_endpoints: bool
    # Far above any prompt that fits a context window, far below what would strain memory.
    max_request_bytes: int = 4 * 1024 * 1024

    def check_model(self, model: str | None) -> None:
        if model is not None and model != self.served_model_name:
            raise model_not_found(model)

    def check_prompt_tokens(self, prompt_tokens: int) -> None:
        """A 413 for a prompt over the per-request bound (the context-length 400 comes after)."""
        if prompt_tokens > self.max_prompt_tokens:
            raise prompt_too_long(prompt_tokens, self.max_prompt_tokens)
