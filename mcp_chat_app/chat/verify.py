"""The check a reply must pass before anyone sees it: every number, name and time of day from the data, the
facts' days only, the verdicts' yes/no and winners, one story (no clause against another, the verdicts or the
asked day), the user's language, a refusal only where the facts do not answer (nor of a quantity they hold), and
nothing a person would not write (tool names, JSON, URLs, markdown images).

Each problem is said in words the writer can act on in its corrective retry.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from mcp_chat_app.chat.facts import TERM, Facts, asks_yes_no, degree_asked, numbers_in, verdicts_about
from mcp_chat_app.chat.text import languages
from mcp_chat_app.chat.text.calendar_dates import calendar_dates
from mcp_chat_app.chat.text.claims import (
    in_english_instead,
    is_output,
    says_it_lacks,
    states_measurements,
    unusable,
)
from mcp_chat_app.chat.text.clock import clock_times, unsupported_times, without_clock_times
from mcp_chat_app.chat.text.consistency import Subject, inconsistencies
from mcp_chat_app.chat.text.day_words import (
    COUNT_OF_THINGS,
    SPAN_WORDS,
    day_references,
    day_words,
    segments,
    unsupported_days,
    unsupported_present,
)
from mcp_chat_app.chat.text.quantities import Quantity, asked_quantities
from mcp_chat_app.chat.text.repetition import looping_opening, repeated_piece
from mcp_chat_app.chat.text.vocabulary import Vocabulary
from mcp_chat_app.chat.turn import Turn

if TYPE_CHECKING:  # the writer streams its drafts through this check (write imports verify)
    from mcp_chat_app.chat.write import Draft

log = logging.getLogger(__name__)

# The first clause of an answer carries its yes or no.
_FIRST_CLAUSE = re.compile(r"^[^，。,.!！?？;；:：\n]*")
_BARE_YES_NO = re.compile(r"^\s*(是|会|要|需要|有|不|没|yes\b|no\b)", re.IGNORECASE)
_FIRST_SENTENCE = re.compile(r"^[^。！？.!?\n]*")
# A reply's first clause when it is a bare yes or no alone.
_BARE_YES = ("yes", "yeah", "yep", "是的", "是", "对", "对的")
_BARE_WORD = re.compile("|".join((*_BARE_YES, "no", "nope", "不是")), re.IGNORECASE)
_NAME = re.compile(r"(?<![.!?。！？]\s)(?<!^)\b[A-Z][a-z]{2,}\b")
_SENTENCE_SPLIT = re.compile(r"[。!！?？\n]|\.(?!\d)")
_THAN = re.compile(r"\bthan\b|比")
_CLAUSE_SPLIT = re.compile(r"[，,;；。!！?？\n]|\.(?!\d)")
# A question that asks for a figure ("How much fell?", "多少", "几度", "大不大"): a yes or a no is not its answer.
_ASKS_A_FIGURE = re.compile(r"\bhow\s+(?:much|many|high|low|strong)\b|多少|几度|多高|多大|大不大|多不多|高不高|强不强",
                            re.IGNORECASE)
# So many verdicts in a yes-or-no answer with no figure are a list copied from the facts, not an answer.
_VERDICT_LIST = 3
# A question that asks what something is like ("what's it like", "how's X looking", "怎么样"): a yes or a no beside
# it does not answer it.
_ASKS_WHAT_IT_IS_LIKE = re.compile(r"\bwhat(?:'s|’s| is| are)\s+(?:it|things)\s+like\b|\bhow(?:'s|’s| is| are)\s+"
                                   r"(?:it|things|\w+)\s+looking\b|怎么样|咋样|如何", re.IGNORECASE)
_ISO_CLOCK = re.compile(r"T(\d{2}):(\d{2})")  # the time of day of an ISO date-time
_HAN_RUN = re.compile(r"[\u3400-\u9fff]{2,}")
# Comparing two things, in the languages fully served (the domain adds its own words); "less" and "少" put the
# winner second.
_COMPARATIVES = ("more", "less", "fewer", "than", "更", "比", "较", "最")  # (最: of three places or more)
_LESSER = ("less", "fewer", "lower", "smaller", "少", "低于", "更小", "较小", "更低", "较低", "最小", "最低")
_LATIN_WORD = re.compile(r"[a-z]{3,}")
_CALENDAR_WORDS = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january",
                   "february", "march", "april", "june", "july", "august", "september", "october", "november",
                   "december"}


@dataclass(frozen=True)
class Problem:
    """One reason a reply cannot go out."""

    rule: str  # empty, dump, language, numbers, days, verdict, consistency, refusal, ...
    detail: str  # for the writer's corrective retry


@dataclass(frozen=True)
class Check:
    """The verdict on a draft: the text to show (`accepted`), or why it cannot go out."""

    accepted: str | None = None  # with the note before an English answer where one is needed
    problems: tuple[Problem, ...] = ()
    rules: frozenset[str] = frozenset()  # broken by this draft and the ones it replaced
    may_retry: bool = False  # a first written draft: the writer gets one corrective retry
    lacks_asked: bool = False  # the accepted answer must first say it lacks what the question asked for (missing)
    # An own answer rejected: "no_tools" (it made up data with none connected), "cannot_answer", or "identity" (it
    # claimed to be another company's model).
    fallback: str = ""

    @property
    def reasons(self) -> list[str]:
        return [problem.detail for problem in self.problems]


def verify(turn: Turn, facts: Facts, draft: Draft) -> Check:
    """The check of a draft; a streaming client is shown the rest of one that passes (release.py), and what it
    was shown of a rejected one is withdrawn (`rewrite`)."""
    if draft.kind == "own":
        return _check_own(turn, draft)
    if draft.kind != "written":
        turn.shown.discard()  # nothing written: the facts themselves are the answer
        return Check()
    problems = _problems(turn, facts, draft.text)
    accepted = _accepted(draft.text, problems, turn.language, turn.vocabulary)
    if accepted is not None:
        turn.shown.accept()
        # "下午两点" answered with the day's figures: true, but not what was asked; the answer says so first.
        return Check(accepted, lacks_asked=bool(facts.missing) and not says_it_lacks(accepted))
    log.info("answer %d rejected (%s): %r", draft.attempt, "; ".join(p.detail for p in problems), draft.text)
    turn.shown.discard([problem.rule for problem in problems])
    return Check(problems=tuple(problems), rules=draft.rules_before | {problem.rule for problem in problems},
                 may_retry=draft.attempt == 1)


def _check_own(turn: Turn, draft: Draft) -> Check:
    """The assistant's own answer (no tool result behind it) goes out unless it makes up data or cannot be read."""
    vocabulary = turn.vocabulary
    connected = draft.tools_offered or not turn.use_tools
    problems = [Problem("language", "")] if unusable(draft.text, turn.language, vocabulary) else []
    accepted = _accepted(draft.text, problems, turn.language, vocabulary)
    asked_who = turn.assistant.asked_who(turn.question)
    if turn.assistant.claims_to_be_another(draft.text) or (asked_who and not turn.assistant.says_its_name(draft.text)):
        fallback = "identity"  # "我是由MCP开发的。": not its name
    elif not connected and states_measurements(draft.text, vocabulary):
        fallback = "no_tools"
    elif accepted is None or (draft.tools_offered and states_measurements(accepted, vocabulary)):
        # Figures with no tool behind them are made up; asked who it is, its introduction answers ("不是的，我是" and its
        # English name is its name, in the wrong language).
        fallback = "identity" if asked_who else "cannot_answer"
    else:
        turn.shown.accept()
        return Check(accepted)
    turn.shown.discard([problem.rule for problem in problems])
    return Check(problems=tuple(problems), fallback=fallback)


def passes_so_far(turn: Turn, facts: Facts) -> Callable[[str], bool]:
    """Whether a written draft's text so far may be shown: it breaks no rule of the check. Every rule applies to
    a beginning but "empty": one it breaks there is broken for good, or mended only by what follows (then the
    text waits for the whole check)."""
    return lambda text: all(problem.rule == "empty" for problem in _problems(turn, facts, text))


def _problems(turn: Turn, facts: Facts, text: str) -> list[Problem]:
    return check_reply(text, turn.question, turn.language, facts, turn.vocabulary, turn.earlier_question,
                       frozenset(turn.assistant.example_names), turn.today)


def check_reply(reply: str, question: str, language: str, facts: Facts, vocabulary: Vocabulary, context: str = "",
                borrowed: frozenset[str] = frozenset(), today: dt.date | None = None) -> list[Problem]:
    """Every problem of `reply` as an answer to `question` (`context`: the earlier question, for verdicts;
    `borrowed`: names from the writer's examples, which a reply must not bring in; `today`: the turn's date)."""
    if not reply.strip():
        return [Problem("empty", "the answer is empty")]
    problems = []
    if is_output(reply) or any(name in reply for name in facts.tool_names if len(name) > 3):
        problems.append(Problem("dump", "it contains tool output, a tool name, JSON, a link or an image: write "
                                        "plain sentences"))
    if not languages.same_language(reply, language, vocabulary):
        problems.append(Problem("language", f"it is not written in {languages.name(language)}"))
    invented = ungrounded_numbers(reply, facts.numbers)
    if invented:
        problems.append(Problem("numbers", f"it gives {', '.join(invented)}, which the facts do not contain; "
                                           "if the facts lack what is asked, say so instead"))
    echoed = [] if invented else bounds_given_as_figures(without_clock_times(reply, vocabulary), question, facts.text)
    if echoed:
        problems.append(Problem("numbers", f"it gives {', '.join(echoed)} as a figure, but it is the question's own "
                                           "bound, not in the facts: quote the facts' figure and say how it compares"))
    # A figure converted by the writer is made up ("30.7 mi (19.8 km)", 19.8 being another figure in miles): the
    # facts' own units only.
    in_facts = vocabulary.unit_systems_named(facts.text)
    if in_facts and vocabulary.unit_systems_named(reply) - in_facts:
        problems.append(Problem("units", "it gives figures in units the facts do not use: quote the facts' figures "
                                         "with their own units"))
    days = unsupported_days(reply, facts.days)
    present = unsupported_present(reply, facts.days, today or dt.date.today())
    days += [present] if present else []
    if days:
        problems.append(Problem("days", f"it names {', '.join(days)}, which the facts are not about; name only "
                                        "the days the facts give"))
    known_text = f"{question}\n{facts.text}"
    times = unsupported_times(reply, facts.text, vocabulary)  # asked for is not given
    if times:
        problems.append(Problem("times", f"it names {', '.join(times)}, a time of day the facts do not give; say "
                                         "what the facts cover instead"))
    names = sorted({name for name in [*_NAME.findall(reply), *(n for n in borrowed if n in reply)]
                    if name.lower() not in _CALENDAR_WORDS | vocabulary.plain_words
                    and name.lower() not in known_text.lower()})
    if names:
        problems.append(Problem("names", f"it names {', '.join(names)}, which the facts and the question do not"))
    missing = [term for term in TERM.findall(question) if term in reply and term.lower() not in facts.text.lower()
               and term.lower() not in facts.argued]
    if missing and not says_it_lacks(reply):
        problems.append(Problem("terms", f"it gives {', '.join(missing)}, which the facts do not contain: say that "
                                         "you do not have it"))
    repeated = repeated_piece(reply)
    if repeated:
        problems.append(Problem("repetition", f"it repeats {repeated!r}: say each thing once"))
    elif opening := looping_opening(reply, known_text):
        problems.append(Problem("repetition", f"it keeps beginning with {opening!r} things the facts do not say: "
                                              "answer only what was asked, from the facts"))
    if facts.numbers_of_data and not says_it_lacks(reply) \
            and (_ASKS_A_FIGURE.search(question) or (any(clock_times(question, vocabulary)) and not facts.missing)) \
            and not numbers_in(without_clock_times(reply, vocabulary)):  # "at 5 pm" is the hour, no figure of it
        # "How much", or a clock time ("后天下午3点…吗"): a yes or a no alone leaves out what that hour measures.
        problems.append(Problem("figure", "the question asks how much or of a time of day, and it gives no "
                                          "figure: quote the facts' figure for it"))
    elif facts.numbers_of_data and not says_it_lacks(reply) and any(clock_times(question, vocabulary)) \
            and (figures := topic_figures(question, facts, context)) \
            and not any(_same_figure(said, value) for said in numbers_in(without_clock_times(reply, vocabulary))
                        for value in figures):
        # "Will it happen at 8 am?" answered with the verdict and another figure of that hour: the figure the yes
        # or no rests on is the one of the topic asked (its chance, its amount).
        problems.append(Problem("figure", "the question asks whether something happens at a time of day, and it "
                                          "gives none of the facts' figures about it: quote them"))
    elif facts.numbers_of_data and not says_it_lacks(reply) and not _measured_figures(reply, vocabulary, today) \
            and any(verdict.get("winner") or isinstance(verdict.get("places"), list)
                    for verdict in verdicts_about(question, facts.verdicts, context)):
        # "which one's hotter?" answered with the winner alone (or a chain of every comparison's winner), or a tie
        # with no figure ("临安多，上虞少，两地一样多"): the figures that make the winner, or the tie, are
        # what the reader checks it by.
        problems.append(Problem("figure", "it names the winner without a figure: quote the facts' figures that "
                                          "make it the winner"))
    elif _asks_a_past_day(question, today or dt.date.today()) and states_measurements(facts.text, vocabulary) \
            and not states_measurements(reply, vocabulary) and not says_it_lacks(reply):
        # Asked of a past day ("...yesterday?"), a yes or a no alone leaves out what the day measured.
        problems.append(Problem("figure", "the question asks about a past day, and it gives no measured figure: "
                                          "quote the facts' figure for it"))
    elif facts.numbers_of_data and not says_it_lacks(reply) and not numbers_in(reply) and not facts.pictured \
            and _says_verdicts(reply, facts.verdicts) \
            and (_ASKS_WHAT_IT_IS_LIKE.search(question) or not asks_yes_no(question, "", list(facts.asked), [])
                 or _verdicts_said(reply, facts.verdicts) >= _VERDICT_LIST):
        # "Astana rn - cold out?" answered "It is cold, it is not windy", "那 Leipzig 呢" with "风不大，很冷": the
        # verdicts with none of the figures behind them, which the reader cannot check. (A yes or no
        # asked in so many words may stand on its verdict, unless the question also asks what it is like: "what's it
        # like outside rn, is it chilly?"; a chart shows its figures. Not a list of verdicts, which is what a model
        # drifting along the facts writes: "No, it is closed, it is not busy, it is not cheap, Madrid, on Saturday".
        # Nor a bare follow-up of a yes or no, which asks of a new place or time: "卡塔赫纳现在呢" after "那天卡塔赫纳
        # 下…吗" was answered "现在没有…" alone.)
        problems.append(Problem("figure", "it gives verdicts without the facts' figures behind them: quote the "
                                          "figures the question is about"))
    if facts.numbers_of_data and not numbers_in(reply) and says_it_lacks(reply):
        problems.append(Problem("refusal", "it says the information is missing, but the facts give figures: answer "
                                           "with them"))
    denied = denied_quantities(reply, facts)
    if denied:
        problems.append(Problem("refusal", f"it says {', '.join(denied)} is not available, but the facts give it: "
                                           "quote it"))
    unquoted = unquoted_quantities(reply, facts, vocabulary)
    if unquoted:
        problems.append(Problem("unquoted", f"the question asks for {', '.join(unquoted)}, which the facts give, "
                                            "and it does not say it: quote it"))
    claimed = claimed_missing(reply, facts)
    if claimed:
        problems.append(Problem("lacking", f"it speaks of {', '.join(claimed)} as if the facts gave it; they do not: "
                                           "say that you do not have it, then give what the facts say"))
    chances = unfounded_chances(reply, facts.text)
    if chances:
        problems.append(Problem("attribution", f"it gives {', '.join(chances)} as a chance, which the facts give no "
                                               "chance as: quote each figure with what the facts say it is"))
    misplaced = misattributed(reply, facts.text, question)
    if misplaced:
        problems.append(Problem("attribution", f"it says {', '.join(misplaced)} of a day the facts do not say it of; "
                                               "give each day what the facts give it"))
    problems += [Problem("verdict", detail)
                 for detail in contradictions(reply, question, facts.verdicts, vocabulary, context, facts.asked)]
    comparing = comparison_patterns(vocabulary.comparatives, vocabulary.lesser_comparatives)[0]
    problems += [Problem("consistency", detail)
                 for detail in inconsistencies(reply, question, facts.text, facts.verdicts, vocabulary, comparing,
                                               len(facts.findings) == 1, _subjects(facts))]
    return problems


def _subjects(facts: Facts) -> list[Subject]:
    """The results of one subject each, named apart: two calls of the same place are one subject's."""
    subjects = [Subject(finding.names, finding.verdicts) for finding in facts.findings if finding.names]
    return subjects if all(not (a.names & b.names) for i, a in enumerate(subjects) for b in subjects[i + 1:]) else []


def _measured_figures(reply: str, vocabulary: Vocabulary, today: dt.date | None) -> list[float]:
    """The reply's figures less its clock times, dates and counts of days: "Cadiz wins over Tarifa on Saturday 12
    December" quotes no figure of what it wins by."""
    text = without_clock_times(reply, vocabulary)
    for words in calendar_dates(text, today or dt.date.today()):
        text = text.replace(words, " ")
    return numbers_in(COUNT_OF_THINGS.sub(" ", text))


def topic_figures(question: str, facts: Facts, context: str = "") -> list[float]:
    """The figures of the facts' clauses that speak of what a yes/no question asks (the topic's chance, for "will
    it happen?"): the clauses holding a keyword of a verdict the question is about."""
    words = [str(word).lower() for verdict in verdicts_about(question, facts.verdicts, context)
             for word in verdict.get("keywords", ()) if word]
    clauses = [clause for clause in _CLAUSE_SPLIT.split(facts.text) if any(w in clause.lower() for w in words)]
    return numbers_in(" ".join(clauses))


def _says_verdicts(reply: str, verdicts: list[dict[str, Any]]) -> bool:
    """Whether the reply speaks of a verdict of the facts (one of its keywords)."""
    return _verdicts_said(reply, verdicts) > 0


def _verdicts_said(reply: str, verdicts: list[dict[str, Any]]) -> int:
    """How many of the facts' verdicts the reply speaks of (by their keywords)."""
    lowered = reply.lower()
    return sum(any(str(word).lower() in lowered for word in verdict.get("keywords", ()) if word)
               for verdict in verdicts)


def _asks_a_past_day(question: str, today: dt.date) -> bool:
    """Whether the question names a day before `today` ("yesterday", 前天, a past date)."""
    return any(offset is not None and offset < 0 for offset in day_references(question, today).values())


def denied_quantities(reply: str, facts: Facts) -> list[str]:
    """The asked quantities the facts hold that the reply says it does not have: by name ("no UV data"), or all
    of them when it says something is missing and nothing asked for is."""
    held = [q for q in facts.asked if q.word not in facts.missing]
    refusals = [clause for clause in _CLAUSE_SPLIT.split(reply) if says_it_lacks(clause)]
    if not held or not refusals:
        return []
    named = [q.word for q in held if any(q.named_in(clause) for clause in refusals)]
    return named or ([q.word for q in held] if not facts.missing else [])


def unquoted_quantities(reply: str, facts: Facts, vocabulary: Vocabulary) -> list[str]:
    """The asked quantities the results hold that the reply gives no value of: "and sunset?" answered with the
    sunrise; "后天PM10高不高" answered "PM10高" beside the PM2.5 figure (named, not quoted)."""
    numbers = numbers_in(reply)
    minutes = {minute for time in clock_times(reply, vocabulary) for minute in time.minutes}

    def quoted(value: Any) -> bool:
        if isinstance(value, str):  # a time of day ("2026-12-05T20:07"), however the reply writes it
            clock = _ISO_CLOCK.search(value)
            return bool(clock) and int(clock[1]) * 60 + int(clock[2]) in minutes
        return isinstance(value, (int, float)) and not isinstance(value, bool) \
            and any(_same_figure(number, value) for number in numbers)

    return [quantity.word for quantity in facts.asked if quantity.word in facts.asked_values
            and not any(map(quoted, facts.asked_values[quantity.word]))]


def claimed_missing(reply: str, facts: Facts) -> list[str]:
    """What the question asks for and no result holds (`facts.missing`) that the reply names outside a sentence
    saying it is lacking: "the tide is 19.2" of another figure, "Berlin on New Year's Day 2020 was 0.1" of
    today's."""
    claims = [sentence.casefold() for sentence in _SENTENCE_SPLIT.split(reply) if not says_it_lacks(sentence)]
    return [word for word in facts.missing if any(word.casefold() in sentence for sentence in claims)]


# A figure given as a chance or a probability ("87% chance", "概率87%", "87%的可能"), in the facts or a reply.
_CHANCE = re.compile(r"(\d+(?:\.\d+)?)\s*%\s*(?:chance|probability|likelihood|的?(?:概率|可能|几率))"
                     r"|(?:chance|probability|likelihood|概率|可能性|几率)[^\d%。.;；]{0,30}?(\d+(?:\.\d+)?)\s*%",
                     re.IGNORECASE)


def unfounded_chances(reply: str, facts_text: str) -> list[str]:
    """The chances the reply gives that the facts give as no chance, where they give some: another figure of them
    called a chance ("87% chance of X" of an 87% cover, where X's chance is 40%)."""
    known = {float(a or b) for a, b in _CHANCE.findall(facts_text)}
    if not known:
        return []
    return [f"{a or b}%" for a, b in _CHANCE.findall(reply) if float(a or b) not in known]


def misattributed(reply: str, facts_text: str, question: str = "") -> list[str]:
    """What the reply says of a day (or of every day) that the facts say only of other days: "周六有空" when only
    Sunday is free, "busy for the next 3 days" when only Thursday is. Only the words and figures that tell the
    facts' days apart are held to their day."""
    parts, general = segments(facts_text)
    if len({part.days for part in parts}) < 2:
        return []
    by_part = [_tokens(part.text) for part in parts]
    # The figures a day's part holds stay that day's where the rest repeats them too ("Over these 2 days: -3.2 to
    # 5.8" beside "today -3.2 to 5.8"): "yesterday's low was -3.2" had passed.
    figures = {token for token in set.union(*by_part) if _FIGURE.fullmatch(token)}
    shared = set.intersection(*by_part) | (_tokens(general) - figures) | _tokens(question)  # the user's words are free
    telling = set.union(*by_part) - shared
    wrong, days = [], set()
    for clause in _CLAUSE_SPLIT.split(reply):
        named = day_words(clause)
        if named & SPAN_WORDS or _SEVERAL_DAYS.search(clause):
            days = set()  # said of several days: the facts of any of them may be said
            continue
        days = named or days
        said = _tokens(clause) & telling
        if not said:
            continue
        allowed = set().union(*(tokens for part, tokens in zip(parts, by_part) if part.days & days)) if days else set()
        wrong += sorted(said - allowed)
    return list(dict.fromkeys(wrong))


# Days said together by their count ("over both days", "这两天"): what is said of them may be any one's.
_SEVERAL_DAYS = re.compile(r"\b(?:both|these|those|the|all|over|across)\s+(?:\d+|two|three|four|five|six|seven)?\s*"
                           r"days\b|\b(?:every|each)\s+day\b|[这那]?[两二三四五六七几]天|每天", re.IGNORECASE)


def _tokens(text: str) -> set[str]:
    """Words (Latin words, Chinese character pairs) and figures, to compare what two texts say."""
    lowered = text.lower()
    pairs = {run[i:i + 2] for run in _HAN_RUN.findall(lowered) for i in range(len(run) - 1)}
    return pairs | set(_LATIN_WORD.findall(lowered)) | {f"{n:g}" for n in numbers_in(lowered)}


# Words a bound the question set is said with in a reply ("not above 40", "不会上40", "under 5?").
_BOUND_BEFORE = re.compile(r"(?:above|over|under|below|than|beyond|exceed\w*|past|hit|reach\w*|top|from|least|most|"
                           r"up to|around|about|near|not|n't|no|vs\.?|versus|超过|超|上|过|高于|低于|不到|到|破|达|过了|不是|没有|没|未)"
                           r"\s*$", re.IGNORECASE)
_BOUND_AFTER = re.compile(r"\s*\S{0,4}?\s*(?:以上|以下|以内|or (?:more|less|above|below|higher|lower)|\+|[?？])")
_FIGURE = re.compile(r"(?<![A-Za-z\d.-])[-−]?\d+(?:\.\d+)?")  # a figure, not the digits of a code ("m00024")


def bounds_given_as_figures(reply: str, question: str, facts_text: str) -> list[str]:
    """Numbers the reply takes from the question, not the facts, and says as figures of their own, with no word of
    a bound beside them: asked "will it go above 40?", "the high is 40" made the bound a figure."""
    asked, known = numbers_in(question), numbers_in(facts_text)
    echoed = []
    for match in _FIGURE.finditer(reply):
        number = float(match[0].replace("−", "-"))
        if any(_same_figure(number, value) for value in known) or not any(number == value for value in asked):
            continue
        if not _BOUND_BEFORE.search(reply[max(0, match.start() - 10):match.start()]) \
                and not _BOUND_AFTER.match(reply, match.end()) and match.start() > 0:
            echoed.append(match[0])
    return echoed


def ungrounded_numbers(reply: str, known: list[float]) -> list[str]:
    """Numbers in the reply that the data does not hold (answers may round, or drop a sign after 零下)."""
    return [_shown(number) for number in numbers_in(reply) if not any(_same_figure(number, value) for value in known)]


def _same_figure(said: float, value: float) -> bool:
    """Whether a figure said is the value, rounded or without its sign (after 零下)."""
    return abs(abs(said) - abs(value)) < 0.051 or round(value) == said


def contradictions(reply: str, question: str, verdicts: list[dict[str, Any]], vocabulary: Vocabulary,
                   context: str = "", asked: Sequence[Quantity] | None = None) -> list[str]:
    """How the reply goes against the data's verdicts: a wrong yes/no, or a wrong winner named first (`asked`:
    the quantities the question names, as the facts read them; read here when not given)."""
    details = []
    relevant = verdicts_about(question, verdicts, context)
    yes_no = [v for v in relevant if isinstance(v.get("holds"), bool)]
    agreed = yes_no and len({v["holds"] for v in yes_no}) == 1
    asked = asked_quantities(question, vocabulary) if asked is None else asked
    if agreed and asks_yes_no(question, context, list(asked), yes_no):
        holds, statement = yes_no[0]["holds"], yes_no[0]["statement"]
        first = _FIRST_SENTENCE.match(reply.strip())[0].lower()
        if not _BARE_YES_NO.match(first) and not _says_verdicts(first, yes_no):
            details.append(f"it does not begin with the answer; the facts say: {statement}; begin with that")
        elif _says_no(reply, vocabulary) == holds:
            details.append(f"it answers {'no' if holds else 'yes'}, but the facts say: {statement}; begin with "
                           "that answer")
    elif agreed and (asked := degree_asked(question, yes_no)):
        said = next((clause for clause in _CLAUSE_SPLIT.split(reply) if _says_verdicts(clause, asked)), None)
        if said is None:
            details.append(f"the question asks how much of it, and it does not say; the facts say: "
                           f"{asked[0]['statement']}; say that with the figures")
        elif vocabulary.negation is not None and bool(vocabulary.negation.search(said)) == asked[0]["holds"]:
            # "…成啥样" (how much of it) answered with the verdict's word and no negation, the facts saying the opposite
            details.append(f"it says {said.strip()!r}, but the facts say: {asked[0]['statement']}; say that")
    if (said := _yes_then_no(reply, f"{question}\n{context}", yes_no, vocabulary)) is not None:
        details.append(f"its first words say {said!r} and the words after them the opposite: answer one way")
    for verdict in relevant:
        if verdict.get("winner") and isinstance(verdict.get("places"), list):
            named = _first_named(reply, verdict["places"])
            if named is not None and verdict["winner"] not in named:
                details.append(f"it names {named[0]} first, but the facts say: {verdict['statement']}; begin with "
                               "the place that wins")
    # Any comparison the reply makes, asked for or not ("Lyon has more of it than Nice"), must name the place
    # the data says wins: the first one named, or the second one with "less".
    comparative, lesser = comparison_patterns(vocabulary.comparatives, vocabulary.lesser_comparatives)
    for verdict in verdicts:
        if not verdict.get("winner") or not isinstance(verdict.get("places"), list) or verdict in relevant:
            continue
        for clause in _CLAUSE_SPLIT.split(reply):
            lowered = clause.lower()
            said_words = [str(w).lower() for w in verdict["keywords"] if str(w).lower() in lowered]
            if not comparative.search(lowered) or not said_words:
                continue
            order = _named_in_order(clause, verdict["places"])
            # One place said to have more of it ("哈尔滨更暖和" beside 长春) is said to win, and one said to have
            # less to lose; not where "than" (比) names the other by a word that is no place of the verdict's.
            if not order or (len(order) == 1 and _THAN.search(lowered)):
                continue
            # A verdict whose own words compare down ("less crowded") names its winner first with them.
            down = lesser.search(lowered) and not any(lesser.search(word) for word in said_words)
            said = order[-1] if down else order[0]
            if (verdict["winner"] in said) is (len(order) == 1 and bool(down)):
                details.append(f"it says {clause.strip()!r}, but the facts say: {verdict['statement']}")
    return details


@lru_cache(maxsize=8)
def comparison_patterns(more: tuple[str, ...], less: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The patterns of comparing, and of comparing down, with the domain's words added to any domain's."""
    return _words_pattern((*_COMPARATIVES[:4], *more, *_COMPARATIVES[4:])), _words_pattern((*_LESSER, *less))


def _words_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """Latin words as whole words, any others (Chinese) as they stand."""
    latin = [re.escape(word) for word in words if word.isascii()]
    others = [re.escape(word) for word in words if not word.isascii()]
    return re.compile("|".join(([rf"\b({'|'.join(latin)})\b"] if latin else []) + others))


def _accepted(reply: str, problems: list[Problem], language: str, vocabulary: Vocabulary) -> str | None:
    """The reply to show, if any: one without problems, or an English one (with a note) to a question in a
    language the assistant does not fully serve."""
    if not problems:
        return reply
    if {p.rule for p in problems} == {"language"} and in_english_instead(reply, language, vocabulary):
        return f"{languages.english_follows(language)} {reply}"
    return None


def _yes_then_no(reply: str, question: str, yes_no: list[dict[str, Any]], vocabulary: Vocabulary) -> str | None:
    """A bare "yes" or "no" the clause right after it goes against ("Yes, it will not …", "是的，不会…"), where the
    question and that clause name the same yes/no verdict's topic (a "yes" to "will it stay …?" may go on "it will
    not …"), or None."""
    clauses = _CLAUSE_SPLIT.split(reply.strip(), maxsplit=2)
    bare = _BARE_WORD.fullmatch(clauses[0].strip())
    if bare is None or len(clauses) < 2 or vocabulary.negation is None:
        return None
    keywords = {str(word).lower() for verdict in yes_no for word in verdict["keywords"]}
    if not any(word in question.lower() and word in clauses[1].lower() for word in keywords):
        return None
    says_yes = bare[0].lower() in _BARE_YES
    return bare[0] if says_yes == bool(vocabulary.negation.search(clauses[1])) else None


def _says_no(reply: str, vocabulary: Vocabulary) -> bool:
    clause = _FIRST_CLAUSE.match(reply.strip())[0]
    return bool(vocabulary.negation and vocabulary.negation.search(clause))


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
