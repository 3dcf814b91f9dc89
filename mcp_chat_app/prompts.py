"""Prompts. The router's system prompt and tool list stay byte-identical across requests and come
first, so the backend's prefix cache reuses them; everything per-request comes after."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from mcp_chat_app.mcp_manager import ToolInfo

ROUTER_PROMPT = (
    "You are an assistant with tools. Today is {today}. Call a tool whenever the question needs data a tool "
    "provides; never guess such data. When the question names several places or items, call the tool once for "
    "each. If no tool fits, answer directly. "
    "Answer in the user's language, quote numbers from tool results with units, translate descriptions "
    "faithfully, and say so plainly if a tool failed."
)

SERVER_NOTES_HEADER = "\nNotes from the tool servers on using their tools:"

PROMPT_JSON_RULES = (
    "\nTools:\n{tool_lines}\n"
    'To call tools, reply with only JSON: {{"tool_calls": [{{"name": "<tool>", "arguments": {{...}}}}]}}. '
    "Otherwise reply with the answer as plain text."
)

WRITER_PROMPT = (
    "You write the final answer for a weather assistant, using only the tool results given. In one to three "
    "short sentences, answer the question directly for the day or days it asks about, and quote the numbers "
    "that answer it exactly as given, with units (temperatures in °C, rain in mm and its chance in %). "
    "Translate weather descriptions faithfully. Do not list more than three days, and never invent a date or "
    "a number. If a tool failed, say that the data could not be fetched."
)

# Worked examples put before each question (a fixed prefix, so the backend's prefix cache keeps them): small
# models follow a shown answer far better than a described one. They show a yes/no question answered with its
# figures, a short answer, and places named in the answer's language. Places and figures are made up; none is
# from the eval questions.
WRITER_EXAMPLES = (
    ("杭州明天会下雨吗？", "weather__get_precipitation",
     "杭州 (Hangzhou), China: umbrella advised. 2026-03-02 (today) rain 0 mm (10%); 2026-03-03 (tomorrow) rain "
     "6.2 mm (85%).", "Chinese",
     "会。杭州明天降雨概率85%，预计降水6.2毫米，出门记得带伞。"),
    ("Is it cold in Oslo?", "weather__get_current_weather",
     "Oslo, Norway at 2026-03-02T09:00: -3.5°C (feels -7.9°C), Light snow, humidity 80%, wind 15.1 km/h, "
     "precipitation 0.4 mm, UV 0.", "English",
     "Yes, it is cold in Oslo: -3.5°C, feeling like -7.9°C, with light snow."),
    ("西安未来两天天气", "weather__get_forecast",
     "西安 (Xi'an), China 3-day forecast: 2026-03-02 (today) Clear sky 2..12°C rain 5%; 2026-03-03 (tomorrow) "
     "Overcast 3..13°C rain 20%; 2026-03-04 Slight rain 1..9°C rain 70%.", "Chinese",
     "西安今天晴，2~12°C；明天阴，3~13°C，降雨概率20%；后天小雨，1~9°C，降雨概率70%。"),
    ("Which cities are below 5 degrees tomorrow?", "weather__find_cities_by_temperature",
     "3 of 62 cities have a max temperature <= 5°C on 2026-03-03 (tomorrow): Oslo/奥斯陆 -1.2°C, "
     "Harbin/哈尔滨 2.5°C, Moscow/莫斯科 4.8°C.", "English",
     "Three cities stay at or below 5°C tomorrow: Oslo (-1.2°C), Harbin (2.5°C) and Moscow (4.8°C)."),
)

# What the writer must produce when the tool results hold figures: a first sentence with an ASCII digit in its
# first 120 characters. Only "at least one digit" let a model that had finished ("不会。") pad its answer with a
# code block to get one; barred from ending the sentence, it goes on with the figure instead ("不会，降雨概率只有
# 22%。"). After 120 characters without one the answer is free again, so a reply with no figure to give (a poem
# after a needless tool call) cannot run on forever.
CITES_A_FIGURE = r"(?:[^0-9。！？.!?]{0,120}[0-9]|[^0-9。！？.!?]{120})[\s\S]*"

TOOL_RESULTS_HEADER = "Tool results:"

# Offered beside the real tools when a call is forced, so a question that needs no tool still has a way out.
NO_TOOL = "answer_directly"
NO_TOOL_SPEC = {
    "type": "function",
    "function": {"name": NO_TOOL, "description": "Answer without a tool: greetings, thanks, jokes, poems, "
                 "maths, general knowledge, anything the other tools do not provide.",
                 "parameters": {"type": "object", "properties": {}}},
}


def today() -> str:
    """The date line of the router prompt (changes once a day, so the prefix cache stays warm)."""
    date = dt.date.today()
    return f"{date.strftime('%A')} {date.isoformat()}"  # the weekday, for "this weekend" and "on Friday"


def router_system_prompt(tools: list[ToolInfo], tool_mode: str, server_notes: dict[str, str]) -> str:
    """The router's system prompt: each server's own usage notes (MCP `instructions`) and, in prompt-JSON mode,
    the tool list."""
    prompt = ROUTER_PROMPT.format(today=today())
    if server_notes:
        prompt += SERVER_NOTES_HEADER + "".join(f"\n[{name}]\n{notes}" for name, notes in server_notes.items())
    if tool_mode == "prompt_json":
        prompt += PROMPT_JSON_RULES.format(tool_lines="\n".join(_tool_line(tool) for tool in tools))
    return prompt


def openai_tools(tools: list[ToolInfo]) -> list[dict[str, Any]]:
    """The native `tools` parameter: compact descriptions (first line only), schemas without titles."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool.qualified_name,
                "description": _first_line(tool.description),
                "parameters": _slim_schema(tool.input_schema),
            },
        }
        for tool in tools
    ]


def writer_messages(question: str, results: list[tuple[str, str]], language: str) -> list[dict[str, str]]:
    """The writer's conversation: its prompt, the worked examples, then the question with its results."""
    messages = [{"role": "system", "content": WRITER_PROMPT}]
    for example_question, tool, result, example_language, answer in WRITER_EXAMPLES:
        messages.append({"role": "user", "content": writer_user_message(
            example_question, [(tool, result)], example_language)})
        messages.append({"role": "assistant", "content": answer})
    messages.append({"role": "user", "content": writer_user_message(question, results, language)})
    return messages


def writer_user_message(question: str, results: list[tuple[str, str]], language: str) -> str:
    """The writer's single user message: the question, the compact tool results, the language to use."""
    lines = [question, "", TOOL_RESULTS_HEADER]
    lines += [f"- {name}: {view}" for name, view in results]
    lines += ["", f"Answer in {language}."]
    return "\n".join(lines)


def _first_line(text: str) -> str:
    return text.strip().split("\n\n")[0].replace("\n", " ")


def _slim_schema(schema: Any) -> Any:
    """The schema as the model reads it: no `title`s, and `anyOf [X, null]` as X with `type: [X, "null"]`, without
    the null default. Validation still uses the server's full schema."""
    if isinstance(schema, list):
        return [_slim_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    slim = {}
    for key, value in schema.items():
        if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            slim[key] = {name: _slim_schema(item) for name, item in value.items()}  # names, not keywords
        elif key != "title":
            slim[key] = _slim_schema(value)
    options = slim.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options and len(options) == 2:
        (kept,) = [option for option in options if option != {"type": "null"}]
        slim = {**{k: v for k, v in slim.items() if k != "anyOf"}, **kept}
        if isinstance(kept.get("type"), str):
            # Kept nullable: asked for "above 30", a small model wants `"max_temp": null`, and made to write a
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
