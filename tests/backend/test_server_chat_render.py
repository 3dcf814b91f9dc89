"""OpenAI messages rendered through the model's chat template (SmolLM2's, made tool-aware)."""
from __future__ import annotations

import pytest

from llm_backend.server.chat_render import render_chat
from llm_backend.server.errors import OpenAIError
from llm_backend.server.protocol import ChatMessage

FORECAST = {"type": "function", "function": {"name": "get_forecast", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}


def messages(*raw: dict) -> list[ChatMessage]:
    return [ChatMessage.model_validate(m) for m in raw]


@pytest.fixture(scope="module")
def tokenizer(smollm_checkpoint):
    return smollm_checkpoint.tokenizer


def test_tool_call_and_result_render_back_into_the_prompt(tokenizer):
    prompt = render_chat(tokenizer, messages(
        {"role": "user", "content": "Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "call_1", "type": "function",
            "function": {"name": "get_forecast", "arguments": '{"city": "Paris"}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": '{"max_c": 21}'},
    ), [FORECAST])
    assert '"name": "get_forecast"' in prompt and "<tools>" in prompt
    assert '<tool_call>\n{"name": "get_forecast", "arguments": {"city": "Paris"}}\n</tool_call>' in prompt
    assert '<tool_response>\n{"max_c": 21}\n</tool_response>' in prompt
    assert prompt.endswith("<|im_start|>assistant\n")


def test_without_tools_the_prompt_does_not_mention_them(tokenizer):
    prompt = render_chat(tokenizer, messages({"role": "user", "content": "Hi"}), None)
    assert "<tools>" not in prompt and "Hi" in prompt


def test_developer_role_and_text_parts_are_understood(tokenizer):
    prompt = render_chat(tokenizer, messages(
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "Hello "}, {"type": "text", "text": "there"}]},
    ), None)
    assert "<|im_start|>system\nBe brief." in prompt and "Hello there" in prompt


def test_non_text_content_is_a_400(tokenizer):
    with pytest.raises(OpenAIError) as error:
        render_chat(tokenizer, messages({"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "data:,"}}]}), None)
    assert error.value.status == 400 and "image_url" in error.value.message
