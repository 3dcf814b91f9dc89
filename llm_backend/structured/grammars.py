"""Compiling request constraints (tools, response_format) into xgrammar grammars.

Compilation costs milliseconds to seconds, and the gateway sends the same tool list on
every request, so compiled grammars are cached by the canonical JSON of what produced
them. The server calls this module from worker threads (a big schema would otherwise
stall every stream on the event loop): the cache is locked, and a grammar several
requests ask for at once is compiled by the first of them while the others wait for it. Tool calls use the Hermes/Qwen2.5 wire format,
`<tool_call>\n{"name": "...", "arguments": {...}}\n</tool_call>`, or its bare JSON object,
compact or pretty-printed.
The engine's sampler fills one bitmask per step, a row per constrained sequence, through
`GrammarConstraint` (the `TokenConstraint` protocol).
"""
from __future__ import annotations

import json
import threading
from collections import OrderedDict
from concurrent.futures import Future
from typing import Any, Callable

import xgrammar
from xgrammar.structural_tag import (GrammarFormat, JSONSchemaFormat, OrFormat, StructuralTag, TagFormat,
                                     TagsWithSeparatorFormat, TriggeredTagsFormat)

from llm_backend.structured.constraint import GrammarConstraint
from llm_backend.structured.tool_parser import BARE_TRIGGERS, CLOSE_TAG, OPEN_TAG
from llm_backend.structured.tools import ToolChoice, ToolSpecError, check_json_schema

# A small model asked for JSON sometimes emits newlines forever; a cap on consecutive
# whitespace makes that impossible while leaving room for pretty-printing (a newline and the
# indentation of depth 3 at four spaces, the deepest tool arguments usually go).
MAX_WHITESPACE = 16
# For the same reason tool arguments get bounds where their schema has none: a model stuck
# repeating list items or characters must still close its call before max_tokens. Arguments
# within these bounds still validate against the original schema.
MAX_ARGUMENT_ITEMS = 8
MAX_ARGUMENT_CHARS = 128


def added_token_text(hf_tokenizer: Any) -> dict[int, tuple[int, ...] | None]:
    """Each added token -> the ids that spell its content as plain text, or None for special tokens.

    Plain text means the byte-level BPE alone, as a model writes the text: `encode` would match
    the added token again. Without a fast tokenizer's pipeline every added token maps to None.
    """
    backend = getattr(hf_tokenizer, "backend_tokenizer", None)
    text_forms: dict[int, tuple[int, ...] | None] = {}
    for token_id, token in getattr(hf_tokenizer, "added_tokens_decoder", {}).items():
        if token.special or backend is None or backend.pre_tokenizer is None:
            text_forms[token_id] = None
            continue
        pieces = backend.pre_tokenizer.pre_tokenize_str(token.content)
        text_forms[token_id] = tuple(t.id for piece, _ in pieces for t in backend.model.tokenize(piece))
    return text_forms


class GrammarCache:
    """Compiles and caches grammars for one tokenizer/vocabulary."""

    def __init__(self, hf_tokenizer: Any, vocab_size: int, stop_token_ids: list[int],
                 capacity: int = 64) -> None:
        info = xgrammar.TokenizerInfo.from_huggingface(
            hf_tokenizer, vocab_size=vocab_size, stop_token_ids=list(stop_token_ids))
        self._compiler = xgrammar.GrammarCompiler(info, max_threads=2)
        self._added_token_text = added_token_text(hf_tokenizer)
        self._cache: OrderedDict[str, xgrammar.CompiledGrammar] = OrderedDict()
        self._compiling: dict[str, Future] = {}
        self._lock = threading.Lock()
        self._capacity = capacity
        self.hits = 0
        self.misses = 0

    def for_tools(self, tools: list[dict], choice: ToolChoice,
                  parallel_tool_calls: bool) -> xgrammar.CompiledGrammar | None:
        """The grammar of a reply under `choice`; None for 'none' (free text)."""
        if choice.mode == "none":
            return None
        key = json.dumps(["tools", tools, choice.mode, choice.name, parallel_tool_calls],
                         sort_keys=True)
        return self._cached(key, lambda: self._compiler.compile_structural_tag(
            tool_calls_tag(tools, choice, parallel_tool_calls)), "tools")

    def constraint_factory(self, compiled: xgrammar.CompiledGrammar | None
                           ) -> Callable[[], GrammarConstraint] | None:
        """What the engine calls once per sequence (n > 1 needs independent matchers)."""
        if compiled is None:
            return None
        return lambda: GrammarConstraint(compiled, self._added_token_text)

    def for_response_format(self, response_format: dict | None) -> xgrammar.CompiledGrammar | None:
        """The grammar of `response_format` (json_object / json_schema); None for text."""
        kind = (response_format or {}).get("type", "text")
        if kind == "text":
            return None
        if kind == "json_object":
            schema: dict = {"type": "object"}
            strict = False
        elif kind == "json_schema":
            spec = response_format.get("json_schema")
            if not isinstance(spec, dict) or not isinstance(spec.get("schema"), dict):
                raise ToolSpecError("response_format.json_schema.schema: a JSON Schema object "
                                    "is required.", "response_format")
            schema = spec["schema"]
            check_json_schema(schema, "response_format.json_schema.schema")
            strict = bool(spec.get("strict", False))
        else:
            raise ToolSpecError(f"response_format.type must be text, json_object or json_schema, "
                                f"got {kind!r}.", "response_format")
        key = json.dumps(["schema", schema, strict], sort_keys=True)
        return self._cached(key, lambda: self._compiler.compile_json_schema(
            schema, strict_mode=strict, max_whitespace_cnt=MAX_WHITESPACE), "response_format")

    def for_regex(self, pattern: str) -> xgrammar.CompiledGrammar:
        """The grammar of a reply matching `pattern` (`structured_outputs.regex`)."""
        return self._cached(json.dumps(["regex", pattern]), lambda: self._compiler.compile_regex(pattern),
                            "structured_outputs.regex")

    def _cached(self, key: str, compile_fn: Callable[[], xgrammar.CompiledGrammar],
                param: str) -> xgrammar.CompiledGrammar:
        with self._lock:
            if key in self._cache:
                self.hits += 1
                self._cache.move_to_end(key)
                return self._cache[key]
            pending = self._compiling.get(key)
            compiles_here = pending is None
            if compiles_here:
                self.misses += 1
                pending = self._compiling[key] = Future()
        if compiles_here:
            self._compile(key, compile_fn, param, pending)
        return pending.result()

    def _compile(self, key: str, compile_fn: Callable[[], xgrammar.CompiledGrammar], param: str,
                 pending: Future) -> None:
        """Compile into `pending` (waiters get the grammar or the error), then cache a success."""
        try:
            compiled = compile_fn()
        except (ValueError, RuntimeError) as exc:  # xgrammar's errors for unsupported schemas
            pending.set_exception(ToolSpecError(f"{param}: cannot build a grammar: {exc}", param))
        except Exception as exc:  # a bug: every waiter sees it
            pending.set_exception(exc)
        else:
            pending.set_result(compiled)
        with self._lock:
            del self._compiling[key]
            if pending.exception() is None:
                self._cache[key] = pending.result()
                if len(self._cache) > self._capacity:
                    self._cache.popitem(last=False)


def tool_calls_tag(tools: list[dict], choice: ToolChoice, parallel: bool) -> StructuralTag:
    """auto: free text, but a call once started must complete validly; required: only calls
    (at least one); named: exactly one call of that function.

    A call may be written tagged (`<tool_call>...</tool_call>`, what the template asks for) or
    bare (`{"name": ..., "arguments": ...}`, what small Qwen models write unprompted), compact
    or pretty-printed: forcing one form on a model that wants another costs accuracy, so all
    are allowed. In auto mode a bare call opens only with `{`, the whitespace of one of
    `BARE_TRIGGERS` and `"name"` (what the parser reads as a call), so other JSON in a text
    answer stays free text."""
    functions = {tool["function"]["name"]: tool["function"] for tool in tools}
    if choice.mode == "named":
        return StructuralTag(format=OrFormat(elements=_call_tags(functions[choice.name])))
    tags = [tag for function in functions.values() for tag in _call_tags(function)]
    if choice.mode == "required":
        return StructuralTag(format=TagsWithSeparatorFormat(
            tags=tags, separator="\n", at_least_one=True, stop_after_first=not parallel))
    return StructuralTag(format=TriggeredTagsFormat(
        triggers=[OPEN_TAG, *BARE_TRIGGERS], tags=tags, stop_after_first=not parallel))


def _call_tags(function: dict) -> list[TagFormat]:
    """The tagged call of `function` and one bare call per opener in BARE_TRIGGERS."""
    name = function["name"]
    schema = bounded(function["parameters"])
    arguments = JSONSchemaFormat(json_schema=schema, max_whitespace_cnt=MAX_WHITESPACE)
    # The tagged form is the template's, and models write its arguments as `{"k": v, "k2": v2}`: fixed
    # separators there let the jump-forward fill in `": ` and `, "` (a decode step each, ~0.13 s on a CPU).
    compact = GrammarFormat(grammar=str(xgrammar.Grammar.from_json_schema(
        schema, any_whitespace=False, separators=(", ", ": "))))
    tags = [TagFormat(begin=f'{OPEN_TAG}\n{{"name": "{name}", "arguments": ', content=compact,
                      end=f"}}\n{CLOSE_TAG}")]
    for trigger in BARE_TRIGGERS:
        indent = trigger[1:-len('"name"')]
        separator = f",{indent}" if "\n" in indent else ", "
        tags.append(TagFormat(begin=f'{trigger}: "{name}"{separator}"arguments": ',
                              content=arguments, end=["}", " }", "\n}"]))
    return tags


def bounded(schema: Any) -> Any:
    """A copy of `schema` where unbounded arrays and free strings get MAX_ARGUMENT_* limits."""
    if isinstance(schema, list):
        return [bounded(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    copy = {key: bounded(value) for key, value in schema.items()}
    kinds = schema.get("type") if isinstance(schema.get("type"), list) else [schema.get("type")]
    if "array" in kinds and "maxItems" not in schema:
        copy["maxItems"] = MAX_ARGUMENT_ITEMS
    free_string = not {"maxLength", "enum", "const", "pattern", "format"} & schema.keys()
    if "string" in kinds and free_string:
        copy["maxLength"] = MAX_ARGUMENT_CHARS
    return copy
