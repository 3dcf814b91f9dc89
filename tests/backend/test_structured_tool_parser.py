"""The tool-call parser: streamed deltas add up to the same calls as a one-shot parse."""
from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from llm_backend.structured.tool_parser import ToolCallParser, parse_tool_calls

TWO_CALLS = (
    '<tool_call>\n{"name": "get_forecast", "arguments": {"city": "北京", "days": 3}}\n</tool_call>\n'
    '<tool_call>\n{"name": "get_current_weather", "arguments": {"city": "Paris {x}"}}\n</tool_call>'
)


def _stream(text: str, cuts: list[int]) -> tuple[str, dict[int, dict]]:
    parser = ToolCallParser()
    bounds = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    deltas = []
    for a, b in zip(bounds, bounds[1:]):
        deltas += parser.feed(text[a:b])
    deltas += parser.finish()
    content = "".join(d.content or "" for d in deltas)
    calls: dict[int, dict] = {}
    for d in deltas:
        if d.index is None:
            continue
        call = calls.setdefault(d.index, {"id": None, "name": "", "arguments": ""})
        call["id"] = call["id"] or d.call_id
        call["name"] += d.name or ""
        call["arguments"] += d.arguments or ""
    return content, calls


def test_one_shot_parse_gives_names_and_json_arguments():
    content, calls = parse_tool_calls(TWO_CALLS)
    assert content is None
    assert [c.name for c in calls] == ["get_forecast", "get_current_weather"]
    assert json.loads(calls[0].arguments) == {"city": "北京", "days": 3}
    assert json.loads(calls[1].arguments) == {"city": "Paris {x}"}
    assert calls[0].id != calls[1].id and calls[0].id.startswith("call_")


BARE_FENCED = ('```json\n{"name": "get_forecast", "arguments": {"city": "北京", "days": 3}}\n```\n'
               '{"name": "get_current_weather", "arguments": {"city": "Paris {x}"}}')


def test_bare_and_fenced_calls_are_read_like_tagged_ones():
    content, calls = parse_tool_calls(BARE_FENCED)
    assert content is None
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("get_forecast", {"city": "北京", "days": 3}), ("get_current_weather", {"city": "Paris {x}"})]


def test_json_that_is_not_a_call_stays_text():
    text = 'Result: {"name": "Bob", "age": 3} and {"x": 1}'
    assert parse_tool_calls(text) == (text, [])


def test_text_without_calls_is_content_untouched():
    text = "It is 20 °C in Paris. Use <b>tags</b> freely < >"
    assert parse_tool_calls(text) == (text, [])


def test_text_before_a_call_is_kept_as_content():
    content, calls = parse_tool_calls("Let me check.\n" + TWO_CALLS)
    assert content == "Let me check." and len(calls) == 2


def test_unreadable_block_is_returned_as_text():
    text = "<tool_call>not json</tool_call>"
    assert parse_tool_calls(text) == (text, [])


def test_pretty_printed_bare_calls_are_read():
    text = '```json\n{\n  "name": "f",\n  "arguments": {\n    "city": "Rome"\n  }\n}\n```'
    content, calls = parse_tool_calls(text)
    assert content is None and calls[0].name == "f"
    assert json.loads(calls[0].arguments) == {"city": "Rome"}


def test_only_the_grammar_openers_start_a_bare_call():
    # Three spaces is no opener the grammar constrains, so it is not read as a call either.
    text = '{\n   "name": "f", "arguments": {}}'
    assert parse_tool_calls(text) == (text, [])


def test_call_cut_short_is_content_not_a_call():
    text = 'Sure.\n```json\n{"name": "f", "arguments": {"city": "Par'
    parser = ToolCallParser()
    deltas = parser.feed(text) + parser.finish()
    assert parser.calls == [] and parser.cut_call.name == "f"
    assert "".join(d.content or "" for d in deltas) == text


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(TWO_CALLS)), max_size=20),
       st.integers(min_value=1, max_value=len(TWO_CALLS) - 1))
def test_a_cut_call_streams_the_same_content_and_complete_calls(cuts, length):
    text = "Sure. " + TWO_CALLS[:length]
    content, calls = _stream(text, cuts)
    parser = ToolCallParser()
    parser.feed(text)
    parser.finish()
    expected_content, expected = parse_tool_calls(text)
    assert content == (expected_content or "")
    complete = [(c.name, c.arguments) for c in expected]
    streamed = [(c["name"], c["arguments"]) for c in calls.values()]
    if parser.cut_call is None:
        assert streamed == complete
    else:  # the stream also sent the cut call's start and some fragments, the last call
        assert streamed[:-1] == complete and parser.cut_call.arguments.startswith(streamed[-1][1])
        assert content.endswith(text[text.rfind("<tool_call>"):])  # its raw text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(TWO_CALLS) + 20), max_size=40),
       st.sampled_from(["", "Sure. ", "x"]), st.sampled_from([TWO_CALLS, BARE_FENCED]))
def test_any_chunking_streams_the_same_calls(cuts, prefix, calls_text):
    text = prefix + calls_text
    content, calls = _stream(text, cuts)
    expected_content, expected = parse_tool_calls(text)
    assert content == (expected_content or "")
    assert [(c["name"], c["arguments"]) for c in calls.values()] == [
        (c.name, c.arguments) for c in expected]
