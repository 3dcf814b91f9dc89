"""Grammars for tools and response_format, driven token by token with the real SmolLM2 tokenizer."""
from __future__ import annotations

import copy
import json
import re
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch
import xgrammar

from llm_backend.structured.constraint import GrammarConstraint
from llm_backend.structured.grammars import (MAX_ARGUMENT_CHARS, MAX_ARGUMENT_ITEMS, GrammarCache,
                                             bounded)
from llm_backend.structured.tool_parser import parse_tool_calls
from llm_backend.structured.tools import ToolChoice, ToolSpecError, resolve_tool_choice, validate_tools

FORECAST = {"type": "function", "function": {
    "name": "get_forecast", "description": "Daily forecast",
    "parameters": {"type": "object", "properties": {
        "city": {"type": "string"}, "days": {"type": "integer", "minimum": 1, "maximum": 16},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
        "required": ["city", "days"]}}}
CURRENT = {"type": "function", "function": {
    "name": "get_current_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
TOOLS = validate_tools([FORECAST, CURRENT])


def call(name: str, arguments: str) -> str:
    return f'<tool_call>\n{{"name": "{name}", "arguments": {arguments}}}\n</tool_call>'


GOOD = call("get_forecast", '{"city": "Paris", "days": 3}')
PRETTY_CALL = ('{\n  "name": "get_forecast",\n  "arguments": {\n    "city": "X",\n'
               '    "days": 2\n  }\n}')


@pytest.fixture(scope="module")
def tokenizer(smollm_checkpoint):
    return smollm_checkpoint.tokenizer


@pytest.fixture(scope="module")
def grammars(smollm_checkpoint):
    tok = smollm_checkpoint.tokenizer
    return GrammarCache(tok.hf_tokenizer, smollm_checkpoint.config.vocab_size, list(tok.eos_token_ids))


def accepts(compiled, tokenizer, text: str, then_eos: bool = True) -> bool:
    """Whether the grammar takes `text` (as the model's tokens) and then may stop."""
    constraint = GrammarConstraint(compiled)
    for token in tokenizer.encode(text, add_special_tokens=False):
        if not constraint.accept_token(token):
            return False
    return not then_eos or constraint.accept_token(tokenizer.eos_token_ids[0])


@pytest.mark.parametrize("choice, text, expected", [
    ("auto", "Plain text answer.", True),
    ("auto", "Let me look. " + GOOD, True),
    ("auto", GOOD + "\n" + call("get_current_weather", '{"city": "Rome"}'), True),
    ("auto", call("get_forecast", '{"city": "Paris", "days": 99}'), False),  # maximum
    ("auto", call("get_forecast", '{"city": "Paris"}'), False),  # required field
    ("auto", call("get_forecast", '{"city": "Paris", "days": 2, "wind": 1}'), False),  # extra key
    ("auto", call("get_forecast", '{"city": "Paris", "days": 2, "unit": "kelvin"}'), False),  # enum
    ("auto", call("delete_everything", "{}"), False),  # unknown tool
    ("auto", '{"name": "get_current_weather", "arguments": {"city": "Rome"}}', True),  # bare call
    ("auto", '```json\n{"name": "get_forecast", "arguments": {"city": "X", "days": 2}}\n```', True),
    ("auto", '{"name": "get_forecast", "arguments": {"city": "X"}}', False),  # bare, invalid
    ("auto", PRETTY_CALL, True),
    ("auto", "```json\n" + PRETTY_CALL.replace("\n  ", "\n    ") + "\n```", True),  # 4-space indent
    ("auto", '{\n  "name": "get_forecast",\n  "arguments": {"city": "X"}\n}', False),  # pretty, invalid
    ("auto", 'Here: {"city": "Rome"}', True),  # JSON that is not a call stays text
    ("auto", 'Here: {\n  "city": "Rome"\n}', True),
    ("auto", 'Here: {"name": "Bob", "age": 3}', False),  # opens like a call, so it must be one
    ("required", "Plain text answer.", False),
    ("required", GOOD, True),
    ("required", GOOD + "\n" + call("get_current_weather", '{"city": "Rome"}'), True),
    ("required", GOOD + " and some chatter", False),
    ("get_current_weather", call("get_current_weather", '{"city": "Rome"}'), True),
    ("get_current_weather", GOOD, False),
    ("get_current_weather", '{"name": "get_current_weather", "arguments": {"city": "Rome"}}', True),
    ("get_current_weather", '{\n  "name": "get_current_weather",\n  "arguments": {"city": "Rome"}\n}',
     True),
    ("get_current_weather", call("get_current_weather", '{"city": "Rome"}') * 2, False),
])
def test_tool_choice_grammars(grammars, tokenizer, choice, text, expected):
    tool_choice = choice if choice in ("auto", "required") else {
        "type": "function", "function": {"name": choice}}
    compiled = grammars.for_tools(TOOLS, resolve_tool_choice(tool_choice, TOOLS), True)
    assert accepts(compiled, tokenizer, text) is expected


def test_parallel_calls_can_be_switched_off(grammars, tokenizer):
    compiled = grammars.for_tools(TOOLS, ToolChoice("required"), parallel_tool_calls=False)
    assert accepts(compiled, tokenizer, GOOD)
    assert not accepts(compiled, tokenizer, GOOD + "\n" + GOOD)


def test_none_means_no_grammar(grammars):
    assert grammars.for_tools(TOOLS, ToolChoice("none"), True) is None


def test_whitespace_runs_are_capped(grammars, tokenizer):
    """Bare calls may be spaced as the model likes, up to a cap (a model must not loop on whitespace)."""
    compiled = grammars.for_tools(TOOLS, ToolChoice("named", "get_current_weather"), True)
    bare = '{"name": "get_current_weather", "arguments": %s}'
    assert accepts(compiled, tokenizer, bare % '{ "city": "Rome" }')
    assert not accepts(compiled, tokenizer, bare % ('{' + " " * 40 + '"city": "Rome"}'), then_eos=False)


def test_tagged_arguments_have_fixed_separators_so_they_jump_forward(grammars, tokenizer):
    compiled = grammars.for_tools(TOOLS, ToolChoice("named", "get_forecast"), True)
    assert not accepts(compiled, tokenizer, call("get_forecast", '{ "city": "Rome" }'), then_eos=False)
    constraint = grammars.constraint_factory(compiled)()
    for token in tokenizer.encode('<tool_call>\n{"name": "get_forecast", "arguments": {"city',
                                  add_special_tokens=False):
        assert constraint.accept_token(token)
    assert tokenizer.decode(constraint.forced_tokens()).startswith('":')  # no whitespace choice left


def test_runaway_arguments_are_bounded(grammars, tokenizer):
    listing = {"type": "function", "function": {"name": "find", "parameters": {
        "type": "object", "properties": {"cities": {"type": "array", "items": {"type": "string"}}},
        "required": ["cities"]}}}
    tools = validate_tools([listing])
    compiled = grammars.for_tools(tools, ToolChoice("named", "find"), True)

    def cities(names: list[str]) -> str:
        return call("find", json.dumps({"cities": names}))
    assert accepts(compiled, tokenizer, cities(["Rome"] * MAX_ARGUMENT_ITEMS))
    assert not accepts(compiled, tokenizer, cities(["Rome"] * (MAX_ARGUMENT_ITEMS + 1)), then_eos=False)
    assert accepts(compiled, tokenizer, cities(["x" * MAX_ARGUMENT_CHARS]))
    assert not accepts(compiled, tokenizer, cities(["x" * (MAX_ARGUMENT_CHARS + 1)]), then_eos=False)


def test_bounds_leave_explicit_limits_and_enums_alone():
    schema = {"type": "object", "properties": {
        "a": {"type": "array", "maxItems": 99}, "b": {"type": "string", "enum": ["x"]},
        "c": {"type": ["string", "null"]}, "d": {"anyOf": [{"type": "string", "maxLength": 3}]}}}
    result = bounded(schema)
    assert result["properties"]["a"] == {"type": "array", "maxItems": 99}
    assert result["properties"]["b"] == {"type": "string", "enum": ["x"]}
    assert result["properties"]["c"]["maxLength"] == MAX_ARGUMENT_CHARS
    assert result["properties"]["d"] == schema["properties"]["d"]
    assert "maxLength" not in schema["properties"]["c"]  # the caller's schema is not modified


def test_response_format_json_schema_and_json_object(grammars, tokenizer):
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
              "required": ["name", "age"], "additionalProperties": False}
    strict = grammars.for_response_format(
        {"type": "json_schema", "json_schema": {"name": "person", "schema": schema, "strict": True}})
    assert accepts(strict, tokenizer, '{"name": "Ann", "age": 3}')
    assert not accepts(strict, tokenizer, '{"name": "Ann"}')
    assert not accepts(strict, tokenizer, "Sure! " + '{"name": "Ann", "age": 3}', then_eos=False)
    anything = grammars.for_response_format({"type": "json_object"})
    assert accepts(anything, tokenizer, '{"x": [1, {"y": null}]}')
    assert not accepts(anything, tokenizer, "[1, 2]")
    assert grammars.for_response_format(None) is None
    assert grammars.for_response_format({"type": "text"}) is None


def test_compiled_grammars_are_cached_per_schema(grammars):
    hits, misses = grammars.hits, grammars.misses
    first = grammars.for_tools(TOOLS, ToolChoice("auto"), True)
    again = grammars.for_tools(validate_tools([FORECAST, CURRENT]), ToolChoice("auto"), True)
    assert again is first
    other = grammars.for_tools(TOOLS[:1], ToolChoice("auto"), True)
    assert other is not first
    assert grammars.hits >= hits + 1 and grammars.misses <= misses + 2


def test_requests_that_want_one_new_grammar_at_once_compile_it_once(grammars):
    """The server compiles on worker threads: concurrent requests with the same new schema share one
    compilation (a big one takes seconds) and get the same grammar, and a bad schema fails them all."""
    schema = {"type": "json_schema", "json_schema": {"name": "cities", "schema": {
        "type": "object", "properties": {"city": {"enum": [f"city {i}" for i in range(3000)]}}}}}
    misses = grammars.misses
    with ThreadPoolExecutor(4) as pool:
        compiled = list(pool.map(lambda _: grammars.for_response_format(schema), range(4)))
    assert all(c is compiled[0] for c in compiled) and grammars.misses == misses + 1
    with ThreadPoolExecutor(2) as pool:
        failures = [pool.submit(grammars.for_regex, "(unclosed") for _ in range(2)]
    for failure in failures:
        with pytest.raises(ToolSpecError, match="structured_outputs.regex"):
            failure.result()


def test_constraint_masks_and_jumps_forward(grammars, tokenizer, smollm_checkpoint):
    compiled = grammars.for_tools(TOOLS, ToolChoice("named", "get_current_weather"), True)
    constraint = GrammarConstraint(compiled)
    assert constraint.forced_tokens() == []  # tagged or bare: the model chooses
    for token in tokenizer.encode("<tool_call>", add_special_tokens=False):
        assert constraint.accept_token(token)
    forced = constraint.forced_tokens()
    assert tokenizer.decode(forced).startswith('\n{"name": "get_current_weather", "arguments":')
    vocab = smollm_checkpoint.config.vocab_size
    bitmask = xgrammar.allocate_token_bitmask(2, vocab)
    assert constraint.fill_next_token_bitmask(bitmask, 1)
    allowed = ((bitmask[1].unsqueeze(-1) >> torch.arange(32, dtype=torch.int32)) & 1).flatten()[:vocab]
    assert allowed[forced[0]] == 1 and int(allowed.sum()) < vocab
    assert (bitmask[0] == -1).all()  # other rows untouched
    for token in forced:
        assert constraint.accept_token(token)
    constraint.rollback(len(forced))
    assert constraint.forced_tokens() == forced
    assert not constraint.is_terminated()


@pytest.mark.parametrize("tools, tool_choice, fragment", [
    ([{"type": "function"}], None, "tools[0].function"),
    ([{"type": "retrieval", "function": {"name": "x"}}], None, "type 'function'"),
    ([{"type": "function", "function": {"name": "has space"}}], None, "tools[0].function.name"),
    ([FORECAST, FORECAST], None, "duplicate tool name"),
    ([{"type": "function", "function": {"name": "f", "parameters": {"type": "strin"}}}], None,
     "tools[0].function.parameters"),
    ([{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"a": {"type": "integer", "minimum": "low"}}}}}], None,
     "invalid JSON Schema"),
    ([{"type": "function", "function": {"name": "f", "parameters": "city"}}], None, "JSON Schema"),
    ([FORECAST], {"type": "function", "function": {"name": "nope"}}, "not in 'tools'"),
    ([], "required", "non-empty 'tools'"),
    ([FORECAST], "sometimes", "tool_choice must be"),
])
def test_malformed_tools_are_refused_with_the_field_named(tools, tool_choice, fragment):
    with pytest.raises(ToolSpecError, match=re.escape(fragment)):
        resolve_tool_choice(tool_choice, validate_tools(tools))


@pytest.mark.parametrize("indent", ["", " ", "\n", "\n  ", "\n    ", "\n\t", "  ", "\n   ", "\n\n"])
def test_what_the_parser_reads_as_a_call_the_grammar_constrains(grammars, tokenizer, indent):
    # An invalid call (days missing): the grammar lets it through only as free text, which is
    # exactly when the parser does not read a call in it.
    text = f'Sure. {{{indent}"name": "get_forecast", "arguments": {{"city": "X"}}}}'
    compiled = grammars.for_tools(TOOLS, ToolChoice("auto"), True)
    assert accepts(compiled, tokenizer, text) is not bool(parse_tool_calls(text)[1])



def test_jump_forward_leaves_added_tokens_to_the_model(grammars, tokenizer):
    """A forced string that one added token also spells (`<|im_start|>` here, `</tool_call>` for Qwen) is
    left for the model to write in its own pieces: jumped forward as the added token, a model can drift."""
    schema = {"type": "object", "properties": {"tag": {"const": "<|im_start|>x"}}, "required": ["tag"]}
    compiled = grammars.for_response_format({"type": "json_schema", "json_schema": {"name": "t", "schema": schema}})
    (added,) = tokenizer.encode("<|im_start|>", add_special_tokens=False)
    opening = tokenizer.encode('{"tag": "', add_special_tokens=False)

    plain, constraint = GrammarConstraint(compiled), grammars.constraint_factory(compiled)()
    for token in opening:
        assert plain.accept_token(token) and constraint.accept_token(token)
    assert plain.forced_tokens()[0] == added  # what xgrammar alone would insert
    assert constraint.forced_tokens() == []
    # The grammar still lets the model write the tag itself, as text pieces.
    pieces = [tokenizer.encode(piece, add_special_tokens=False) for piece in ("<|", "im", "_start", '|>x"}')]
    for token in [token for piece in pieces for token in piece]:
        assert constraint.accept_token(token)


def test_jump_forward_writes_a_plain_added_token_as_its_text_pieces(smollm_checkpoint):
    """Qwen's `</tool_call>` is an added token that is not special: the jump-forward inserts the text
    pieces the model writes (for Qwen `</`, `tool`, `_call`), not the added token, and leaves the
    last piece (`>`), which may merge with what follows, to the model."""
    text_pieces = smollm_checkpoint.tokenizer.hf_tokenizer.encode("</tool_call>", add_special_tokens=False)
    hf_tokenizer = copy.deepcopy(smollm_checkpoint.tokenizer.hf_tokenizer)
    hf_tokenizer.add_tokens(["</tool_call>"])
    (added,) = hf_tokenizer.encode("</tool_call>", add_special_tokens=False)
    grammars = GrammarCache(hf_tokenizer, len(hf_tokenizer), list(smollm_checkpoint.tokenizer.eos_token_ids))
    schema = {"type": "object", "properties": {"tag": {"const": "</tool_call> and on"}}, "required": ["tag"]}
    compiled = grammars.for_response_format({"type": "json_schema", "json_schema": {"name": "t", "schema": schema}})

    constraint = grammars.constraint_factory(compiled)()
    for token in hf_tokenizer.encode('{"tag": "', add_special_tokens=False):
        assert constraint.accept_token(token)
    forced = constraint.forced_tokens()
    assert forced == text_pieces[:-1]  # as the tokenizer spells the text without the added token
    assert all(constraint.accept_token(token) for token in forced)
    assert hf_tokenizer.decode(constraint.forced_tokens()).startswith(hf_tokenizer.decode(text_pieces[-1:]))
