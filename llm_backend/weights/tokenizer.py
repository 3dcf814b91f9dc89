"""The tokenizer and chat template of a model, built from GGUF metadata or a HF directory.

Converting a GGUF vocabulary into a fast tokenizer takes seconds (10 s for Qwen's 152k tokens),
so the converted ``tokenizer.json`` and chat template are saved next to the model and reused.
"""
from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from transformers import AutoTokenizer, PreTrainedTokenizerBase

from llm_backend.weights.chatml_tools_template import CHATML_TOOLS_TEMPLATE
from llm_backend.weights.derived_cache import derived_dir

_CHATML_START = "<|im_start|>"
# How Qwen's template (and ours) writes a tool's signature, and the same written without blanks.
_TOOL_TOJSON = "tool | tojson"
_TOOL_TOJSON_COMPACT = "tool | tojson(separators=(',', ':'))"


class Tokenizer:
    """Text <-> token ids, and chat messages -> prompt text, for one model."""

    def __init__(self, hf_tokenizer: PreTrainedTokenizerBase, eos_token_ids: Sequence[int], vocab_size: int) -> None:
        self.hf_tokenizer = hf_tokenizer
        self.eos_token_ids = tuple(eos_token_ids)
        self.vocab_size = vocab_size  # rows of the model's embedding, which may exceed the vocabulary
        self.chat_template = hf_tokenizer.chat_template
        self.tool_chat_template = _tool_capable_template(hf_tokenizer)

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        """Token ids of `text`; `add_special_tokens` adds BOS where the model wants one."""
        return self.hf_tokenizer.encode(text, add_special_tokens=add_special_tokens)

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = False) -> str:
        return self.hf_tokenizer.decode(list(ids), skip_special_tokens=skip_special_tokens)

    def apply_chat_template(self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None,
                            add_generation_prompt: bool = True) -> str:
        """Render OpenAI-style chat messages (and tool definitions) into the model's prompt text.

        OpenAI clients send tool-call arguments as a JSON string and may send content as a list
        of text parts; templates expect an object and a string, so both are normalised first.
        A conversation with tools uses `tool_chat_template`, any other the model's own template.
        """
        normalised = [_normalised_message(message) for message in messages]
        uses_tools = bool(tools) or any(m.get("tool_calls") or m.get("role") == "tool" for m in normalised)
        return self.hf_tokenizer.apply_chat_template(
            normalised,
            tools=list(tools) if tools else None,
            chat_template=self.tool_chat_template if uses_tools else self.chat_template,
            add_generation_prompt=add_generation_prompt,
            tokenize=False,
        )


def load_gguf_tokenizer(gguf_path: Path, eos_token_ids: Sequence[int], vocab_size: int) -> Tokenizer:
    """The tokenizer a GGUF describes, converted once and then read back from the derived cache."""
    cache = derived_dir(gguf_path) / "tokenizer"
    if (cache / "tokenizer.json").is_file():
        hf_tokenizer = AutoTokenizer.from_pretrained(cache)
    else:
        hf_tokenizer = AutoTokenizer.from_pretrained(gguf_path.parent, gguf_file=gguf_path.name)
        _save_atomically(hf_tokenizer, cache)
    return Tokenizer(hf_tokenizer, eos_token_ids, vocab_size)


def load_hf_tokenizer(model_dir: Path, eos_token_ids: Sequence[int], vocab_size: int) -> Tokenizer:
    """The tokenizer of a Hugging Face model directory."""
    return Tokenizer(AutoTokenizer.from_pretrained(model_dir), eos_token_ids, vocab_size)


def _save_atomically(hf_tokenizer: PreTrainedTokenizerBase, cache: Path) -> None:
    """Save into a private sibling directory and rename it, so a half-written cache is never read, and two
    processes converting at once (two backends, parallel tests) never write into the same directory."""
    staging = Path(tempfile.mkdtemp(prefix=f".{cache.name}.", suffix=".partial", dir=cache.parent))
    try:
        staging.chmod(0o755)  # mkdtemp makes it owner-only; the cache is shared like any download
        hf_tokenizer.save_pretrained(staging)
        staging.rename(cache)
    except OSError:
        if not (cache / "tokenizer.json").is_file():
            raise
        # another process finished first; its copy is just as good
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _tool_capable_template(hf_tokenizer: PreTrainedTokenizerBase) -> str | None:
    """The model's template if it renders tools, else our ChatML one for ChatML models (SmolLM2), with the tools'
    signatures written as compact JSON.

    Without the blanks after `,` and `:` a signature takes ~20% fewer tokens (the gateway's router prompt: 2,665 ->
    2,314), which every cold prefill pays for, and the router answered the eval as well (docs/benchmarks.md:
    dev23, 234 vs 233 of 240)."""
    template = hf_tokenizer.chat_template
    if isinstance(template, str) and _CHATML_START in template and "tools" not in template:
        template = CHATML_TOOLS_TEMPLATE
    if isinstance(template, str):
        template = template.replace(_TOOL_TOJSON, _TOOL_TOJSON_COMPACT)
    return template


def _normalised_message(message: dict[str, Any]) -> dict[str, Any]:
    normalised = dict(message)
    content = message.get("content")
    if isinstance(content, list):
        normalised["content"] = "".join(part.get("text", "") for part in content if part.get("type") == "text")
    if message.get("tool_calls"):
        normalised["tool_calls"] = [_parsed_call(call) for call in message["tool_calls"]]
    return normalised


def _parsed_call(call: dict[str, Any]) -> dict[str, Any]:
    function = call.get("function", call)
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            pass  # the template shows a malformed string as it is
    parsed = {**function, "arguments": arguments}
    return {**call, "function": parsed} if "function" in call else parsed
