"""Sampler stages on hand-made logits."""
from __future__ import annotations

import math

import torch

from llm_backend.engine.sampler import Sampler
from llm_backend.engine.sampling_params import SamplingParams
from engine_helpers import AllowList
from llm_backend.engine.sequence import Sequence

VOCAB = 40


def seq(params: SamplingParams, prompt=(1, 2), output=(), constraint=None) -> Sequence:
    s = Sequence(0, "r", 0, list(prompt), params, constraint)
    s.token_ids += list(output)
    return s


def draws(params: SamplingParams, logits: torch.Tensor, times: int = 200) -> set[int]:
    sampler = Sampler()
    return {sampler(logits.clone().unsqueeze(0), [seq(params)])[0].token_id for _ in range(times)}


def test_greedy_picks_argmax_per_row():
    logits = torch.randn(3, VOCAB)
    params = SamplingParams(temperature=0)
    out = Sampler()(logits.clone(), [seq(params) for _ in range(3)])
    assert [o.token_id for o in out] == logits.argmax(-1).tolist()


def test_top_k_top_p_min_p_restrict_the_support():
    logits = torch.log(torch.tensor([0.5, 0.3, 0.15, 0.05] + [1e-9] * (VOCAB - 4)))
    assert draws(SamplingParams(top_k=2), logits) == {0, 1}
    assert draws(SamplingParams(top_p=0.7), logits) == {0, 1}
    assert draws(SamplingParams(min_p=0.25), logits) == {0, 1, 2}
    assert draws(SamplingParams(temperature=1.0), logits) >= {0, 1, 2, 3}


def test_seed_makes_sampling_reproducible_and_independent_of_the_batch():
    logits = torch.zeros(VOCAB)
    params = SamplingParams(seed=7)
    sampler = Sampler()

    def run(batch_size: int) -> list[int]:
        s = seq(params)
        others = [seq(SamplingParams()) for _ in range(batch_size - 1)]
        tokens = []
        for _ in range(5):
            rows = torch.stack([logits] * batch_size)
            tokens.append(sampler(rows, others + [s])[-1].token_id)
        return tokens

    assert run(1) == run(4)
    assert len(set(run(1))) > 1


def test_penalties():
    logits = torch.zeros(1, VOCAB)
    logits[0, 5] = 2.0
    logits[0, 6] = -2.0
    params = SamplingParams(temperature=0, repetition_penalty=2.0, presence_penalty=0.5, frequency_penalty=0.25)
    s = seq(params, prompt=(6,), output=(5, 5))
    from llm_backend.engine.sampler import apply_penalties
    apply_penalties(logits, [s])
    assert logits[0, 5].item() == 2.0 / 2.0 - 0.5 - 0.25 * 2
    assert logits[0, 6].item() == -2.0 * 2.0  # prompt token: repetition only
    assert logits[0, 7].item() == 0.0


def test_grammar_masks_are_applied_to_constrained_rows_only():
    logits = torch.zeros(2, VOCAB)
    logits[:, 3] = 10.0  # the favourite, forbidden by the grammar
    grammar = AllowList([33, 7])
    rows = [seq(SamplingParams(temperature=0), constraint=grammar), seq(SamplingParams(temperature=0))]
    out = Sampler()(logits, rows)
    assert out[0].token_id in (7, 33) and out[1].token_id == 3
    assert draws(SamplingParams(), torch.zeros(VOCAB)) != {7, 33}
    constrained = [Sampler()(torch.zeros(1, VOCAB), [seq(SamplingParams(), constraint=grammar)])[0].token_id
                   for _ in range(50)]
    assert set(constrained) == {7, 33}


def test_logprobs_are_the_model_distribution():
    logits = torch.log(torch.tensor([[0.6, 0.3, 0.1] + [0.0] * (VOCAB - 3)]) + 1e-30)
    out = Sampler()(logits.clone(), [seq(SamplingParams(temperature=0, logprobs=2))])[0]
    assert out.token_id == 0
    assert math.isclose(out.logprob, math.log(0.6), rel_tol=1e-5)
    assert [t for t, _ in out.top] == [0, 1]


def test_logit_bias_bans_and_favours_tokens_but_never_revives_a_grammar_ban():
    logits = torch.zeros(1, VOCAB)
    logits[0, 3] = 10.0
    banned = Sampler()(logits.clone(), [seq(SamplingParams(temperature=0, logit_bias={3: -100.0}))])[0]
    assert banned.token_id != 3
    favoured = Sampler()(logits.clone(), [seq(SamplingParams(temperature=0, logit_bias={9: 20.0}))])[0]
    assert favoured.token_id == 9
    assert draws(SamplingParams(logit_bias={5: 100.0}), torch.zeros(VOCAB)) == {5}
    grammar = AllowList([33, 7])
    ruled = Sampler()(logits.clone(), [seq(SamplingParams(temperature=0, logit_bias={3: 100.0, 7: 1.0}),
                                           constraint=grammar)])[0]
    assert ruled.token_id == 7  # 3 stays forbidden whatever its bias
