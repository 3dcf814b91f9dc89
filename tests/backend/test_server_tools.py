"""Tool calling and structured outputs over HTTP on SmolLM2.

SmolLM2-135M's answers are nonsense, but the grammar guarantees that whatever it writes
under a constraint parses and validates: that is what these tests assert.
"""
from __future__ import annotations

import json

import httpx
import jsonschema
import openai
import pytest

# The same module-scoped fixtures: this module gets its own server process.
from test_server import MODEL, base_url, client  # noqa: F401

TRIP = {"type": "function", "function": {
    "name": "plan_trip", "description": "Plan a trip with stops and a weather preference.",
    "parameters": {
        "type": "object",
        "properties": {
            "traveller": {"type": "object", "properties": {
                "name": {"type": "string", "maxLength": 12},
                "age": {"type": "integer", "minimum": 0, "maximum": 120}},
                "required": ["name", "age"], "additionalProperties": False},
            "stops": {"type": "array", "minItems": 1, "maxItems": 3, "items": {
                "type": "object", "properties": {
                    "city": {"type": "string", "maxLength": 12},
                    "nights": {"type": "integer", "minimum": 1, "maximum": 9}},
                "required": ["city", "nights"], "additionalProperties": False}},
            "weather": {"type": "string", "enum": ["sunny", "snowy", "any"]},
        },
        "required": ["traveller", "stops", "weather"], "additionalProperties": False}}}
FORECAST = {"type": "function", "function": {
    "name": "get_forecast", "description": "Daily weather forecast for a city.",
    "parameters": {"type": "object", "properties": {
        "city": {"type": "string", "maxLength": 20},
        "days": {"type": "integer", "minimum": 1, "maximum": 16}},
        "required": ["city", "days"], "additionalProperties": False}}}
CURRENT = {"type": "function", "function": {
    "name": "get_current_weather", "description": "Current weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "maxLength": 20}},
                   "required": ["city"], "additionalProperties": False}}}
TOOLS = [FORECAST, CURRENT, TRIP]
SCHEMAS = {tool["function"]["name"]: tool["function"]["parameters"] for tool in TOOLS}
ASK = [{"role": "user", "content": "What will the weather be in Paris for the next 3 days?"}]


def assert_valid_calls(calls) -> None:
    assert calls, "expected at least one tool call"
    for call in calls:
        assert call.type == "function" and call.id.startswith("call_")
        jsonschema.validate(json.loads(call.function.arguments), SCHEMAS[call.function.name])
    assert len({call.id for call in calls}) == len(calls)


def test_tool_choice_none_answers_in_text(client):
    reply = client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS,
                                           tool_choice="none", max_tokens=24, temperature=0)
    choice = reply.choices[0]
    assert choice.message.tool_calls is None and choice.message.content
    assert choice.finish_reason in ("stop", "length")


@pytest.mark.parametrize("seed", [0, 1])
def test_tool_choice_auto_gives_text_or_valid_calls(client, seed):
    reply = client.chat.completions.create(model=MODEL, messages=ASK, tools=TOOLS, tool_choice="auto",
                                           max_tokens=80, temperature=1.0, seed=seed)
    choice = reply.choices[0]
    if choice.message.tool_calls:
        assert_valid_calls(choice.message.tool_calls)
        assert choice.finish_reason == "tool_calls"
    else:
        assert "<tool_call>" not in (choice.message.content or "") or choice.finish_reason == "length"


@pytest.mark.parametrize("seed", [0, 1])
def test_tool_choice_required_always_calls_valid_tools(client, seed):
    # One call (parallel_tool_calls=False) of a small bounded schema must end within max_tokens.
    reply = client.chat.completions.create(model=MODEL, messages=ASK, tools=[FORECAST, CURRENT],
                                           tool_choice="required", parallel_tool_calls=False,
                                           max_tokens=120, temperature=1.0, seed=seed)
    choice = reply.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    assert len(choice.message.tool_calls) == 1
    assert_valid_calls(choice.message.tool_calls)


def test_named_tool_choice_calls_exactly_that_tool(client):
    reply = client.chat.completions.create(
        model=MODEL, messages=ASK, tools=TOOLS, max_tokens=80, temperature=0,
        tool_choice={"type": "function", "function": {"name": "get_current_weather"}})
    calls = reply.choices[0].message.tool_calls
    assert [c.function.name for c in calls] == ["get_current_weather"]
    assert_valid_calls(calls)


@pytest.mark.parametrize("seed", [3, 4])
def test_nested_schema_with_enums_objects_and_arrays_validates(client, seed):
    reply = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "Plan a two-stop trip for Ann, 30."}],
        tools=TOOLS, tool_choice={"type": "function", "function": {"name": "plan_trip"}},
        max_tokens=200, temperature=0.8, seed=seed)
    assert reply.choices[0].finish_reason == "tool_calls"
    assert_valid_calls(reply.choices[0].message.tool_calls)


def test_streamed_tool_calls_accumulate_like_the_non_streamed_ones(client):
    request = dict(model=MODEL, messages=ASK, tools=[FORECAST, CURRENT], tool_choice="required",
                   max_tokens=120, temperature=0, parallel_tool_calls=False)
    client.chat.completions.create(**request)  # warm the prefix cache so both runs see it
    whole = client.chat.completions.create(**request).choices[0]
    with client.chat.completions.stream(**request) as stream:
        fragments = 0
        for event in stream:
            fragments += event.type == "tool_calls.function.arguments.delta"
        final = stream.get_final_completion().choices[0]
    assert fragments > 1, "arguments should arrive as several fragments"
    assert final.finish_reason == "tool_calls"
    assert_valid_calls(final.message.tool_calls)
    assert [(c.function.name, c.function.arguments) for c in final.message.tool_calls] == [
        (c.function.name, c.function.arguments) for c in whole.message.tool_calls]


def test_call_cut_off_by_max_tokens_is_content_not_a_tool_call(client):
    # plan_trip cannot be written in 30 tokens: the forced call is cut off by max_tokens.
    request = dict(model=MODEL, messages=ASK, tools=TOOLS, max_tokens=30, temperature=0,
                   tool_choice={"type": "function", "function": {"name": "plan_trip"}})
    client.chat.completions.create(**request)  # warm the prefix cache so both runs see it
    whole = client.chat.completions.create(**request).choices[0]
    assert whole.finish_reason == "length" and whole.message.tool_calls is None
    partial = whole.message.content  # the partial call, as the model wrote it
    assert '"name": "plan_trip"' in partial and '"arguments": {' in partial
    # The SDK's stream accumulation refuses a reply cut off by length; its snapshot is the reply.
    with pytest.raises(openai.LengthFinishReasonError) as cut_off:
        with client.chat.completions.stream(**request) as stream:
            stream.get_final_completion()
    final = cut_off.value.completion.choices[0]
    assert final.finish_reason == "length"
    assert final.message.content == partial
    # The stream had sent the call's start and first fragments before it was cut off; the
    # finish_reason ("length", never "tool_calls") tells the client to drop that call.
    [cut] = final.message.tool_calls
    assert cut.function.name == "plan_trip" and cut.function.arguments.startswith("{")
    assert cut.function.arguments in partial


def test_conversation_with_tool_results_continues(client, base_url):
    messages = ASK + [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_forecast", "arguments": '{"city": "Paris", "days": 3}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": '{"max_c": [21, 23, 19]}'},
    ]
    reply = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS,
                                           tool_choice="none", max_tokens=16, temperature=0)
    assert reply.choices[0].message.content
    with_result = httpx.post(f"{base_url}/tokenize", json={"messages": messages}).json()["count"]
    without = httpx.post(f"{base_url}/tokenize", json={"messages": messages[:2]}).json()["count"]
    assert with_result > without


def test_response_format_json_schema_is_valid_json(client):
    schema = {"type": "object", "properties": {
        "city": {"type": "string", "maxLength": 16},
        "temperature_c": {"type": "integer", "minimum": -50, "maximum": 50},
        "sky": {"type": "string", "enum": ["clear", "cloudy", "rain"]}},
        "required": ["city", "temperature_c", "sky"], "additionalProperties": False}
    reply = client.chat.completions.create(
        model=MODEL, messages=ASK, max_tokens=80, temperature=0,
        response_format={"type": "json_schema",
                         "json_schema": {"name": "weather", "schema": schema, "strict": True}})
    assert reply.choices[0].finish_reason == "stop"
    jsonschema.validate(json.loads(reply.choices[0].message.content), schema)


def test_response_format_json_object_starts_an_object(client):
    reply = client.chat.completions.create(model=MODEL, messages=ASK, max_tokens=40, temperature=0,
                                           response_format={"type": "json_object"})
    content = reply.choices[0].message.content
    assert content.lstrip().startswith("{")
    if reply.choices[0].finish_reason == "stop":
        assert isinstance(json.loads(content), dict)


@pytest.mark.parametrize("tools, tool_choice, fragment", [
    ([{"type": "function"}], "auto", "tools[0].function"),
    ([{"type": "function", "function": {"name": "bad name!"}}], "auto", "tools[0].function.name"),
    ([{"type": "function", "function": {"name": "f", "parameters": {"type": "strin"}}}], "auto",
     "tools[0].function.parameters"),
    ([FORECAST, FORECAST], "auto", "duplicate"),
    ([FORECAST], {"type": "function", "function": {"name": "nope"}}, "nope"),
    ("not a list", "auto", "tools"),
])
def test_malformed_tools_get_400_with_a_clear_message(base_url, tools, tool_choice, fragment):
    response = httpx.post(f"{base_url}/v1/chat/completions", json={
        "model": MODEL, "messages": ASK, "tools": tools, "tool_choice": tool_choice})
    assert response.status_code == 400
    assert fragment in response.json()["error"]["message"]


def test_bad_response_format_gets_400(base_url):
    response = httpx.post(f"{base_url}/v1/chat/completions", json={
        "model": MODEL, "messages": ASK, "response_format": {"type": "json_schema", "json_schema": {}}})
    assert response.status_code == 400 and "schema" in response.json()["error"]["message"]
