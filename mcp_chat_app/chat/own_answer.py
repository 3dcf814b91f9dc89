"""The assistant's own answer to a question no tool answers (or none can): its prompt and the writer model's
call, and whether a question is one the tools answer, so that no own answer guesses at it. The route stage asks
for it, when the router picks no tool."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace

from mcp_chat_app.chat.route_arguments.days import takes_a_day
from mcp_chat_app.chat.text import languages
from mcp_chat_app.chat.text.claims import asks, states_measurements, unusable
from mcp_chat_app.chat.text.day_words import day_words
from mcp_chat_app.chat.text.quantities import asked_quantities, described
from mcp_chat_app.chat.text.repetition import before_repetition, repeated_piece
from mcp_chat_app.chat.text.vocabulary import Vocabulary
from mcp_chat_app.chat.turn import Turn
from mcp_chat_app.llm.client import ChatTurn, LlmClient
from mcp_chat_app.mcp_client.manager import ToolInfo

# The terms a tool's description lists in brackets ("Air quality (空气质量, PM2.5, AQI)"): what users ask it for.
_BRACKETED = re.compile(r"[(（]([^()（）]+)[)）]")
_TERM_SEPARATORS = re.compile(r"\s*[,，、;；]\s*")
_STATEMENT_END = re.compile(r"[啊呀啦了哦嘛！!。.~～]\s*$")
_CLAUSES = re.compile(r"[，；。！]\s*\S")  # a Chinese message of more than one clause: no terse query ("明天上海")
_LATIN_WORD = re.compile(r"[a-z]+")
# The present moment: asked of with a word of the topic, it is the data now ("right now", "现在").
_NOW = re.compile(r"\b(?:right\s+now|at\s+the\s+moment|currently)\b|现在|此刻|这会儿", re.IGNORECASE)
# What people ask an assistant in passing that is no tool's unless a tool's description says the words: a
# capital, a country, a time difference, a population or currency, a booking, a recipe, a tip, an exchange rate or
# the difference between two things ("what's the capital of Kazakhstan btw" was called as the present data of
# Kazakhstan, "你能帮我订机票吗" as the conversation's place's, "whats a 15% tip on R340" as the air of a place "R340",
# "台风和飓风有什么区别" as a comparison of two places, 台风 and 飓风).
_IN_PASSING = re.compile(r"\bcapital\b|首都|省会|\btime difference\b|时差|哪个国家|哪国|\b(?:which|what) country\b|"
                         r"\bpopulation\b|人口|\bcurrency\b|货币|订.{0,2}(?:机票|酒店|车票|门票)|菜谱|食谱|做法|怎么做|"
                         r"\brecipes?\b|\bbook (?:me )?(?:a |an |the )?(?:flights?|hotels?|tickets?|tables?)\b|"
                         r"必吃|美食|小吃|\bmust[- ]eats?\b|\bwhere to eat\b|"
                         r"\d\s*%\s*tip\b|小费|汇率|\bexchange rates?\b|"
                         r"(?:有|是)?(?:什么|啥)(?:区别|不同)|\bdifferences? between\b|\bwhat'?s the difference\b",
                         re.IGNORECASE)


# A question of why, on no day, asks for an explanation, not for data ("为啥高原上紫外线那么强", "why do typhoons
# form over warm seas?"); the words of _IN_PASSING that say nothing of the matter ("between", which a tool's
# description may hold).
_WHY = re.compile(r"为什么|为啥|为何|\bwhy\b", re.IGNORECASE)
_LINKING = frozenset({"between", "what", "s", "the", "which", "me", "a", "an"})


def needs_tool_data(question: str, tools: Iterable[ToolInfo], vocabulary: Vocabulary) -> bool:
    """Whether the tools answer the question: it names a day and a tool takes one ("周末会降温吗", "this week"),
    says a term a tool's description lists ("空气质量", "AQI"), or names a quantity (the vocabulary's) that a tool's
    results hold. Such a question gets the data or an honest "could not look it up", never an answer from memory."""
    tools = list(tools)
    if day_words(question) and not _remarks(question) and any(takes_a_day(tool.input_schema) for tool in tools):
        return True
    if any(says_a_listed_term(question, tool) for tool in tools):
        return True
    if (_terse(question) or _NOW.search(question)) and vocabulary.names_the_topic(question):
        # "nyc <topic word>?" and "Currently in Kotor. Is it <topic word> there right now?" were answered from
        # memory ("Yes, it is ... in New York City")
        return True
    return any(tool.output_schema and described(tool.output_schema, quantity)
               for quantity in asked_quantities(question, vocabulary) for tool in tools)


def _terse(question: str) -> bool:
    """A question of a few words ("nyc <topic word>?"): with a word of the domain's topic, it asks its data, where a
    longer one may ask about the topic itself ("do you like <topic word> on a Sunday afternoon?")."""
    words = question.split()
    return len(words) <= 3 if len(words) > 1 or question.isascii() else len(question.strip()) <= 8


def asked_in_passing(question: str, tools: Iterable[ToolInfo], vocabulary: Vocabulary) -> bool:
    """Whether a question asks what people ask in passing (_IN_PASSING: "塔什干是哪个国家的首都", "time difference
    between California and Ireland?"), on no day, of nothing the tools answer (needs_tool_data), in words no tool's
    description says (a clock server's tools answer a time difference); or asks why, on no day (_WHY)."""
    if day_words(question):
        return False
    if _WHY.search(question):
        return True
    match = _IN_PASSING.search(question)
    if match is None:
        return False
    tools = list(tools)
    words = [word for word in _LATIN_WORD.findall(match[0].casefold()) if word not in _LINKING] or [match[0]]
    return not any(word in tool.description.casefold() for word in words for tool in tools) \
        and not needs_tool_data(question, tools, vocabulary)


def says_a_listed_term(question: str, tool: ToolInfo) -> bool:
    """Whether the question says a term the tool's description lists in brackets: what users ask it for."""
    asked = question.casefold()
    return any(_said(term, asked) for term in _listed_terms(tool.description))


# Words of four letters or more that say nothing of what a tool does ("will" of "Will it open…?" said by "will it be
# busy?").
_FUNCTION_WORDS = frozenset("will would shall should could with from that this what when where which does have "
                            "been their there them then they than into your each over more most some such very also "
                            "only just".split())


def says_what_it_does(question: str, tool: ToolInfo) -> bool:
    """Whether the question says a term the tool's description lists, or a word of four letters or more of its
    description's first paragraph ("stock" of "Stock prices of one company"): a word of what the tool does."""
    asked = question.casefold()
    words = {word for word in _LATIN_WORD.findall(_first_paragraph(tool.description).casefold())
             if len(word) >= 4 and word not in _FUNCTION_WORDS}
    return says_a_listed_term(question, tool) or any(re.search(rf"(?<![a-z]){word}", asked) for word in words)


def _remarks(question: str) -> bool:
    """Whether the message remarks rather than asks ("今天好累啊", "Tomorrow is my birthday!", "今天心情不错，跟你聊两句"):
    it holds no word that asks, and ends as a statement or says more than a terse query's one clause."""
    return bool(_STATEMENT_END.search(question) or _CLAUSES.search(question)) and not asks(question)


def not_looked_up(turn: Turn) -> str:
    """The answer when the tools answer the question but no call could be made for it."""
    sentence = turn.assistant.not_looked_up
    return sentence["zh"] if turn.language == "zh" else sentence["en"]


def _first_paragraph(description: str) -> str:
    return description.strip().split("\n\n")[0]


def _listed_terms(description: str) -> list[str]:
    first = _first_paragraph(description)
    return [term for group in _BRACKETED.findall(first) for term in _TERM_SEPARATORS.split(group.strip()) if term]


def _said(term: str, asked: str) -> bool:
    """A term in the question: Chinese as written, Latin as a word ("AQI", not inside "aquifer")."""
    term = term.casefold()
    if not term.isascii():
        return term in asked
    return len(term) > 2 and re.search(rf"(?<![a-z0-9]){re.escape(term)}(?![a-z0-9])", asked) is not None


def own_answer_messages(turn: Turn, tools_connected: bool) -> list[dict[str, str]]:
    """The assistant answers as itself: briefly, or, with no tool server connected, never with made-up data."""
    assistant = turn.assistant
    # Asked "what can you do?", a small model lists skills without saying who it is.
    rules = ("Answer briefly; asked who you are or what you can do, begin with your name."
             if tools_connected else assistant.no_tools.rules)
    system = f"{assistant.identity} {rules} Answer in {languages.name(turn.language)}."
    return [{"role": "system", "content": system}, *turn.plain_history, {"role": "user", "content": turn.question}]


def own_answer(turn: Turn, writer: LlmClient, tools_connected: bool) -> ChatTurn:
    """The writer's reply, streamed to whoever listens as far as it passes the own answer's check, and stopped
    once it loops (a list item said over and over: the reply ends before its second time)."""
    reply = writer.chat(own_answer_messages(turn, tools_connected), on_token=turn.stream(own_passes_so_far(turn)),
                        cancellation=turn.cancellation, stop_when=lambda text: repeated_piece(text) is not None)
    return replace(reply, content=before_repetition(reply.content))


def own_passes_so_far(turn: Turn) -> Callable[[str], bool]:
    """Whether an own answer's text so far may be shown: what verify rejects an own answer for, readable text
    in the user's language with no figures (none is behind it), holds of it."""
    return lambda text: not unusable(text, turn.language, turn.vocabulary) \
        and not states_measurements(text, turn.vocabulary) and not turn.assistant.claims_to_be_another(text) \
        and repeated_piece(text) is None
