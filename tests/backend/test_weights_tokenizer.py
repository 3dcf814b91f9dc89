"""The tokenizer built from GGUF metadata: round trips, parity with transformers, chat templates, xgrammar."""
from __future__ import annotations

import json

import pytest
import xgrammar
from transformers import AutoTokenizer

from llm_backend.weights import load_checkpoint
from llm_backend.weights.derived_cache import derived_dir
from llm_backend.weights.tokenizer import _save_atomically

SMOLLM = "smollm2-135m-instruct"
QWEN_05B = "qwen2.5-coder-0.5b-instruct"
TEXTS = [
    "Hello, world!",
    "明天北京会下雨吗？请告诉我气温。",
    "Will it be between 29 and 30 °C in Zürich tomorrow? 🌧️",
    "  leading spaces\tand\ttabs\nnew lines  ",
    "<|im_start|>user\nhi<|im_end|>",
]
WEATHER_TOOL = {"type": "function", "function": {
    "name": "get_forecast", "description": "Daily forecast for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                   "required": ["city"]}}}
TOOL_CONVERSATION = [
    {"role": "system", "content": "You are a weather assistant."},
    {"role": "user", "content": "Forecast for 上海, 3 days?"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "get_forecast", "arguments": '{"city": "Shanghai", "days": 3}'}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": '{"max_c": [30, 29, 31]}'},
]


@pytest.fixture(scope="module")
def smollm():
    return load_checkpoint(SMOLLM)


@pytest.mark.parametrize("text", TEXTS)
def test_round_trip(smollm, text):
    tokenizer = smollm.tokenizer
    assert tokenizer.decode(tokenizer.encode(text)) == text


def test_special_tokens_stay_whole(smollm):
    tokenizer = smollm.tokenizer
    ids = tokenizer.encode("<|im_start|>user\nhi<|im_end|>")
    assert ids[0] == 1 and ids[-1] == 2  # <|im_start|>, <|im_end|>
    assert 2 in tokenizer.eos_token_ids


def test_matches_transformers_own_gguf_tokenizer(smollm):
    reference = AutoTokenizer.from_pretrained(smollm.path.parent, gguf_file=smollm.path.name)
    for text in TEXTS:
        assert smollm.tokenizer.encode(text) == reference.encode(text), text


def test_plain_chat_uses_the_models_own_template(smollm):
    prompt = smollm.tokenizer.apply_chat_template([{"role": "user", "content": "Hi"}])
    assert prompt == ("<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face"
                      "<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n")


def assert_renders_tool_conversation(tokenizer):
    prompt = tokenizer.apply_chat_template(TOOL_CONVERSATION, tools=[WEATHER_TOOL])
    assert prompt.startswith("<|im_start|>system\nYou are a weather assistant.")
    assert json.dumps(WEATHER_TOOL, separators=(",", ":")) in prompt  # signatures without blanks: fewer tokens
    # string arguments from an OpenAI client become a JSON object, not a quoted string
    assert '<tool_call>\n{"name": "get_forecast", "arguments": {"city": "Shanghai", "days": 3}}\n</tool_call>' in prompt
    assert '<tool_response>\n{"max_c": [30, 29, 31]}\n</tool_response>' in prompt
    assert prompt.endswith("<|im_start|>assistant\n")
    assert tokenizer.decode(tokenizer.encode(prompt, add_special_tokens=False)) == prompt


def test_smollm_renders_tools_with_chatml_fallback(smollm):
    assert "tools" not in smollm.tokenizer.chat_template
    assert_renders_tool_conversation(smollm.tokenizer)


def test_content_parts_are_joined(smollm):
    parts = [{"type": "text", "text": "Hello "}, {"type": "text", "text": "there"}]
    prompt = smollm.tokenizer.apply_chat_template([{"role": "user", "content": parts}])
    assert "<|im_start|>user\nHello there<|im_end|>" in prompt


def assert_xgrammar_accepts(checkpoint):
    tokenizer = checkpoint.tokenizer
    info = xgrammar.TokenizerInfo.from_huggingface(tokenizer.hf_tokenizer, vocab_size=checkpoint.config.vocab_size)
    assert info.vocab_size == checkpoint.config.vocab_size
    compiled = xgrammar.GrammarCompiler(info).compile_json_schema(json.dumps(WEATHER_TOOL["function"]["parameters"]))
    matcher = xgrammar.GrammarMatcher(compiled)
    for token in tokenizer.encode('{"city": "Paris"}', add_special_tokens=False):
        assert matcher.accept_token(token)
    assert not matcher.accept_token(tokenizer.encode("]", add_special_tokens=False)[0])


def test_xgrammar_tokenizer_info_for_smollm(smollm):
    assert_xgrammar_accepts(smollm)


@pytest.mark.slow
def test_qwen_tokenizer_tools_and_xgrammar():
    qwen = load_checkpoint(QWEN_05B)
    assert "tools" in qwen.tokenizer.chat_template  # Qwen2.5's own template renders tools
    assert_renders_tool_conversation(qwen.tokenizer)
    assert set(qwen.tokenizer.eos_token_ids) >= {151643, 151645}
    for text in TEXTS:
        assert qwen.tokenizer.decode(qwen.tokenizer.encode(text)) == text
    assert_xgrammar_accepts(qwen)


def test_a_conversion_that_finishes_second_keeps_the_first_and_leaves_nothing(smollm, tmp_path):
    """Two processes converting one GGUF at once each stage privately; the later rename loses, quietly."""
    converted = AutoTokenizer.from_pretrained(derived_dir(smollm.path) / "tokenizer")
    cache = tmp_path / "tokenizer"
    _save_atomically(converted, cache)
    first = (cache / "tokenizer.json").read_bytes()
    _save_atomically(converted, cache)
    assert (cache / "tokenizer.json").read_bytes() == first
    assert [path.name for path in tmp_path.iterdir()] == ["tokenizer"]
