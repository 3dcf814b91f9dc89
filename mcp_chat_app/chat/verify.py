"""The check a reply must pass before anyone sees it: every number, name and time of day from the data, the
facts' days only, the verdicts' yes/no and winners, the user's language, a refusal only where the facts do not
answer, and nothing a person would not write (tool names, JSON, URLs, markdown images).

Each problem is said in words the writer can act on in its corrective retry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mcp_chat_app.chat import languages
from mcp_chat_app.chat.clock import unsupported_clock_times, unsupported_times
from mcp_chat_app.chat.day_words import SPAN_WORDS, day_words, segments, unsupported_days
from mcp_chat_app.chat.facts import Facts, numbers_in

_DUMP = re.compile(r"!\[|\]\(|https?://|www\.|\{\s*\"|\"\s*:|</?\|?tool|<\|im_|```|Tool results:|structured_content",
                   re.IGNORECASE)
_MEASUREMENT = re.compile(r"\d\s*(°|℃|℉|km/h|m/s|mm\b|毫米|%|度)")
# The first clause of an answer carries its yes or no.
_FIRST_CLAUSE = re.compile(r"^[^，。,.!！?？;；:：\n]*")
_ZH_NEGATION = re.compile(r"[不没无别未否]")
_EN_NEGATION = re.compile(r"\b(no|not|never|none|nothing|without|unlikely)\b|n't", re.IGNORECASE)
_ZH_YES_NO = re.compile(r"[吗么嘛][？?\s]*$|会不会|要不要|是不是|有没有|需不需要|用不用|(.)不\1")
_EN_YES_NO = re.compile(r"^\s*(will|is|are|does|do|did|should|shall|can|could|would|was|were|has|have|am|"
                        r"need|must|may)\b", re.IGNORECASE)
_BARE_YES_NO = re.compile(r"^\s*(是|会|要|需要|有|不|没|yes\b|no\b)", re.IGNORECASE)
_FIRST_SENTENCE = re.compile(r"^[^。！？.!?\n]*")
# Saying the data is missing ("Sorry, I don't have ..."), in the languages fully served.
_REFUSAL = re.compile(r"抱歉|无法|不能提供|查不到|没有.{0,6}(数据|信息|资料)|\b(sorry|unable|cannot|can't|don't have|"
                      r"do not have|not available|no data)\b", re.IGNORECASE)
_NAME = re.compile(r"(?<![.!?。！？]\s)(?<!^)\b[A-Z][a-z]{2,}\b")
# Terms a question may ask for by name ("PM2.5", "AQI", "UV"): a reply that gives one the facts lack made it up.
_TERM = re.compile(r"(?<![A-Za-z0-9])(?:[A-Za-z]{1,3}\d{1,2}(?:\.\d)?|[A-Z]{2,})(?![A-Za-z0-9])")
_PIECE = re.compile(r"[，。,.;；、\n]")
_CLAUSE_SPLIT = re.compile(r"[，,;；。!！?？\n]|\.(?!\d)")
_HAN_RUN = re.compile(r"[\u3400-\u9fff]{2,}")
# Comparing two things, in the languages fully served; "less" and "少" put the winner second.
_COMPARATIVE = re.compile(r"\b(more|less|fewer|than|warmer|colder|wetter|drier|hotter|cooler)\b|更|比|较")
_LESS = re.compile(r"\b(less|fewer|drier)\b|少|低于")
_LATIN_WORD = re.compile(r"[a-z]{3,}")
_CALENDAR_WORDS = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january",
                   "february", "march", "april", "june", "july", "august", "september", "october", "november",
                   "december", "celsius", "fahrenheit"}


@dataclass(frozen=True)
class Problem:
    """One reason a reply cannot go out."""

    rule: str  # empty, dump, language, numbers, days, verdict
    detail: str  # for the writer's corrective retry


def check_reply(reply: str, question: str, language: str, facts: Facts, context: str = "",
                borrowed: frozenset[str] = frozenset()) -> list[Problem]:
    """Every problem of `reply` as an answer to `question` (`context`: the earlier question, for verdicts;
    `borrowed`: names from the writer's examples, which a reply must not bring in)."""
    if not reply.strip():
        return [Problem("empty", "the answer is empty")]
    problems = []
    if _DUMP.search(reply) or any(name in reply for name in facts.tool_names if len(name) > 3):
        problems.append(Problem("dump", "it contains tool output, a tool name, JSON, a link or an image: write "
                                        "plain sentences"))
    if not languages.same_language(reply, language):
        problems.append(Problem("language", f"it is not written in {languages.name(language)}"))
    invented = ungrounded_numbers(reply, facts.numbers)
    if invented:
        problems.append(Problem("numbers", f"it gives {', '.join(invented)}, which the facts do not contain; "
                                           "if the facts lack what is asked, say so instead"))
    days = unsupported_days(reply, facts.days)
    if days:
        problems.append(Problem("days", f"it names {', '.join(days)}, which the facts are not about; name only "
                                        "the days the facts give"))
    known_text = f"{question}\n{facts.text}"
    times = unsupported_times(reply, facts.text)  # asked for is not given
    if times:
        problems.append(Problem("times", f"it names {', '.join(times)}, a time of day the facts do not give; say "
                                         "what the facts cover instead"))
    names = sorted({name for name in [*_NAME.findall(reply), *(n for n in borrowed if n in reply)]
                    if name.lower() not in _CALENDAR_WORDS and name.lower() not in known_text.lower()})
    if names:
        problems.append(Problem("names", f"it names {', '.join(names)}, which the facts and the question do not"))
    missing = [term for term in _TERM.findall(question) if term in reply and term.lower() not in facts.text.lower()]
    if missing and not _REFUSAL.search(reply):
        problems.append(Problem("terms", f"it gives {', '.join(missing)}, which the facts do not contain: say that "
                                         "you do not have it"))
    repeated = _repeated_piece(reply)
    if repeated:
        problems.append(Problem("repetition", f"it repeats {repeated!r}: say each thing once"))
    if facts.numbers_of_data and not numbers_in(reply) and _REFUSAL.search(reply):
        problems.append(Problem("refusal", "it says the information is missing, but the facts give figures: answer "
                                           "with them"))
    misplaced = misattributed(reply, facts.text, question)
    if misplaced:
        problems.append(Problem("attribution", f"it says {', '.join(misplaced)} of a day the facts do not say it of; "
                                               "give each day what the facts give it"))
    problems += [Problem("verdict", detail) for detail in contradictions(reply, question, facts.verdicts, context)]
    return problems


def misattributed(reply: str, facts_text: str, question: str = "") -> list[str]:
    """What the reply says of a day (or of every day) that the facts say only of other days: "周六有中雨" when the
    rain is Sunday's, "moderate rain for the next 3 days" when only Thursday has it. Only the words and figures that
    tell the facts' days apart are held to their day."""
    parts, general = segments(facts_text)
    if len({part.days for part in parts}) < 2:
        return []
    by_part = [_tokens(part.text) for part in parts]
    shared = set.intersection(*by_part) | _tokens(general) | _tokens(question)  # the user's own words are free
    telling = set.union(*by_part) - shared
    wrong, days = [], set()
    for clause in _CLAUSE_SPLIT.split(reply):
        named = day_words(clause)
        if named & SPAN_WORDS:
            days = set()  # said of several days: the facts of any of them may be said
            continue
        days = named or days
        said = _tokens(clause) & telling
        if not said:
            continue
        allowed = set().union(*(tokens for part, tokens in zip(parts, by_part) if part.days & days)) if days else set()
        wrong += sorted(said - allowed)
    return list(dict.fromkeys(wrong))


def _tokens(text: str) -> set[str]:
    """Words (Latin words, Chinese character pairs) and figures, to compare what two texts say."""
    lowered = text.lower()
    pairs = {run[i:i + 2] for run in _HAN_RUN.findall(lowered) for i in range(len(run) - 1)}
    return pairs | set(_LATIN_WORD.findall(lowered)) | {f"{n:g}" for n in numbers_in(lowered)}


def asks_beyond(question: str, facts: Facts) -> bool:
    """Whether the question asks for a clock time or a named figure ("PM2.5") that the facts do not hold: an
    answer from them must say it lacks that, whatever else it gives."""
    times = unsupported_clock_times(question, facts.text)
    terms = [term for term in _TERM.findall(question) if term.lower() not in facts.text.lower()]
    return bool(times or terms)


def says_it_lacks(reply: str) -> bool:
    return bool(_REFUSAL.search(reply))


def _repeated_piece(reply: str) -> str | None:
    """A clause said three times or more: a model looping."""
    pieces = [piece.strip() for piece in _PIECE.split(reply) if len(piece.strip()) >= 4]
    return next((piece for piece in pieces if pieces.count(piece) >= 3), None)


def ungrounded_numbers(reply: str, known: list[float]) -> list[str]:
    """Numbers in the reply that the data does not hold (answers may round, or drop a sign after 零下)."""
    return [_shown(number) for number in numbers_in(reply)
            if not any(abs(abs(number) - abs(value)) < 0.051 or round(value) == number for value in known)]


def unusable(reply: str, language: str) -> bool:
    """Empty, markup or JSON, or in another language: not a reply to show, whatever the data."""
    return not reply.strip() or bool(_DUMP.search(reply)) or not languages.same_language(reply, language)


def invents_measurements(reply: str) -> bool:
    """Whether a reply with no data behind it states measurements (°C, km/h, mm, %)."""
    return bool(_MEASUREMENT.search(reply))


def is_yes_no_question(question: str) -> bool:
    """A question answered by yes or no (会下雨吗, 冷不冷, Will it rain)."""
    text = question.strip()
    return bool(_ZH_YES_NO.search(text) or _EN_YES_NO.match(text))


def relevant_verdicts(question: str, verdicts: list[dict[str, Any]], context: str = "") -> list[dict[str, Any]]:
    """The verdicts the question is about, by their keywords; a follow-up ("要带伞吗？" after a forecast)
    falls back on the earlier question's words."""
    for text in (question, context):
        lowered = text.lower()
        matched = [v for v in verdicts if any(str(word).lower() in lowered for word in v["keywords"])]
        if matched:
            return matched
    return []


def contradictions(reply: str, question: str, verdicts: list[dict[str, Any]], context: str = "") -> list[str]:
    """How the reply goes against the data's verdicts: a wrong yes/no, or a wrong winner named first."""
    details = []
    relevant = relevant_verdicts(question, verdicts, context)
    yes_no = [v for v in relevant if isinstance(v.get("holds"), bool)]
    if yes_no and is_yes_no_question(question) and len({v["holds"] for v in yes_no}) == 1:
        holds, statement = yes_no[0]["holds"], yes_no[0]["statement"]
        first = _FIRST_SENTENCE.match(reply.strip())[0].lower()
        if not _BARE_YES_NO.match(first) and not any(str(w).lower() in first for v in yes_no for w in v["keywords"]):
            details.append(f"it does not begin with the answer; the facts say: {statement}; begin with that")
        elif _says_no(reply) == holds:
            details.append(f"it answers {'no' if holds else 'yes'}, but the facts say: {statement}; begin with "
                           "that answer")
    for verdict in relevant:
        if verdict.get("winner") and isinstance(verdict.get("places"), list):
            named = _first_named(reply, verdict["places"])
            if named is not None and verdict["winner"] not in named:
                details.append(f"it names {named[0]} first, but the facts say: {verdict['statement']}; begin with "
                               "the place that wins")
    # Any comparison the reply makes, asked for or not ("Seoul gets more rain than Tokyo"), must name the
    # place the data says wins: the first one named, or the second one with "less".
    for verdict in verdicts:
        if not verdict.get("winner") or not isinstance(verdict.get("places"), list) or verdict in relevant:
            continue
        for clause in _CLAUSE_SPLIT.split(reply):
            lowered = clause.lower()
            if not _COMPARATIVE.search(lowered) or not any(str(w).lower() in lowered for w in verdict["keywords"]):
                continue
            order = _named_in_order(clause, verdict["places"])
            if len(order) < 2:
                continue
            said = order[-1] if _LESS.search(lowered) else order[0]
            if verdict["winner"] not in said:
                details.append(f"it says {clause.strip()!r}, but the facts say: {verdict['statement']}")
    return details


def _says_no(reply: str) -> bool:
    clause = _FIRST_CLAUSE.match(reply.strip())[0]
    return bool(_ZH_NEGATION.search(clause) or _EN_NEGATION.search(clause))


def _named_in_order(text: str, places: list[Any]) -> list[list[str]]:
    """The places the text names, in the order it first names them."""
    found = []
    for names in places:
        if isinstance(names, list):
            positions = [text.find(n) for n in names if isinstance(n, str) and n and n in text]
            if positions:
                found.append((min(positions), names))
    return [names for _, names in sorted(found, key=lambda item: item[0])]


def _first_named(reply: str, places: list[Any]) -> list[str] | None:
    """The names of the place the reply names first, or None when it names none of them."""
    first: tuple[int, list[str]] | None = None
    for names in places:
        if not isinstance(names, list):
            continue
        positions = [reply.find(name) for name in names if isinstance(name, str) and name and name in reply]
        if positions and (first is None or min(positions) < first[0]):
            first = (min(positions), names)
    return first[1] if first else None


def _shown(number: float) -> str:
    return f"{number:g}"
