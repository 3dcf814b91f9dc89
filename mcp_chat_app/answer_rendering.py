"""Guards on the final answer: the user's language, no leaked tool-call markup, and a deterministic
summary of the tool data when the model's text is unusable."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mcp_chat_app.tool_results import ToolOutcome, essentials

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")
_MEASUREMENT = re.compile(r"\d\s*(°|℃|℉|km/h|m/s|mm\b|%|度)")
_TOOL_ERROR_PREFIX = re.compile(r"^Error executing tool \w+: ")  # the MCP SDK's wrapper, noise to a reader
_MARKUP = re.compile(r"</?\|?tool|<\|im_|\"(name|tool)\"\s*:|^\s*[\[{]", re.MULTILINE)
_MAX_FACTS = 8
_MAX_SUMMARY_CHARS = 400


def _is_chinese(text: str) -> bool:
    # By share, not presence: an English answer may quote "北京", a Chinese one "°C" or "UV".
    cjk = len(_CJK.findall(text))
    latin = len(_LATIN.findall(text))
    return cjk > 0 and cjk >= 0.3 * (cjk + latin)


def user_language(text: str) -> str:
    """`Chinese` or `English` (the languages the product serves)."""
    return "Chinese" if _is_chinese(text) else "English"


def quotes_measurements(answer: str) -> bool:
    """Whether the text states measurements (°C, km/h, mm, %): before any tool ran, those are invented."""
    return bool(_MEASUREMENT.search(answer))


def answer_is_usable(answer: str, question: str) -> bool:
    """Non-empty, no tool-call markup, and in the question's language."""
    if not answer.strip() or _MARKUP.search(answer):
        return False
    return _is_chinese(answer) == _is_chinese(question)


def fallback_answer(question: str, outcomes: list[ToolOutcome]) -> str:
    """A plain summary of what the tools returned, for when the model's answer cannot be used."""
    chinese = _is_chinese(question)
    if not outcomes:
        return "抱歉，我现在无法回答这个问题。" if chinese else "Sorry, I could not produce an answer."
    if all(outcome.is_error for outcome in outcomes):
        lines = ["抱歉，没能获取到数据：" if chinese else "Sorry, the data could not be fetched:"]
    else:
        lines = ["查询结果：" if chinese else "Here is what the tools returned:"]
    for outcome in outcomes:
        if outcome.is_error:
            failure = "调用失败" if chinese else "failed"
            lines.append(f"- {outcome.tool} {failure}: {_TOOL_ERROR_PREFIX.sub('', outcome.text)}")
        else:
            lines.append(f"- {outcome.tool}: {_facts(outcome)}")
    return "\n".join(lines)


def _facts(outcome: ToolOutcome) -> str:
    # A server's own short text summary reads better than key=value pairs.
    if outcome.text and (len(outcome.text) <= _MAX_SUMMARY_CHARS or outcome.structured_content is None):
        return outcome.text[:_MAX_SUMMARY_CHARS]
    facts = list(_leaves(essentials(outcome.structured_content), ""))[:_MAX_FACTS]
    return ", ".join(f"{key}={value}" for key, value in facts)


def _leaves(value: Any, prefix: str) -> Iterator[tuple[str, Any]]:
    """Scalar fields as (dotted key, value), first list items only: enough to quote, short to read."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list):
        if value:
            yield from _leaves(value[0], f"{prefix}[0]")
    else:
        yield prefix, value
