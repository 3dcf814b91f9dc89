"""Whether a reply tells one story: what each of its clauses says yes or no to (a topic the data decides) agrees
with its other clauses and with the data's verdicts for the days and parts of the day it speaks of, and the days
it names are the asked ones, labelled as the facts label them. Which topics, and the words for no, come from the
vocabulary; the verdicts (`topic`, `holds`, `keywords`, `statement`) from the tool results."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcp_chat_app.chat.text.claims import says_it_lacks
from mcp_chat_app.chat.text.clock import clock_times, parts_of_day
from mcp_chat_app.chat.text.day_words import SPAN_WORDS, day_words, segments
from mcp_chat_app.chat.text.vocabulary import Vocabulary, words_pattern

_SENTENCE_END = "。.!！?？\n"
_CLAUSE_END = _SENTENCE_END + "，,;；"
_DIGIT = re.compile(r"\d")
_BRACKETED = re.compile(r"[（(]([^（()）]*)[）)]")
_LABEL_REACH = 12  # a bracket right after a day word labels it ("明天（周四）")


@dataclass(frozen=True)
class Claim:
    """One clause's yes or no on a topic, and what it is said of (no days: every day the reply speaks of)."""

    text: str
    says: bool
    days: frozenset[str]
    part: str  # the part of the day or clock time it names, "" for none
    before: str = ""  # its sentence up to it: what the clause speaks of may be named there


@dataclass(frozen=True)
class Subject:
    """What one result is about, by the words that name it, and its verdicts."""

    names: frozenset[str]
    verdicts: list[dict[str, Any]]


def inconsistencies(reply: str, question: str, facts_text: str, verdicts: list[dict[str, Any]],
                    vocabulary: Vocabulary, comparing: re.Pattern[str], one_result: bool = True,
                    subjects: Sequence[Subject] = ()) -> list[str]:
    """How the reply contradicts itself or the verdicts, each said for the writer's retry (`comparing`: a clause
    that compares places says more or less, not yes or no). Its clauses are held to each other only when one
    result decided the topic (`one_result`): a yes and a no may be said of two places; a clause that names one of
    the `subjects` of several results is held to that one's verdicts."""
    labels = [part.days for part in segments(facts_text)[0]]
    details = []
    for topic, words in vocabulary.claim_topics.items():
        about = [v for v in verdicts if v.get("topic") == topic and isinstance(v.get("holds"), bool)]
        keywords = tuple(str(word) for v in about for word in v["keywords"]) + words
        said = claims(reply, keywords, vocabulary, comparing)
        if about and one_result:
            details += _against_each_other(said)
        if about and len({v["holds"] for v in about}) == 1:
            details += _against_verdicts(said, about, labels)
        elif about:
            details += _against_each_subject(said, topic, subjects, labels)
    details += _days_against_question(reply, question, labels) + _next_weeks_day_unsaid(reply, question)
    details += _labels_against_facts(reply, labels)
    return list(dict.fromkeys(details))


def claims(reply: str, keywords: tuple[str, ...], vocabulary: Vocabulary,
           comparing: re.Pattern[str]) -> list[Claim]:
    """The clauses that say yes or no to a topic (by its words). A clause quoting a figure ("a 15% chance of it")
    only reports it, unless it says no; one naming other days ("其他几天", "until Sunday") is not held to its days."""
    topic = words_pattern(keywords, whole=False)
    if topic is None:
        return []
    found: list[Claim] = []
    for sentence in _split(reply, _SENTENCE_END):
        days = frozenset()  # a day carries over to the clauses after it, within its sentence
        before = ""
        for clause in _split(sentence, _CLAUSE_END):
            before, clause_before = f"{before} {clause}", before
            named = frozenset(day_words(clause))
            days = frozenset() if named & SPAN_WORDS else (named or days)
            if not topic.search(clause) or comparing.search(clause.lower()) or (
                    vocabulary.exception and vocabulary.exception.search(clause)):
                continue
            says = not (vocabulary.low_chance and vocabulary.low_chance.search(clause))
            if says and _DIGIT.search(clause):
                continue
            found.append(Claim(clause.strip(), says, days, _part(clause, vocabulary), clause_before))
    return found


def _against_each_other(said: list[Claim]) -> list[str]:
    """A yes and a no on one topic for the same day and part (or for every day)."""
    details = []
    for yes in (claim for claim in said if claim.says):
        for no in (claim for claim in said if not claim.says):
            if _overlap(yes.days, no.days) and (not yes.part or not no.part or yes.part == no.part):
                details.append(f"it says {yes.text!r} and also {no.text!r}: say one thing of each day")
    return details


def _against_verdicts(said: list[Claim], about: list[dict[str, Any]], labels: list[frozenset[str]]) -> list[str]:
    """Every clause against the data's yes or no for the days it names: a yes where the data says no; a no (not of
    one part of a day only) where it says yes for those days; a yes of other days than those the verdict names."""
    holds = about[0]["holds"]
    statement = "; ".join(dict.fromkeys(v["statement"] for v in about))
    named = _same_days(frozenset().union(*(day_words(v["statement"]) for v in about)) - SPAN_WORDS, labels)
    details = []
    for claim in said:
        if claim.says == holds:
            wrong = holds and named and claim.days and not _overlap(_same_days(claim.days, labels), named)
        else:
            wrong = not holds or (not claim.part and (not named or _overlap(_same_days(claim.days, labels), named)))
        if wrong:
            details.append(f"it says {claim.text!r}, but the facts say: {statement}")
    return details


def _against_each_subject(said: list[Claim], topic: str, subjects: Sequence[Subject],
                          labels: list[frozenset[str]]) -> list[str]:
    """Each clause against the verdicts of the one subject it speaks of, where the results disagree ("it will be
    busy in Asheville" beside Asheville's "it is not busy" and Chattanooga's yes): the subject the clause names,
    or else the last one its sentence named before it; a clause naming two is said of both, and left alone."""
    if len(subjects) < 2:
        return []
    details = []
    for claim in said:
        named = [subject for subject in subjects if _named_at(claim.text, subject)]
        if not named:
            earlier = [(max(at), subject) for subject in subjects if (at := _named_at(claim.before, subject))]
            named = [max(earlier, key=lambda pair: pair[0])[1]] if earlier else []
        about = [v for v in named[0].verdicts if v.get("topic") == topic and isinstance(v.get("holds"), bool)] \
            if len(named) == 1 else []
        if about and len({v["holds"] for v in about}) == 1:
            details += _against_verdicts([claim], about, labels)
    return details


def _named_at(text: str, subject: Subject) -> list[int]:
    """Where the text names the subject (by any of its words), as a word."""
    lowered = text.lower()
    return [match.start() for name in subject.names
            for match in re.finditer(rf"(?<![^\W\d_]){re.escape(name)}(?![^\W\d_])"
                                     if name.isascii() else re.escape(name), lowered)]


def _days_against_question(reply: str, question: str, labels: list[frozenset[str]]) -> list[str]:
    """A reply that names days, none of them one the question asks about ("tomorrow afternoon" for today). Only
    day words of one script are compared: "明日" asked, "tomorrow" answered is an answer in another language."""
    asked = frozenset(day_words(question)) - SPAN_WORDS
    named = frozenset(day_words(reply)) - SPAN_WORDS
    latin = {word.isascii() for word in asked}
    named = frozenset(word for word in named if word.isascii() in latin)
    if not asked or not named or named & _same_days(asked, labels) or says_it_lacks(reply):
        return []
    return [f"it speaks of {', '.join(sorted(named))}, but the question asks about {', '.join(sorted(asked))}: "
            "answer for the day asked"]


# A weekday of next week asked ("Thursday next week", "next week's Friday", "下周五"), and what says a reply means it
# too: next, 下周, or a date.
_WEEKDAY_STEMS = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
_NEXT_WEEKS_DAY = re.compile(rf"\b{_WEEKDAY_STEMS}\s+(?:of\s+)?next\s+week\b|\bnext\s+week['’]?s?\s+{_WEEKDAY_STEMS}\b"
                             r"|下个?(?:周|星期|礼拜)[一二三四五六日天]", re.IGNORECASE)
_SAYS_WHICH_WEEK = re.compile(rf"\bnext\b|下个?(?:周|星期|礼拜)|\d{{1,2}}\s*{_MONTHS}|{_MONTHS}[a-z]*\.?\s+\d{{1,2}}"
                              r"|\d{1,2}月\d{1,2}日", re.IGNORECASE)
_WEEKDAY_WORDS = re.compile(rf"\b{_WEEKDAY_STEMS}\b|(?:周|星期|礼拜)[一二三四五六日天]", re.IGNORECASE)


def _next_weeks_day_unsaid(reply: str, question: str) -> list[str]:
    """A weekday of next week answered by its name alone ("下周五几点开门" answered "周五15:50开门"; "Thursday next
    week" answered "on Thursday"), which reads as this week's."""
    if not _NEXT_WEEKS_DAY.search(question) or not _WEEKDAY_WORDS.search(reply) or _SAYS_WHICH_WEEK.search(reply):
        return []
    return ["it names the weekday alone, which reads as this week's; the question asks about next week's: name it "
            "as the facts do, with its date"]


def _labels_against_facts(reply: str, labels: list[frozenset[str]]) -> list[str]:
    """A day labelled with another day's name ("明天（周五）" where the facts say 明天 is 周四)."""
    details = []
    for match in _BRACKETED.finditer(reply):
        outer = frozenset(day_words(reply[max(0, match.start() - _LABEL_REACH):match.start()])) - SPAN_WORDS
        inner = frozenset(day_words(match[1])) - SPAN_WORDS
        together = outer | inner
        if not outer or not inner or any(together <= days for days in labels):
            continue
        if any(outer & days and len(days) > 1 for days in labels):
            details.append(f"it labels {', '.join(sorted(outer))} as {', '.join(sorted(inner))}, which the facts "
                           "do not: name the days as the facts name them")
    return details


def _same_days(days: frozenset[str], labels: list[frozenset[str]]) -> frozenset[str]:
    """The days with every name the facts give them together ("后天（12月4日 周五）"); 周一 may be said of 下周一."""
    days = days | {day[1:] for day in days if day.startswith("下周") and len(day) == 3} \
        | {f"下{day}" for day in days if day.startswith("周") and len(day) == 2}
    return days.union(*(label for label in labels if label & days))


def _overlap(first: frozenset[str], second: frozenset[str]) -> bool:
    """Whether two scopes share a day; no days is every day."""
    return not first or not second or bool(first & second)


def _part(clause: str, vocabulary: Vocabulary) -> str:
    times = [time.text for time in clock_times(clause, vocabulary)] + list(parts_of_day(clause, vocabulary))
    return times[0].lower() if times else ""


def _split(text: str, ends: str) -> list[str]:
    """The text cut after each of `ends`, except inside brackets ("expected (Mon, Tue)" is one clause)."""
    pieces, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in "(（":
            depth += 1
        elif char in ")）":
            depth = max(0, depth - 1)
        elif char in ends and not depth and not (char == "." and text[index + 1:index + 2].isdigit()):
            pieces.append(text[start:index])
            start = index + 1
    pieces.append(text[start:])
    return [piece for piece in pieces if piece.strip()]
