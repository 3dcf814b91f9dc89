"""GGUF files -> `ModelConfig` and a state dict under Hugging Face parameter names.

Tensors are read through a memory map of the file, by a table of their offsets (`tensor_table`,
cached: `GGUFReader` takes seconds to parse a vocabulary). With `keep_blocks`, 2-d tensors of a
type our kernels run on stay as stored (`QuantizedTensor`, a view of the map); the rest are
dequantized one at a time with `gguf.quants.dequantize` and cast to the target dtype straight
away, so peak memory stays close to the size of the result.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import torch
from gguf import GGMLQuantizationType, GGUFReader
from gguf.quants import dequantize

from llm_backend.layers.gguf_weight import KERNEL_TYPES, QuantizedTensor
from llm_backend.weights.model_config import ModelConfig
from llm_backend.weights.progress import ProgressBar

SUPPORTED_ARCHITECTURES = ("llama", "qwen2", "qwen3")

_TOP_LEVEL_NAMES = {
    "token_embd.weight": "model.embed_tokens.weight",
    "output_norm.weight": "model.norm.weight",
    "output.weight": "lm_head.weight",
}
_LAYER_NAMES = {
    "attn_norm": "input_layernorm",
    "attn_q": "self_attn.q_proj",
    "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj",
    "attn_q_norm": "self_attn.q_norm",
    "attn_k_norm": "self_attn.k_norm",
    "ffn_norm": "post_attention_layernorm",
    "ffn_gate": "mlp.gate_proj",
    "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj",
}
_LAYER_TENSOR = re.compile(r"blk\.(\d+)\.(\w+)\.(weight|bias)")
# Derived at load time by llama.cpp from the config; not parameters of the HF model.
_SKIPPED = {"rope_freqs.weight"}
_ROWS_ELEMENTS = 1 << 22  # values dequantized per step: bounds the float32 temporaries to ~16 MB each
# Extra end-of-turn tokens chat models stop on besides the file's declared EOS.
_END_OF_TURN_TOKENS = ("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|end_of_text|>")


def _read_metadata(reader: GGUFReader) -> dict[str, object]:
    """All scalar and string metadata, plus small arrays; the vocabulary arrays are left out."""
    skipped = {"tokenizer.ggml.tokens", "tokenizer.ggml.merges", "tokenizer.ggml.token_type",
               "tokenizer.ggml.scores"}
    return {key: field.contents() for key, field in reader.fields.items() if key not in skipped}


def config_from_gguf(reader: GGUFReader, name: str = "") -> ModelConfig:
    """Fill `ModelConfig` from a GGUF's metadata and tensor table."""
    meta = _read_metadata(reader)
    arch = str(meta["general.architecture"])
    if arch not in SUPPORTED_ARCHITECTURES:
        raise ValueError(f"GGUF architecture {arch!r} is not supported (supported: {', '.join(SUPPORTED_ARCHITECTURES)})")
    tensors = {tensor.name: tensor for tensor in reader.tensors}
    hidden = int(meta[f"{arch}.embedding_length"])
    heads = int(meta[f"{arch}.attention.head_count"])
    vocab_rows = int(tensors["token_embd.weight"].shape[-1])  # ggml lists the fastest dimension first
    return ModelConfig(
        architecture=arch,
        vocab_size=vocab_rows,
        hidden_size=hidden,
        intermediate_size=int(meta[f"{arch}.feed_forward_length"]),
        num_hidden_layers=int(meta[f"{arch}.block_count"]),
        num_attention_heads=heads,
        num_key_value_heads=int(meta.get(f"{arch}.attention.head_count_kv", heads)),
        head_dim=int(meta.get(f"{arch}.attention.key_length", hidden // heads)),
        max_position_embeddings=int(meta.get(f"{arch}.context_length", 2048)),
        rope_theta=float(meta.get(f"{arch}.rope.freq_base", 10000.0)),
        rms_norm_eps=float(meta[f"{arch}.attention.layer_norm_rms_epsilon"]),
        tie_word_embeddings="output.weight" not in tensors,
        attention_bias="blk.0.attn_q.bias" in tensors,
        bos_token_id=_optional_int(meta.get("tokenizer.ggml.bos_token_id")),
        eos_token_ids=_eos_token_ids(reader, meta),
        name=name or str(meta.get("general.name", "")),
    )


def tensor_table(reader: GGUFReader) -> list[dict]:
    """Name, ggml type, shape (ggml order: fastest dimension first), file offset and size of every tensor."""
    return [{"name": t.name, "type": int(t.tensor_type), "shape": [int(d) for d in t.shape],
             "offset": int(t.data_offset), "bytes": int(t.n_bytes)} for t in reader.tensors]


def gguf_tensor_layout(table: list[dict]) -> list[tuple[str, tuple[int, ...]]]:
    """``(hf_name, shape)`` of every tensor `iter_gguf_tensors` yields, in the same order."""
    return [(hf_parameter_name(entry["name"]), tuple(reversed(entry["shape"])))
            for entry in table if entry["name"] not in _SKIPPED]


def iter_gguf_tensors(path: Path, table: list[dict], config: ModelConfig, dtype: torch.dtype,
                      keep_blocks: bool = False) -> Iterator[tuple[str, torch.Tensor | QuantizedTensor]]:
    """Yield ``(hf_name, tensor)`` one tensor at a time: blocks kept or dequantized, un-permuted, cast."""
    wanted = [entry for entry in table if entry["name"] not in _SKIPPED]
    # Copy-on-write: the views are writable for torch, and their pages stay the page cache's.
    data = np.memmap(path, mode="c")
    action = "mapping" if keep_blocks else "dequantizing"
    progress = ProgressBar(f"{action} {config.name or 'model'}", sum(entry["bytes"] for entry in wanted))
    for entry in wanted:
        tensor_type = GGMLQuantizationType(entry["type"])
        shape = tuple(reversed(entry["shape"]))
        raw = data[entry["offset"]:entry["offset"] + entry["bytes"]]
        if keep_blocks and tensor_type in KERNEL_TYPES and len(shape) == 2:
            mapped = torch.from_numpy(raw.reshape(shape[0], -1))
            blocks = _unpermute_rope_rows(mapped, entry["name"], config) if config.architecture == "llama" else mapped
            weight: torch.Tensor | QuantizedTensor = QuantizedTensor(tensor_type, blocks, shape[1], blocks is mapped)
        else:
            weight = _dequantized(_typed(raw, tensor_type, shape), tensor_type, dtype)
            if config.architecture == "llama":
                weight = _unpermute_rope_rows(weight, entry["name"], config)
        progress.advance(entry["bytes"])
        yield hf_parameter_name(entry["name"]), weight
    progress.close()


def _typed(raw: np.ndarray, tensor_type: GGMLQuantizationType, shape: tuple[int, ...]) -> np.ndarray:
    """A tensor's bytes as GGUFReader presents them: floats in `shape`, blocks as [rows, bytes per row]."""
    if tensor_type in (GGMLQuantizationType.F32, GGMLQuantizationType.F16):
        return raw.view(np.float32 if tensor_type == GGMLQuantizationType.F32 else np.float16).reshape(shape)
    return raw.reshape(int(np.prod(shape[:-1])), -1) if len(shape) > 1 else raw


def hf_parameter_name(gguf_name: str) -> str:
    """Map a llama.cpp tensor name (``blk.3.attn_q.weight``) to its transformers name."""
    if gguf_name in _TOP_LEVEL_NAMES:
        return _TOP_LEVEL_NAMES[gguf_name]
    match = _LAYER_TENSOR.fullmatch(gguf_name)
    if not match or match.group(2) not in _LAYER_NAMES:
        raise ValueError(f"GGUF tensor {gguf_name!r} has no Hugging Face counterpart we know of")
    layer, kind, suffix = match.groups()
    return f"model.layers.{layer}.{_LAYER_NAMES[kind]}.{suffix}"


def _dequantized(data: np.ndarray, tensor_type: GGMLQuantizationType, dtype: torch.dtype) -> torch.Tensor:
    """Dequantize a block of rows at a time into a `dtype` tensor.

    `dequantize` makes several float32 temporaries the size of its input; on whole embedding
    matrices (233M values for Qwen 1.5B) that alone would take gigabytes.
    """
    if tensor_type in (GGMLQuantizationType.F32, GGMLQuantizationType.F16):
        return torch.from_numpy(np.array(data)).to(dtype)  # np.array copies out of the read-only map
    if data.ndim == 1:
        return torch.from_numpy(dequantize(data, tensor_type)).to(dtype)
    first = dequantize(data[:1], tensor_type)
    out = torch.empty((data.shape[0], *first.shape[1:]), dtype=dtype)
    rows = max(1, _ROWS_ELEMENTS // first.size)
    for start in range(0, data.shape[0], rows):
        out[start:start + rows] = torch.from_numpy(dequantize(data[start:start + rows], tensor_type))
    return out


def _unpermute_rope_rows(weight: torch.Tensor, gguf_name: str, config: ModelConfig) -> torch.Tensor:
    """Undo llama.cpp's reordering of Q/K rows for its rotary layout.

    llama.cpp's converter interleaves the two rotary halves of every head of a llama model's
    q/k projections (HF rotates halves, ggml rotates adjacent pairs); qwen2 files are not permuted.
    Only whole rows move, so this works on dense weights and on rows of blocks alike.
    """
    if ".attn_q." in gguf_name:
        heads = config.num_attention_heads
    elif ".attn_k." in gguf_name:
        heads = config.num_key_value_heads
    else:
        return weight
    rest = weight.shape[1:]
    return (weight.reshape(heads, weight.shape[0] // heads // 2, 2, *rest)
            .transpose(1, 2).reshape(weight.shape).contiguous())


def _optional_int(value: object) -> int | None:
    return None if value is None else int(value)  # type: ignore[call-overload]


def _eos_token_ids(reader: GGUFReader, meta: dict[str, object]) -> tuple[int, ...]:
    """The declared EOS/EOT ids, plus the chat end-of-turn tokens the vocabulary has."""
    ids = [int(meta[key]) for key in ("tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id")  # type: ignore[call-overload]
           if key in meta]
    tokens_field = reader.fields.get("tokenizer.ggml.tokens")
    if tokens_field is not None:
        wanted = set(_END_OF_TURN_TOKENS)
        for token_id, part_index in enumerate(tokens_field.data):
            if bytes(tokens_field.parts[part_index]).decode("utf-8", "replace") in wanted:
                ids.append(token_id)
    return tuple(dict.fromkeys(ids))
