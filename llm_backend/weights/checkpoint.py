"""`load_checkpoint`: a model name or path -> config, HF-named tensors and tokenizer, ready to run."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from gguf import GGUFReader
from safetensors.torch import load_file

from llm_backend.weights.derived_cache import derived_dir, write_atomically
from llm_backend.weights.gguf_loader import config_from_gguf, gguf_tensor_layout, iter_gguf_tensors
from llm_backend.weights.model_config import ModelConfig
from llm_backend.weights.model_store import CATALOG, resolve_model
from llm_backend.weights.safetensors_loader import load_safetensors_dir
from llm_backend.weights.safetensors_stream import write_safetensors
from llm_backend.weights.tokenizer import Tokenizer, load_gguf_tokenizer, load_hf_tokenizer


@dataclass
class Checkpoint:
    """Everything loaded for one model. `tensors` use Hugging Face parameter names."""

    name: str
    path: Path
    config: ModelConfig
    tensors: dict[str, torch.Tensor]
    tokenizer: Tokenizer


def load_checkpoint(model: str, dtype: torch.dtype = torch.bfloat16) -> Checkpoint:
    """Load a store name (pulled if missing), a ``.gguf`` file or a HF safetensors directory.

    GGUF weights are dequantized once, tensor by tensor, into a safetensors file of `dtype` next
    to the model; every load then memory-maps that file (a restart skips dequantization).
    """
    path = resolve_model(model)
    name = model if model in CATALOG else path.stem if path.is_file() else path.name
    if path.is_dir():
        config, tensors = load_safetensors_dir(path, dtype, name)
        tokenizer = load_hf_tokenizer(path, config.eos_token_ids, config.vocab_size)
    else:
        config, tensors = _load_gguf_cached(path, dtype, name)
        tokenizer = load_gguf_tokenizer(path, config.eos_token_ids, config.vocab_size)
    return Checkpoint(name=name, path=path, config=config, tensors=tensors, tokenizer=tokenizer)


def _load_gguf_cached(path: Path, dtype: torch.dtype, name: str) -> tuple[ModelConfig, dict[str, torch.Tensor]]:
    """Config and tensors from the derived cache, or dequantized from the GGUF and cached.

    Even opening a GGUF with `GGUFReader` costs seconds (it parses the whole vocabulary), so a
    warm start reads neither the GGUF nor its metadata.
    """
    cache = derived_dir(path)
    config_file = cache / "model_config.json"
    weights_file = cache / f"weights-{str(dtype).removeprefix('torch.')}.safetensors"
    if config_file.is_file() and weights_file.is_file():
        fields = json.loads(config_file.read_text())
        config = ModelConfig(**{**fields, "eos_token_ids": tuple(fields["eos_token_ids"]), "name": name})
        return config, load_file(weights_file)
    reader = GGUFReader(path)
    config = config_from_gguf(reader, name)
    tensors = iter_gguf_tensors(reader, config, dtype)
    write_atomically(weights_file, lambda tmp: write_safetensors(tmp, gguf_tensor_layout(reader), dtype, tensors))
    write_atomically(config_file, lambda tmp: tmp.write_text(json.dumps(asdict(config), indent=1)))
    return config, load_file(weights_file)
