"""Request fields -> engine `SamplingParams`, with the context-length check."""
from __future__ import annotations

from llm_backend.engine.sampling_params import SamplingParams
from llm_backend.server.errors import bad_request, context_too_long
from llm_backend.server.protocol import ChatCompletionRequest, CompletionRequest


def sampling_params(request: ChatCompletionRequest | CompletionRequest, prompt_tokens: int,
                    max_model_len: int) -> SamplingParams:
    """Build and validate the engine parameters; an unset max_tokens fills the context."""
    if prompt_tokens >= max_model_len:
        raise context_too_long(prompt_tokens, 1, max_model_len)
    requested = request.max_tokens
    if isinstance(request, ChatCompletionRequest) and request.max_completion_tokens is not None:
        requested = request.max_completion_tokens
    max_tokens = requested if requested is not None else max_model_len - prompt_tokens
    if prompt_tokens + max_tokens > max_model_len:
        raise context_too_long(prompt_tokens, max_tokens, max_model_len)
    stop = [request.stop] if isinstance(request.stop, str) else list(request.stop or [])
    params = SamplingParams(
        max_tokens=max_tokens, temperature=request.temperature, top_p=request.top_p,
        top_k=max(request.top_k, 0), min_p=request.min_p,
        presence_penalty=request.presence_penalty, frequency_penalty=request.frequency_penalty,
        repetition_penalty=request.repetition_penalty, seed=request.seed, stop=stop,
        stop_token_ids=list(request.stop_token_ids or []), ignore_eos=request.ignore_eos,
        n=request.n, logprobs=_logprobs(request), logit_bias=_logit_bias(request.logit_bias),
        report_progress=bool(request.stream and request.stream_options and request.stream_options.include_progress))
    try:
        params.validate()
    except ValueError as exc:
        raise bad_request(str(exc)) from exc
    return params


def _logit_bias(bias: dict[str, float] | None) -> dict[int, float]:
    """OpenAI's {"token id": bias} with string keys (JSON's) -> {token id: bias}."""
    if any(not key.isdecimal() for key in bias or {}):
        raise bad_request("logit_bias: keys must be token ids (decimal strings such as \"1234\").",
                          param="logit_bias")
    return {int(key): value for key, value in (bias or {}).items()}


def _logprobs(request: ChatCompletionRequest | CompletionRequest) -> int | None:
    if isinstance(request, ChatCompletionRequest):
        if not request.logprobs:
            if request.top_logprobs:
                raise bad_request("top_logprobs requires logprobs to be true.", param="top_logprobs")
            return None
        return request.top_logprobs or 0
    return request.logprobs
