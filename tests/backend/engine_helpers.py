"""Shared pieces of the engine tests: prompts, the blocks-free check, fakes and references."""
from __future__ import annotations

import torch

from llm_backend.engine.llm_engine import LLMEngine
from llm_backend.engine.sampling_params import SamplingParams
from tests.support.hf_reference import build_hf_model

SMOLLM = "smollm2-135m-instruct"
QWEN_05B = "qwen2.5-coder-0.5b-instruct"

CHAT_PROMPTS = [
    "What is the capital of France?",
    "Write a haiku about rain in Paris.",
    "List three primes.",
    "Explain what a KV cache is in one sentence.",
    "Hi",
    "Translate 'good morning' to Spanish and German, and say which one is more formal.",
    "Why is the sky blue? Answer briefly for a child who is five years old and curious about science.",
    "2+2=",
]


def assert_all_blocks_free(engine: LLMEngine) -> None:
    manager = engine.block_manager
    assert not engine.has_unfinished_requests()
    assert not engine.scheduler.running and not engine.scheduler.waiting
    assert all(block.ref_count == 0 for block in manager.blocks), "leaked KV block references"
    assert manager.num_free_blocks == manager.num_blocks
    pooled = list(manager._free) + list(manager._evictable)
    assert sorted(pooled) == list(range(manager.num_blocks)), "a block is lost or listed twice"


def chat_prompt_ids(tokenizer, question: str) -> list[int]:
    text = tokenizer.apply_chat_template([{"role": "user", "content": question}])
    return tokenizer.encode(text, add_special_tokens=False)


def greedy_decode(engine, prompt: list[int], num_tokens: int, top: int) -> list[tuple[int, float, dict[int, float]]]:
    """Per step: the greedy token, its log-probability and the `top` best (token -> log-probability)."""
    engine.add_request("r", prompt, SamplingParams(max_tokens=num_tokens, temperature=0, ignore_eos=True,
                                                   logprobs=top))
    outputs = []
    while engine.has_unfinished_requests():
        outputs += engine.step()
    return [(o.new_token_ids[0], o.logprobs[0].logprob, {t: lp for t, _, lp in o.logprobs[0].top}) for o in outputs]


def hf_reference_model(checkpoint) -> torch.nn.Module:
    """The same weights in transformers' own implementation, fp32, never stopping at EOS."""
    return build_hf_model(checkpoint.config, checkpoint.tensors, torch.float32)


class AllowList:
    """A fake grammar that allows a fixed set of tokens and ends after `length` tokens."""

    def __init__(self, allowed: list[int], length: int = 3) -> None:
        self.allowed, self.length, self.accepted = allowed, length, []

    def fill_next_token_bitmask(self, bitmask: torch.Tensor, row: int) -> bool:
        bitmask[row] = 0
        for token in self.allowed:
            bitmask[row, token // 32] |= 1 << (token % 32)
        return True

    def accept_token(self, token_id: int) -> bool:
        self.accepted.append(token_id)
        return token_id in self.allowed

    def forced_tokens(self) -> list[int]:
        return []

    def is_terminated(self) -> bool:
        return len(self.accepted) >= self.length

    def rollback(self, num_tokens: int) -> None:
        del self.accepted[len(self.accepted) - num_tokens:]
