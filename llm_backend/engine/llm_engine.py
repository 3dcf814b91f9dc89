"""The synchronous engine: requests in, one scheduled forward pass per `step`, outputs out."""
from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from llm_backend.config import EngineConfig
from llm_backend.engine.block_manager import BlockManager
from llm_backend.engine.constraint import TokenConstraint
from llm_backend.engine.detokenizer import IncrementalDetokenizer
from llm_backend.engine.model_runner import ModelRunner, kv_block_bytes
from llm_backend.engine.outputs import Completion, EngineStats, RequestOutput
from llm_backend.engine.sampler import SampledToken, Sampler
from llm_backend.engine.sampling_params import SamplingParams
from llm_backend.engine.scheduler import Scheduler
from llm_backend.engine.sequence import CacheScope, Sequence, TokenLogprob
from llm_backend.layers.gguf_weight import QuantizedTensor
from llm_backend.layers.linear import gguf_blocks_usable, resolve_weight_format
from llm_backend.models import build_model
from llm_backend.weights.model_config import ModelConfig

__all__ = ["LLMEngine", "RequestOutput", "EngineStats", "Completion"]

ConstraintFactory = Callable[[], TokenConstraint]


# Chunk attention (SDPA with an explicit mask, on CPU) does its FLOPs this much slower than the
# matmuls: on SmolLM2 (bf16, 2 cores) a 511-token chunk step took 0.30 s with no context and 1.38 s
# after 4,600 tokens, where FLOPs alone predict 1.0 s.
CHUNK_ATTENTION_SLOWDOWN = 2.4
# How often a request waiting for its turn is told the engine is busy (progress with nothing prefilled yet).
QUEUED_REPORT_S = 1.0


def attention_cost_context(config: ModelConfig) -> int:
    """The context length after which a prompt token's attention costs as much time as its matmuls.

    Per layer a token's projections and MLP take 2 FLOPs per weight; its attention takes 4 per query
    dimension and earlier token (QK^T, then PV), at CHUNK_ATTENTION_SLOWDOWN the time per FLOP.
    SmolLM2-135M: 1280 tokens; Qwen2.5-1.5B: 6346."""
    queries = config.num_attention_heads * config.head_dim
    keys_values = 2 * config.num_key_value_heads * config.head_dim
    weights = config.hidden_size * (2 * queries + keys_values + 3 * config.intermediate_size)
    return max(1, int(weights / (2 * queries * CHUNK_ATTENTION_SLOWDOWN)))


@dataclass
class _Request:
    params: SamplingParams
    constraint_factory: ConstraintFactory | None
    cache_scope: CacheScope
    seqs: list[Sequence] = field(default_factory=list)
    forks_pending: int = 0  # choices 1..n-1 start as forks of choice 0 once its prefill is done


class LLMEngine:
    """Loads the model, owns the scheduler and KV pool, and advances all requests together."""

    def __init__(self, config: EngineConfig, checkpoint: Any = None) -> None:
        """`checkpoint` (with .config, .tensors, .tokenizer) skips loading `config.model`."""
        config.validate()
        self.config = config
        device, dtype = config.resolved_device(), config.resolved_dtype()
        if device.type == "cpu":
            torch.set_num_threads(config.resolved_threads())
        torch.manual_seed(config.seed)
        if checkpoint is None:
            from llm_backend.weights import load_checkpoint
            checkpoint = load_checkpoint(config.model, dtype,
                                         gguf_blocks=gguf_blocks_usable(config.weight_format, device, dtype))
        self.model_config = checkpoint.config
        self.tokenizer = checkpoint.tokenizer
        num_blocks = config.kv_cache_bytes() // kv_block_bytes(self.model_config, config.block_size, dtype)
        if num_blocks < 2:
            raise ValueError(f"kv_cache_memory {config.kv_cache_memory} holds fewer than 2 blocks")
        self.max_model_len = min(config.max_model_len or self.model_config.max_position_embeddings,
                                 num_blocks * config.block_size)
        has_blocks = any(isinstance(tensor, QuantizedTensor) for tensor in checkpoint.tensors.values())
        self.weight_format = resolve_weight_format(config.weight_format, device, dtype, has_blocks)
        model = build_model(self.model_config, checkpoint.tensors, dtype, device, self.max_model_len,
                            self.weight_format)
        self.block_manager = BlockManager(num_blocks, config.block_size, config.enable_prefix_caching)
        self.scheduler = Scheduler(self.block_manager, config.max_num_seqs, config.max_num_batched_tokens,
                                   attention_cost_context(self.model_config), config.num_speculative_tokens,
                                   self.max_model_len, config.chunk_seconds)
        self.model_runner = ModelRunner(model, num_blocks, config.block_size)
        self.sampler = Sampler()
        self.eos_token_ids = set(getattr(self.tokenizer, "eos_token_ids", ()) or self.model_config.eos_token_ids)
        self._requests: dict[str, _Request] = {}
        self._seq_ids = itertools.count()
        self._prompt_tokens_total = 0
        self._generation_tokens_total = 0
        self._ttft_samples: list[float] = []
        self._draft_tokens_total = 0
        self._accepted_draft_tokens_total = 0
        self._queued_reported_at = 0.0

    # ---- requests ---------------------------------------------------------------------
    def add_request(self, request_id: str, prompt_token_ids: list[int], params: SamplingParams,
                    constraint_factory: ConstraintFactory | None = None,
                    cache_scope: CacheScope = CacheScope()) -> None:
        """Queue a request; raises ValueError for bad parameters, a bad or too long prompt.

        `cache_scope` says which prefix-cache entries the request may share (its cache salt)."""
        if request_id in self._requests:
            raise ValueError(f"request id {request_id!r} is already in use")
        self.check_request(prompt_token_ids, params)
        request = _Request(params, constraint_factory, cache_scope, forks_pending=params.n - 1)
        request.seqs.append(self._new_sequence(request_id, 0, prompt_token_ids, request))
        self._requests[request_id] = request
        self.scheduler.add(request.seqs[0])

    def check_request(self, prompt_token_ids: list[int], params: SamplingParams) -> None:
        """Raise ValueError with a client-facing message if the request cannot be served."""
        params.validate()
        if not prompt_token_ids:
            raise ValueError("the prompt is empty")
        if len(prompt_token_ids) >= self.max_model_len:
            raise ValueError(f"the prompt has {len(prompt_token_ids)} tokens but this model's context "
                             f"is {self.max_model_len} tokens (prompt plus at least one generated token)")
        vocab_size = self.model_config.vocab_size
        if any(not 0 <= t < vocab_size for t in prompt_token_ids):
            raise ValueError(f"prompt token ids must be in [0, {vocab_size})")
        if any(t >= vocab_size for t in params.logit_bias):
            raise ValueError(f"logit_bias keys must be token ids in [0, {vocab_size})")

    def abort_request(self, request_id: str) -> None:
        """Stop a request now and free its KV blocks. Unknown or finished ids are ignored."""
        request = self._requests.pop(request_id, None)
        if request is None:
            return
        for seq in request.seqs:
            if not seq.is_finished:
                seq.finish("abort")
                self.scheduler.remove(seq)

    def has_unfinished_requests(self) -> bool:
        return bool(self._requests)

    def unfinished_request_ids(self) -> list[str]:
        return list(self._requests)

    # ---- the step ---------------------------------------------------------------------
    @torch.inference_mode()
    def step(self) -> list[RequestOutput]:
        """Schedule, run one forward pass, sample, and report every sequence that advanced."""
        batch = self.scheduler.schedule()
        if not batch.items:
            return []
        started = time.perf_counter()
        seqs, logits = self.model_runner.execute(batch)
        self.scheduler.observe(batch, time.perf_counter() - started)
        for seq, num_tokens in batch.items:
            seq.num_computed_tokens += num_tokens
            self.block_manager.register_full_blocks(seq)
        progress = [self._progress(seq) for seq, _ in batch.items
                    if seq.params.report_progress and seq.num_output_tokens == 0] + self._queued_progress()
        rows: list[int] = []
        sample_seqs: list[Sequence] = []
        drafted: list[tuple[Sequence, int]] = []  # a sequence with drafts and its first logits row
        row = 0
        for seq in seqs:
            if seq.draft_token_ids:
                drafted.append((seq, row))
                row += 1 + len(seq.draft_token_ids)
                continue
            for member in self._with_forks(seq):
                rows.append(row)
                sample_seqs.append(member)
            row += 1
        outputs = progress
        if sample_seqs:
            sampled = self.sampler(logits[torch.tensor(rows, device=logits.device)], sample_seqs)
            outputs += [self._append_token(seq, token) for seq, token in zip(sample_seqs, sampled)]
        return outputs + [self._verify_drafts(seq, logits[first:first + 1 + len(seq.draft_token_ids)])
                          for seq, first in drafted]

    def _verify_drafts(self, seq: Sequence, logits: torch.Tensor) -> RequestOutput:
        """Sample row by row (the grammar masks each row in the state the tokens before it left):
        a draft stands while it is the greedy token; the first token that is not ends the step."""
        drafts, seq.draft_token_ids = seq.draft_token_ids, []
        new_token_ids: list[int] = []
        accepted = 0
        for draft in drafts + [None]:
            token_id = self.sampler(logits[accepted:accepted + 1], [seq])[0].token_id
            new_token_ids.append(token_id)
            self._accept(seq, token_id)
            if token_id != draft:
                break
            accepted += 1
            if seq.is_finished:
                break
            seq.num_computed_tokens += 1  # its K/V were computed from the draft, the same token
        self.block_manager.register_full_blocks(seq)
        self._draft_tokens_total += len(drafts)
        self._accepted_draft_tokens_total += accepted
        return self._report(seq, new_token_ids + self._accept_forced(seq), None)

    def _with_forks(self, seq: Sequence) -> list[Sequence]:
        """`seq` plus, right after choice 0's prefill, the other n-1 choices sharing its blocks."""
        request = self._requests[seq.request_id]
        if seq.index != 0 or not request.forks_pending:
            return [seq]
        prompt = seq.token_ids[:seq.num_prompt_tokens]
        for index in range(1, request.params.n):
            child = self._new_sequence(seq.request_id, index, prompt, request)
            child.num_cached_tokens = seq.num_cached_tokens
            self.block_manager.fork(seq, child)
            self.scheduler.add_running(child)
            request.seqs.append(child)
        request.forks_pending = 0
        return request.seqs

    def _new_sequence(self, request_id: str, index: int, prompt: list[int], request: _Request) -> Sequence:
        constraint = request.constraint_factory() if request.constraint_factory else None
        seq = Sequence(next(self._seq_ids), request_id, index, prompt, request.params, constraint,
                       request.cache_scope)
        seq.detokenizer = IncrementalDetokenizer(self._decode_text, prompt, request.params.stop,
                                                 request.params.include_stop_str_in_output)
        return seq

    def _decode_text(self, token_ids: list[int]) -> str:
        return self.tokenizer.decode(token_ids, skip_special_tokens=True)

    def _append_token(self, seq: Sequence, sampled: SampledToken) -> RequestOutput:
        """Add the sampled token, then any tokens the grammar forces (jump-forward), and report."""
        self._accept(seq, sampled.token_id)
        new_token_ids = [sampled.token_id] + self._accept_forced(seq)
        logprobs = None
        if sampled.logprob is not None:
            decode = self.tokenizer.decode
            logprobs = [TokenLogprob(sampled.token_id, decode([sampled.token_id]), sampled.logprob,
                                     [(t, decode([t]), lp) for t, lp in sampled.top or []])]
        return self._report(seq, new_token_ids, logprobs)

    def _accept_forced(self, seq: Sequence) -> list[int]:
        """Tokens the grammar forces now (jump-forward); the next step computes them as one chunk."""
        forced: list[int] = []
        if seq.constraint is not None and seq.params.logprobs is None:
            for token_id in seq.constraint.forced_tokens():
                if seq.is_finished:
                    break
                forced.append(token_id)
                self._accept(seq, token_id)
        return forced

    def _report(self, seq: Sequence, new_token_ids: list[int], logprobs: list[TokenLogprob] | None) -> RequestOutput:
        if seq.is_finished:
            self.scheduler.remove(seq)
            self._forget_if_done(seq.request_id)
        return RequestOutput(
            request_id=seq.request_id, index=seq.index, new_token_ids=new_token_ids,
            new_text=seq.detokenizer.take_new_text(seq.is_finished), finished=seq.is_finished,
            finish_reason=seq.finish_reason, stop_reason=seq.stop_reason,
            prompt_tokens=seq.num_prompt_tokens, completion_tokens=seq.num_output_tokens,
            cached_tokens=seq.num_cached_tokens, logprobs=logprobs, prefilled_tokens=seq.num_prompt_tokens)

    def _queued_progress(self) -> list[RequestOutput]:
        """Reports for the sequences still waiting, at most every QUEUED_REPORT_S: a request queued behind a long
        prefill hears that the engine is working (a client that times out on silence would otherwise give up on
        a live server), and what it reports is true: nothing of its prompt is in yet."""
        now = time.monotonic()
        if now - self._queued_reported_at < QUEUED_REPORT_S:
            return []
        self._queued_reported_at = now
        return [self._progress(seq) for seq in self.scheduler.waiting
                if seq.params.report_progress and seq.num_output_tokens == 0]

    def _progress(self, seq: Sequence) -> RequestOutput:
        """A prefill chunk's report: how much of the prompt is in the KV cache now."""
        return RequestOutput(
            request_id=seq.request_id, index=seq.index, new_token_ids=[], new_text="", finished=False,
            finish_reason=None, stop_reason=None, prompt_tokens=seq.num_prompt_tokens, completion_tokens=0,
            cached_tokens=seq.num_cached_tokens, prefilled_tokens=seq.num_computed_tokens, is_progress=True)

    def _accept(self, seq: Sequence, token_id: int) -> None:
        seq.token_ids.append(token_id)
        self._generation_tokens_total += 1
        if seq.num_output_tokens == 1:
            seq.first_token_time = time.monotonic()
            if seq.index == 0:
                self._prompt_tokens_total += seq.num_prompt_tokens
                self._ttft_samples.append(seq.first_token_time - seq.arrival_time)
        self._check_stop(seq, token_id)

    def _check_stop(self, seq: Sequence, token_id: int) -> None:
        params = seq.params
        if seq.constraint is not None and not seq.constraint.accept_token(token_id):
            seq.finish("stop", "grammar rejected the token")
            return
        if not params.ignore_eos and token_id in self.eos_token_ids:
            seq.finish("stop")
            return
        if token_id in params.stop_token_ids:
            seq.finish("stop", token_id)
            return
        stop_string = seq.detokenizer.add_token(token_id)
        if stop_string is not None:
            seq.finish("stop", stop_string)
        elif seq.constraint is not None and seq.constraint.is_terminated():
            seq.finish("stop")
        elif seq.num_output_tokens >= params.max_tokens or seq.num_tokens >= self.max_model_len:
            seq.finish("length")

    def _forget_if_done(self, request_id: str) -> None:
        request = self._requests.get(request_id)
        if request and not request.forks_pending and all(s.is_finished for s in request.seqs):
            del self._requests[request_id]

    # ---- observability ----------------------------------------------------------------
    def stats(self) -> EngineStats:
        samples, self._ttft_samples = self._ttft_samples, []
        return EngineStats(
            num_running=len(self.scheduler.running), num_waiting=len(self.scheduler.waiting),
            kv_blocks_used=self.block_manager.num_used_blocks, kv_blocks_total=self.block_manager.num_blocks,
            kv_blocks_peak_used=self.block_manager.peak_used_blocks,
            prefix_cache_queried_tokens=self.block_manager.prefix_queried_tokens,
            prefix_cache_hit_tokens=self.block_manager.prefix_hit_tokens,
            prompt_tokens_total=self._prompt_tokens_total, generation_tokens_total=self._generation_tokens_total,
            num_preemptions=self.scheduler.num_preemptions, ttft_seconds=samples,
            draft_tokens_total=self._draft_tokens_total, accepted_draft_tokens_total=self._accepted_draft_tokens_total)

    def kv_cache_report(self) -> dict:
        """`BlockManager.audit` against every sequence the scheduler holds (call between steps)."""
        return self.block_manager.audit(list(self.scheduler.running) + list(self.scheduler.waiting))

    # ---- offline convenience ----------------------------------------------------------
    def generate(self, prompts: list[str] | list[list[int]], params: SamplingParams) -> list[Completion]:
        """Run prompts (text or token ids) to completion: n choices per prompt, prompt-major order."""
        ids = [f"generate-{next(self._seq_ids)}" for _ in prompts]
        for request_id, prompt in zip(ids, prompts):
            tokens = self.tokenizer.encode(prompt) if isinstance(prompt, str) else prompt
            self.add_request(request_id, tokens, params)
        results: dict[tuple[str, int], Completion] = {}
        while self.has_unfinished_requests():
            for out in self.step():
                done = results.setdefault((out.request_id, out.index), Completion([], "", None, out.cached_tokens))
                done.token_ids += out.new_token_ids
                done.text += out.new_text
                done.finish_reason = out.finish_reason
        return [results[(request_id, index)] for request_id in ids for index in range(params.n)]
