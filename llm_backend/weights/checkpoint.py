"""`load_checkpoint`: a model name or path -> config, HF-named tensors and tokenizer, ready to run."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from gguf import GGUFReader
from safetensors.torch import load_file

from llm_backend.weights.derived_cache import derived_dir, write_atomically
from llm_backend.layers.gguf_weight import QuantizedTensor
from llm_backend.weights.gguf_loader import config_from_gguf, gguf_tensor_layout, iter_gguf_tensors, tensor_table
from llm_backend.weights.model_config import ModelConfig
from llm_backend.weights.model_store import CATALOG, resolve_model
from llm_backend.weights.safetensors_loader import load_safetensors_dir
from llm_backend.weights.safetensors_stream import write_safetensors
from llm_backend.weights.tokenizer import Tokenizer, load_gguf_tokenizer, load_hf_tokenizer


@dataclass
class Checkpoint:
    """Everything loaded for one model. `tensors` use Hugging Face parameter names; GGUF tensors
    loaded with their blocks kept are `QuantizedTensor`s."""

    name: str
    path: Path
    config: ModelConfig
    tensors: dict[str, torch.Tensor | QuantizedTensor]
    tokenizer: Tokenizer


def load_checkpoint(model: str, dtype: torch.dtype = torch.bfloat16, gguf_blocks: bool = False) -> Checkpoint:
    """Load a store name (pulled if missing), a ``.gguf`` file or a HF safetensors directory.

    With `gguf_blocks`, a GGUF's quantized matmul weights and embedding stay as stored, views of
    the memory-mapped file. Otherwise GGUF weights are dequantized once, tensor by tensor, into a
    safetensors file of `dtype` next to the model, which every later load reads.
    """
    path = resolve_model(model)
    name = model if model in CATALOG else path.stem if path.is_file() else path.name
    if path.is_dir():
        config, tensors = load_safetensors_dir(path, dtype, name)
        tokenizer = load_hf_tokenizer(path, config.eos_token_ids, config.vocab_size)
    else:
        config, tensors = _load_gguf(path, dtype, name, gguf_blocks)
        tokenizer = load_gguf_tokenizer(path, config.eos_token_ids, config.vocab_size)
    return Checkpoint(name=name, path=path, config=config, tensors=tensors, tokenizer=tokenizer)


def _load_gguf(path: Path, dtype: torch.dtype, name: str,
               keep_blocks: bool) -> tuple[ModelConfig, dict[str, torch.Tensor | QuantizedTensor]]:
    """Config and tensors: blocks mapped from the GGUF, or its dequantized copy (made first if missing).

    Even opening a GGUF with `GGUFReader` costs seconds (it parses the whole vocabulary), so the
    config and the tensor table are cached too: a warm start never parses the GGUF.
    """
    cache = derived_dir(path)
    config_file, table_file = cache / "model_config.json", cache / "tensor_table.json"
    if not (config_file.is_file() and table_file.is_file()):
        reader = GGUFReader(path)
        table = tensor_table(reader)
        write_atomically(table_file, lambda tmp: tmp.write_text(json.dumps(table)))
        config = config_from_gguf(reader, name)
        write_atomically(config_file, lambda tmp: tmp.write_text(json.dumps(asdict(config), indent=1)))
    fields = json.loads(config_file.read_text())
    config = ModelConfig(**{**fields, "eos_token_ids": tuple(fields["eos_token_ids"]), "name": name})
    table = json.loads(table_file.read_text())
    if keep_blocks:
        return config, dict(iter_gguf_tensors(path, table, config, dtype, keep_blocks=True))
    weights_file = cache / f"weights-{str(dtype).removeprefix('torch.')}.safetensors"
    if not weights_file.is_file():
        tensors = iter_gguf_tensors(path, table, config, dtype)
        write_atomically(weights_file, lambda tmp: write_safetensors(tmp, gguf_tensor_layout(table), dtype, tensors))
    return config, load_file(weights_file)
