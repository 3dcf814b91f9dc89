"""The writer's prompts: the answer from the facts (with worked examples), its corrective retry, and the
constraint on its first sentence.

The system prompt and the examples come first and never change, so the backend's prefix cache keeps them; the
question, the facts and the language come last.
"""

from __future__ import annotations

from mcp_chat_app.chat.assistant import Assistant
from mcp_chat_app.chat.facts import Facts
from mcp_chat_app.chat.text import languages

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

# What the writer must produce when the tool results hold figures: a first sentence with an ASCII digit in its
# first 120 characters. Only "at least one digit" let a model that had finished ("不会。") pad its answer with a
# code block to get one; barred from ending the sentence, it goes on with the figure instead ("不会，可能性只有
# 22%。"). After 120 characters without one the answer is free again, so a reply with no figure to give (a poem
# after a needless tool call) cannot run on forever.
CITES_A_FIGURE = r"(?:[^0-9。！？.!?]{0,120}[0-9]|[^0-9。！？.!?]{120})[\s\S]*"


def writer_messages(assistant: Assistant, question: str, facts: Facts, language: str, earlier: str = "",
                    lead: str = "") -> Messages:
    """The writer's conversation: its rules, the worked examples, then this question with its facts (and the
    verdict the answer begins with, when the question asks for one)."""
    messages = [{"role": "system", "content": f"{assistant.identity} {WRITER_RULES}"}]
    for example in assistant.writer_examples:
        example_language = languages.detect(example.question, assistant.vocabulary)
        messages.append({"role": "user", "content": _writer_request(example.question, example.facts,
                                                                    example_language, "", "")})
        messages.append({"role": "assistant", "content": example.answer})
    messages.append({"role": "user", "content": _writer_request(question, facts_text(facts), language, earlier,
                                                                lead)})
    return messages


def fixed_part(assistant: Assistant) -> int:
    """How many leading messages of a writer conversation are its fixed part (rules and worked examples)."""
    return 1 + 2 * len(assistant.writer_examples)


def retry_messages(messages: Messages, draft: str, reasons: list[str]) -> Messages:
    """The same conversation with the failed draft and what is wrong with it."""
    return [*messages, {"role": "assistant", "content": draft},
            {"role": "user", "content": f"That answer cannot be used: {'; '.join(reasons)}. Write it again, "
                                        "following the rules and using only the facts."}]


def facts_text(facts: Facts) -> str:
    """What the writer reads: each finding's text, and what could not be fetched."""
    lines = [finding.text for finding in facts.findings]
    lines += [f"Not fetched: the user did not allow the call to {failure.tool} ({failure.server})"
              if failure.reason == "denied" else
              f"Not fetched: {failure.tool} ({failure.server}) was not run, it needs the user's approval first"
              if failure.reason == "needs_approval" else
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
