"""The OpenAI-compatible server over real HTTP, with the official `openai` SDK as the client.

One server process on SmolLM2 serves the whole module.
"""
from __future__ import annotations

import json
import re
import time

import httpx
import openai
import pytest

from tests.support.backend_server import TEST_THREADS, running_server

MODEL = "smollm2-135m-instruct"


@pytest.fixture(scope="module")
def base_url():
    with running_server(MODEL, "--kv-cache-memory", "64MiB", "--max-model-len", "2048",
                        "--max-num-seqs", "4", threads=TEST_THREADS) as url:
        yield url


@pytest.fixture(scope="module")
def client(base_url):
    return openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0)


def metric(base_url: str, name: str) -> float:
    text = httpx.get(f"{base_url}/metrics").text
    match = re.search(rf"^llm_backend_{name}(?:\{{[^}}]*\}})? (\S+)$", text, re.M)
    assert match, f"metric {name} missing"
    return float(match.group(1))


def test_health_and_models_list_the_served_name(base_url, client):
    assert httpx.get(f"{base_url}/health").json() == {"status": "ok"}
    assert [m.id for m in client.models.list().data] == [MODEL]


def test_chat_non_streaming_reports_consistent_usage(base_url, client):
    messages = [{"role": "user", "content": "Name a color."}]
    reply = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=12,
                                           temperature=0, logprobs=True, top_logprobs=2)
    choice = reply.choices[0]
    assert len(choice.logprobs.content) == reply.usage.completion_tokens
    assert all(len(t.top_logprobs) == 2 and t.logprob <= 0 for t in choice.logprobs.content)
    assert reply.object == "chat.completion" and choice.message.role == "assistant"
    assert choice.message.content and choice.finish_reason in ("stop", "length")
    prompt = httpx.post(f"{base_url}/tokenize", json={"messages": messages}).json()
    assert reply.usage.prompt_tokens == prompt["count"]
    assert 1 <= reply.usage.completion_tokens <= 12
    assert reply.usage.total_tokens == reply.usage.prompt_tokens + reply.usage.completion_tokens


def test_chat_streaming_equals_non_streaming_and_ends_with_usage(client):
    request = dict(model=MODEL, messages=[{"role": "user", "content": "Count to five."}],
                   max_tokens=16, temperature=0)
    whole = client.chat.completions.create(**request)  # also warms the prefix cache for the stream
    whole = client.chat.completions.create(**request)
    chunks = list(client.chat.completions.create(**request, stream=True,
                                                 stream_options={"include_usage": True}))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == whole.choices[0].message.content
    assert chunks[0].choices[0].delta.role == "assistant"
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finishes == [whole.choices[0].finish_reason]
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == whole.usage.completion_tokens


def numbered_list() -> str:
    """A prompt of about 650 tokens: over two prefill chunks at the default budget of 512."""
    return "Summarize the list: " + "; ".join(f"item {i} weighs {i * 7} grams" for i in range(56))


def test_streams_report_prefill_progress_only_when_asked(base_url, client):
    messages = [{"role": "user", "content": numbered_list()}]
    total = httpx.post(f"{base_url}/tokenize", json={"messages": messages}).json()["count"]
    request = dict(model=MODEL, messages=messages, max_tokens=4, temperature=0, stream=True)
    asked = {"include_progress": True}

    def progress(chunks: list) -> list[dict]:
        """The `prefill` objects, checked to come before the first token, in chunks without choices."""
        first_token = next(i for i, c in enumerate(chunks) if c.choices and c.choices[0].delta.content)
        found = [(i, c) for i, c in enumerate(chunks) if (c.model_extra or {}).get("prefill")]
        assert all(i < first_token and c.choices == [] for i, c in found)
        return [c.model_extra["prefill"] for _, c in found]

    cold = progress(list(client.chat.completions.create(**request, stream_options=asked)))
    assert total > 512 and len(cold) >= 2 and cold[-1]["done"] == total
    assert [p["done"] for p in cold] == sorted({p["done"] for p in cold})  # strictly increasing
    # Only the chat template's system prompt may be cached from earlier tests.
    assert all(p["total"] == total and p["cached"] == cold[0]["cached"] < 64 for p in cold)
    warm = progress(list(client.chat.completions.create(**request, stream_options=asked)))
    cached = (total - 1) // 16 * 16
    assert warm == [{"done": total, "total": total, "cached": cached}]  # one chunk after the cached blocks
    assert progress(list(client.chat.completions.create(**request))) == []
    assert progress(list(client.chat.completions.create(**request, stream_options={"include_usage": True}))) == []


def test_completion_progress_chunks_on_the_wire(base_url):
    body = {"model": MODEL, "prompt": "The progress of a prefill", "max_tokens": 2, "temperature": 0, "stream": True,
            "stream_options": {"include_progress": True, "include_usage": True}}
    with httpx.stream("POST", f"{base_url}/v1/completions", json=body, timeout=120) as response:
        events = [json.loads(line[6:]) for line in response.iter_lines() if line.startswith("data: {")]
    progress = [e for e in events if "prefill" in e]
    assert len(progress) >= 1 and events[:len(progress)] == progress
    assert all(set(e) == {"id", "object", "created", "model", "choices", "usage", "prefill"} for e in progress)
    assert all(e["object"] == "text_completion" and e["choices"] == [] and e["usage"] is None for e in progress)
    assert progress[-1]["prefill"]["done"] == progress[-1]["prefill"]["total"] == events[-1]["usage"]["prompt_tokens"]


def test_n_choices_and_seeded_sampling(client):
    request = dict(model=MODEL, messages=[{"role": "user", "content": "Say something."}],
                   max_tokens=8, temperature=1.0, seed=7, n=2)
    # Warm the prefix cache first: in bf16 the prompt's last token computed after cached context
    # rounds differently from a whole prefill, which may flip a draw at temperature 1.
    client.chat.completions.create(**request)
    first = client.chat.completions.create(**request)
    second = client.chat.completions.create(**request)
    assert [c.index for c in first.choices] == [0, 1]
    assert [c.message.content for c in first.choices] == [c.message.content for c in second.choices]


def test_completions_non_streaming_and_streaming_with_logprobs(client):
    request = dict(model=MODEL, prompt="The capital of France is", max_tokens=6, temperature=0)
    client.completions.create(**request)
    whole = client.completions.create(**request, logprobs=2)
    lp = whole.choices[0].logprobs
    assert len(lp.tokens) == whole.usage.completion_tokens == len(lp.token_logprobs)
    assert all(len(top) == 2 for top in lp.top_logprobs) and all(v <= 0 for v in lp.token_logprobs)
    parts = [c.choices[0].text for c in client.completions.create(**request, stream=True)
             if c.choices]
    assert "".join(parts) == whole.choices[0].text


def test_chinese_streams_intact(client):
    prompt = "北京是中国的首都。上海是中国最大的城市。北京是中国的首都。上海是"
    request = dict(model=MODEL, prompt=prompt, max_tokens=24, temperature=0)
    client.completions.create(**request)
    whole = client.completions.create(**request).choices[0].text
    parts = [c.choices[0].text for c in client.completions.create(**request, stream=True)
             if c.choices]
    assert "".join(parts) == whole
    assert re.search(r"[\u4e00-\u9fff]", whole) and "\ufffd" not in whole
    assert all("\ufffd" not in part for part in parts)


def test_client_disconnect_mid_stream_frees_blocks(base_url):
    body = {"model": MODEL, "prompt": "Once upon a time", "max_tokens": 1000, "ignore_eos": True,
            "stream": True}
    with httpx.stream("POST", f"{base_url}/v1/completions", json=body, timeout=60) as response:
        for i, _ in enumerate(response.iter_lines()):
            if i == 6:  # still reading: the request is alive and holds blocks
                assert metric(base_url, "kv_cache_blocks_used") > 0
                assert metric(base_url, "num_requests_running") == 1
                break  # leaving iter_lines closes the connection mid-stream
    deadline = time.monotonic() + 10
    while metric(base_url, "kv_cache_blocks_used") > 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert metric(base_url, "kv_cache_blocks_used") == 0
    assert metric(base_url, "num_requests_running") == 0


@pytest.mark.parametrize("body, status, code", [
    ({"model": "no-such-model", "messages": [{"role": "user", "content": "x"}]}, 404, "model_not_found"),
    ({"model": MODEL, "messages": [{"role": "user", "content": "x"}], "temperature": 7}, 400, None),
    ({"model": MODEL, "messages": [{"role": "user", "content": "x"}], "max_tokens": 0}, 400, None),
    ({"model": MODEL, "messages": []}, 400, None),
    ({"model": MODEL, "messages": [{"role": "wizard", "content": "x"}]}, 400, None),
    ({"model": MODEL, "messages": [{"role": "user", "content": "x"}], "max_tokens": 5000},
     400, "context_length_exceeded"),
    ({"model": MODEL, "messages": [{"role": "user", "content": "word " * 3000}]},
     400, "context_length_exceeded"),
    # Over --max-prompt-tokens (8192 by default): a 413 before any other work, whatever the context.
    ({"model": MODEL, "messages": [{"role": "user", "content": "word " * 9000}]}, 413, "prompt_too_long"),
])
def test_bad_chat_requests_get_openai_errors(base_url, body, status, code):
    response = httpx.post(f"{base_url}/v1/chat/completions", json=body)
    assert response.status_code == status
    error = response.json()["error"]
    assert error["message"] and error["type"] == "invalid_request_error" and error["code"] == code


@pytest.mark.parametrize("extra", [
    {"functions": [{"name": "f", "parameters": {}}]}, {"function_call": "auto"}, {"audio": {"voice": "x"}},
    {"modalities": ["text", "audio"]}, {"prediction": {"type": "content", "content": "x"}},
    {"stream_options": {"include_usage": True, "include_obfuscation": True}}, {"suffix": "x"},
])
def test_unsupported_parameters_are_refused_with_a_400_naming_them(base_url, extra):
    body = {"model": MODEL, "messages": [{"role": "user", "content": "x"}], "max_tokens": 2, **extra}
    response = httpx.post(f"{base_url}/v1/chat/completions", json=body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    name = next(iter(extra)) if "stream_options" not in extra else "stream_options.include_obfuscation"
    assert error["code"] == "unsupported_parameter" and error["param"] == name and name in error["message"]


def test_unknown_keys_inside_messages_are_ignored(client):
    # What SDKs send back for an earlier assistant reply (model_dump of a ChatCompletionMessage).
    echoed = {"role": "assistant", "content": "Hi!", "refusal": None, "annotations": [], "audio": None}
    reply = client.chat.completions.create(model=MODEL, max_tokens=2, messages=[
        {"role": "user", "content": "Hi"}, echoed, {"role": "user", "content": "Bye"}])
    assert reply.usage.completion_tokens >= 1


def test_logit_bias_forces_and_bans_tokens(base_url, client):
    request = dict(model=MODEL, prompt="The sky is", max_tokens=3, temperature=0)
    (blue,) = httpx.post(f"{base_url}/tokenize", json={"prompt": " blue"}).json()["tokens"]
    forced = client.completions.create(**request, logit_bias={str(blue): 100})
    assert forced.choices[0].text == " blue blue blue"
    plain = client.completions.create(**request).choices[0].text
    first = httpx.post(f"{base_url}/tokenize", json={"prompt": plain}).json()["tokens"][0]
    banned = client.completions.create(**request, logit_bias={str(first): -100}).choices[0].text
    assert httpx.post(f"{base_url}/tokenize", json={"prompt": banned}).json()["tokens"][0] != first
    with pytest.raises(openai.BadRequestError, match="logit_bias"):
        client.completions.create(**request, logit_bias={"blue": 5})
    with pytest.raises(openai.BadRequestError, match="logit_bias"):
        client.completions.create(**request, logit_bias={"99999999": 5})  # beyond the vocabulary


def test_sdk_raises_typed_errors(client):
    with pytest.raises(openai.NotFoundError):
        client.chat.completions.create(model="gpt-9", messages=[{"role": "user", "content": "x"}])
    with pytest.raises(openai.BadRequestError, match="top_p"):
        client.completions.create(model=MODEL, prompt="x", top_p=0)


def test_malformed_json_and_unknown_routes(base_url):
    response = httpx.post(f"{base_url}/v1/chat/completions", content=b"{not json",
                          headers={"content-type": "application/json"})
    assert response.status_code == 400 and "not valid JSON" in response.json()["error"]["message"]
    assert httpx.get(f"{base_url}/v1/nothing").status_code == 404
    assert httpx.get(f"{base_url}/v1/chat/completions").status_code == 405


def test_server_keeps_serving_after_errors(client):
    for _ in range(3):
        with pytest.raises(openai.BadRequestError):
            client.chat.completions.create(model=MODEL, messages=[], max_tokens=2)
    reply = client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "Hi"}],
                                           max_tokens=2)
    assert reply.usage.completion_tokens >= 1


def test_metrics_page_has_queue_cache_throughput_and_ttft(base_url, client):
    before = metric(base_url, "time_to_first_token_seconds_count")
    client.completions.create(model=MODEL, prompt="Hello", max_tokens=2)
    text = httpx.get(f"{base_url}/metrics").text
    for name in ("num_requests_running", "num_requests_waiting", "kv_cache_usage_ratio",
                 "kv_cache_blocks_total", "prefix_cache_hit_rate", "generation_tokens_per_second",
                 "generation_tokens_total"):
        assert f"llm_backend_{name}{{" in text
    assert 'llm_backend_time_to_first_token_seconds_bucket{model_name="%s",le="+Inf"}' % MODEL in text
    assert metric(base_url, "time_to_first_token_seconds_count") == before + 1
    assert metric(base_url, "kv_cache_blocks_total") > 0


def test_metrics_count_the_prompt_lookup_drafts_a_greedy_copy_makes(base_url, client):
    """The server drafts 2 tokens by default: a greedy reply that copies its prompt verifies drafts, and no more
    of them stand than were verified, nor than tokens were generated."""
    names = ("spec_decode_num_draft_tokens_total", "spec_decode_num_accepted_tokens_total", "generation_tokens_total")
    before = {name: metric(base_url, name) for name in names}
    reports = ("Weather in Paris: 12°C, light rain, wind 14 km/h NW, humidity 81%. Weather in Lyon: 15°C, sunny, "
               "wind 6 km/h S, humidity 55%.")
    client.chat.completions.create(model=MODEL, max_tokens=48, temperature=0, messages=[
        {"role": "user", "content": f"{reports}\nRepeat the two reports exactly, then say which city is warmer."}])
    drafted, accepted, generated = (metric(base_url, name) - before[name] for name in names)
    assert drafted > 0
    assert 0 <= accepted <= drafted and accepted < generated
