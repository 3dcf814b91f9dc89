"""The router's prompt: its system prompt and tool list stay byte-identical across requests and come first, so
the backend's prefix cache reuses them; everything per-request (the question, glossed) comes after."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from mcp_chat_app.chat.text.day_words import glossed
from mcp_chat_app.chat.text.vocabulary import Vocabulary
from mcp_chat_app.mcp_client.manager import ToolInfo

ROUTER_PROMPT = (
    "{identity} Today is {today}. Call a tool whenever the question needs data a tool provides; "
    "never guess such data. If no tool fits, answer directly, in the user's language."
)

SERVER_NOTES_HEADER = "\nNotes from the tool servers on using their tools:"

PROMPT_JSON_RULES = (
    "\nTools:\n{tool_lines}\n"
    'To call tools, reply with only JSON: {{"tool_calls": [{{"name": "<tool>", "arguments": {{...}}}}]}}. '
    "Otherwise reply with the answer as plain text."
)

TOOL_RESULTS_HEADER = "Tool results:"

# After the question, when the router called no tool for a question the tools answer, and is asked once more.
ASKS_FOR_DATA = "\n\n(A tool provides the data this question asks about: call it; do not answer from memory.)"
# Asked about 21:00, a small model called a tool of the present moment, which has no hours.
ASKS_FOR_AN_HOUR = "\n\n(The question asks about a time of day: call a tool that takes hours, with that hour.)"
# Asked for UV, a small model called a tool whose results have none.
ASKS_FOR_A_QUANTITY = "\n\n(The question asks for {quantities}, which the results of {tools} hold: call one of them.)"
# A forced call its schema refused, handed back once with the reason (an auto router reads it as a tool result).
REFUSED = "\n\n(That call was refused: {errors}. Call a tool with arguments it accepts.)"
# Asked about tomorrow ("明儿牡丹江冷不冷"), a small model called the tool of the present moment, which has no day.
ASKS_FOR_A_DAY = ("\n\n(The question asks about a day, not only the present moment: call a tool that takes a "
                  "day, with that day.)")

# Asked of "there" after two places, a small model compared both.
ASKS_OF_ONE_PLACE = "\n\n(The question asks about {place} alone: call a tool for that one place.)"

# A call with values the question does not give (a bound for "which of A and B is lower?", a place for "where is
# it above 20?"): asked again without that tool.
NOT_IN_THE_QUESTION = "\n\n(The question gives no {arguments} for {tool}: call a tool that takes what it says.)"
MISQUOTED = "\n\n(The question writes the figures {written}, not {arguments}: give them as it writes them.)"

# Offered beside the real tools when a call is forced, so a question that needs no tool still has a way out.
NO_TOOL = "answer_directly"
NO_TOOL_SPEC = {
    "type": "function",
    "function": {"name": NO_TOOL, "description": "Answer without a tool: greetings, thanks, jokes, poems, "
                 "maths, general knowledge, anything the other tools do not provide.",
                 "parameters": {"type": "object", "properties": {}}},
}


def date_line(today: dt.date) -> str:
    """The date line of the router prompt (changes once a day, so the prefix cache stays warm)."""
    return f"{today.strftime('%A')} {today.isoformat()}"  # the weekday, for "this weekend" and "on Friday"


def router_system_prompt(identity: str, tools: list[ToolInfo], tool_mode: str, server_notes: dict[str, str],
                         today: dt.date) -> str:
    """The router's system prompt: who the assistant is, each server's own usage notes (MCP `instructions`) and,
    in prompt-JSON mode, the tool list."""
    prompt = ROUTER_PROMPT.format(identity=identity, today=date_line(today))
    if server_notes:
        prompt += SERVER_NOTES_HEADER + "".join(f"\n[{name}]\n{notes}" for name, notes in server_notes.items())
    if tool_mode == "prompt_json":
        prompt += PROMPT_JSON_RULES.format(tool_lines="\n".join(_tool_line(tool) for tool in tools))
    return prompt


def router_messages(system: str, history: list[dict[str, str]], question: str, today: dt.date,
                    vocabulary: Vocabulary, earlier_calls: str = "", note: str = "") -> list[dict[str, Any]]:
    """The router's conversation: the byte-stable system prompt first, the earlier calls and a `note` (such as
    ASKS_FOR_DATA) with the question."""
    asked = glossed(question, today, vocabulary)
    if earlier_calls:
        asked += f"\n\n(What this question does not say, it takes from the previous request: {earlier_calls})"
    asked += note
    return [{"role": "system", "content": system}, *history, {"role": "user", "content": asked}]


def openai_tools(tools: list[ToolInfo]) -> list[dict[str, Any]]:
    """The native `tools` parameter: compact descriptions (first line only), schemas without titles or bounds,
    and an argument described only where it first appears (tools of one server repeat `city`, `day`...: the
    same words four times cost hundreds of prompt tokens and taught the model nothing new)."""
    described: set[tuple[str, str]] = set()
    specs = []
    for tool in tools:
        parameters = _slim_schema(tool.input_schema)
        for name, spec in parameters.get("properties", {}).items():
            description = spec.get("description") if isinstance(spec, dict) else None
            if isinstance(description, str):
                if (name, description) in described:
                    del spec["description"]
                described.add((name, description))
        specs.append({"type": "function", "function": {
            "name": tool.qualified_name, "description": _first_line(tool.description), "parameters": parameters}})
    return specs


def _first_line(text: str) -> str:
    return text.strip().split("\n\n")[0].replace("\n", " ")


# Limits the gateway checks against the server's own schema before a call (mcp_client/arguments.py); the model
# never came near them, and they were a tenth of the tool list.
_CHECKED_NOT_SHOWN = {"title", "minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems"}


def _slim_schema(schema: Any) -> Any:
    """The schema as the model reads it: no `title`s or bounds, and `anyOf [X, null]` as X with
    `type: [X, "null"]`, without the null default. Validation still uses the server's full schema."""
    if isinstance(schema, list):
        return [_slim_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    slim = {}
    for key, value in schema.items():
        if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            slim[key] = {name: _slim_schema(item) for name, item in value.items()}  # names, not keywords
        elif key not in _CHECKED_NOT_SHOWN:
            slim[key] = _slim_schema(value)
    options = slim.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options and len(options) == 2:
        (kept,) = [option for option in options if option != {"type": "null"}]
        slim = {**{k: v for k, v in slim.items() if k != "anyOf"}, **kept}
        if isinstance(kept.get("type"), str):
            # Kept nullable: asked for "above 30", a small model wants `"max": null`, and made to write a
            # number there it wrote 30.
            slim["type"] = [kept["type"], "null"]
    if "default" in slim and slim["default"] is None:
        del slim["default"]
    return slim


def _tool_line(tool: ToolInfo) -> str:
    properties = tool.input_schema.get("properties", {})
    required = set(tool.input_schema.get("required", []))
    params = ", ".join(
        f"{name}{'' if name in required else '?'}: {spec.get('type', 'any')}" for name, spec in properties.items()
    )
    return f"- {tool.qualified_name}({params}): {_first_line(tool.description)}"


def tool_results_message(results: list[tuple[str, str]]) -> str:
    """How prompt-JSON mode feeds results back (as a user message: no `tool` role there)."""
    return TOOL_RESULTS_HEADER + "\n" + "\n".join(f"- {name}: {view}" for name, view in results)


def dump_arguments(arguments: dict[str, Any]) -> str:
    """Arguments as the assistant message records them."""
    return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
