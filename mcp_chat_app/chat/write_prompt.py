"""The writer's prompts: the answer from the facts (with worked examples), its corrective retry, and plain chat.

The system prompt and the examples come first and never change, so the backend's prefix cache keeps them; the
question, the facts and the language come last.
"""

from __future__ import annotations

from mcp_chat_app.chat import languages
from mcp_chat_app.chat.assistant import Assistant
from mcp_chat_app.chat.facts import Facts
from mcp_chat_app.chat.verify import Problem

Messages = list[dict[str, str]]

WRITER_RULES = (
    "Write the answer to the user's question from the facts given, which come from your tools. Rules: answer in "
    "the language asked for, in one to three short sentences; answer the question first (a yes/no question "
    "begins with the yes or no the facts give; a comparison begins with the place that wins); use only the "
    "facts: quote their numbers exactly, with units, and name days as the facts name them; never give a day, "
    "a time or a figure the facts do not contain; only if the facts lack what the question asks for (another "
    "kind of data, an hour of the day), say plainly that you do not have it, then give what the facts do say; "
    "say of each day only what the facts say of that day; do not mention tools, data sources or notices."
)

NO_TOOLS_RULES = (
    "No data tools are connected right now, so you cannot look up the weather or any live data. If the question "
    "needs such data, say that you cannot look it up right now. Never make up figures."
)


def system_prompt(assistant: Assistant) -> str:
    """Who the assistant is, in both its names, so a Chinese reply uses the Chinese one."""
    return (f"You are {assistant.name['en']} (in Chinese: {assistant.name['zh']}), {assistant.purpose['en']}. "
            "You are not any other company's model or product.")


def writer_messages(assistant: Assistant, question: str, facts: Facts, language: str, earlier: str = "",
                    lead: str = "") -> Messages:
    """The writer's conversation: its rules, the worked examples, then this question with its facts (and the
    verdict the answer begins with, when the question asks for one)."""
    messages = [{"role": "system", "content": f"{system_prompt(assistant)} {WRITER_RULES}"}]
    for example in assistant.writer_examples:
        example_language = languages.detect(example.question)
        messages.append({"role": "user", "content": _writer_request(example.question, example.facts,
                                                                    example_language, "", "")})
        messages.append({"role": "assistant", "content": example.answer})
    messages.append({"role": "user", "content": _writer_request(question, facts_text(facts), language, earlier,
                                                                lead)})
    return messages


def fixed_part(assistant: Assistant) -> int:
    """How many leading messages of a writer conversation are its fixed part (rules and worked examples)."""
    return 1 + 2 * len(assistant.writer_examples)


def retry_messages(messages: Messages, draft: str, problems: list[Problem]) -> Messages:
    """The same conversation with the failed draft and what is wrong with it."""
    reasons = "; ".join(problem.detail for problem in problems)
    return [*messages, {"role": "assistant", "content": draft},
            {"role": "user", "content": f"That answer cannot be used: {reasons}. Write it again, following the "
                                        "rules and using only the facts."}]


def chat_messages(assistant: Assistant, question: str, history: Messages, language: str,
                  tools_connected: bool = True) -> Messages:
    """A question that needs no tool (or cannot have one): the assistant answers as itself."""
    rules = "Answer briefly." if tools_connected else NO_TOOLS_RULES
    system = f"{system_prompt(assistant)} {rules} Answer in {languages.name(language)}."
    return [{"role": "system", "content": system}, *history, {"role": "user", "content": question}]


def facts_text(facts: Facts) -> str:
    """What the writer reads: each finding's text, and what could not be fetched."""
    lines = [finding.text for finding in facts.findings]
    lines += [f"Not fetched: the user did not allow the call to {failure.tool} ({failure.server})"
              if failure.reason == "denied" else
              f"Could not be fetched from {failure.server}: {failure.message or failure.reason}"
              for failure in facts.failures]
    return "\n".join(lines)


def _writer_request(question: str, facts: str, language: str, earlier: str, lead: str) -> str:
    lines = [f"Question: {question}"]
    if earlier:
        lines.append(f"(The question before it: {earlier})")
    lines += ["Facts:", facts, f"Answer in {languages.name(language)}."]
    if lead:
        lines.append(f"Begin with: {lead}")
    return "\n".join(lines)
