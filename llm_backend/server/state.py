"""What every route handler needs: the engine, its tokenizer, grammars and metrics."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llm_backend.server.errors import model_not_found
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
    # Far above any prompt that fits a context window, far below what would strain memory.
    max_request_bytes: int = 4 * 1024 * 1024

    def check_model(self, model: str | None) -> None:
        if model is not None and model != self.served_model_name:
            raise model_not_found(model)
