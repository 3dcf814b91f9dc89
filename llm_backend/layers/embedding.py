"""The token embedding; with GGUF blocks, the rows of a step's tokens are dequantized as looked up."""
from __future__ import annotations

import torch
from torch import nn

from llm_backend.layers.gguf_weight import QuantizedTensor, lookup_rows


class Embedding(nn.Embedding):
    def __init__(self, num_embeddings: int, embedding_dim: int) -> None:
        super().__init__(num_embeddings, embedding_dim)
        self.blocks: QuantizedTensor | None = None

    def use_blocks(self, blocks: QuantizedTensor) -> None:
        """Look rows up in these GGUF blocks; the dense table goes (its dtype stays the output's)."""
        self.blocks = blocks
        self.weight.data = torch.empty(0, dtype=self.weight.dtype)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        if self.blocks is not None:
            return lookup_rows(self.blocks, input_ids, self.weight.dtype)
        return super().forward(input_ids)
