"""Facts: what the tool calls established, in the shape the writer reads and the checker checks against.

From any MCP server: each result's text (a server that words its results in the asked locale gives the writer
sentences in the user's language), every number in the data, the days its text names, and the failures. From
servers that offer them, two conventions in `structuredContent`:
- `notice`: a sentence the user must see (e.g. that the data is simulated); the gateway adds it to the reply,
  so it is cut from what the writer reads;
- `verdicts`: conclusions the data decides (`topic`, `holds` or `winner`, `statement`, `keywords`), which the
  reply must not contradict; the one a question asks about is what its answer begins with (`lead`).

A quantity the question asks for by name (the vocabulary's `quantities`) that a result holds but its text leaves
out is added to what the writer reads, with its values; what no result holds is `missing`, and only that is
said to be lacking; when the results hold none of the quantities asked for, that is all the answer says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from mcp_chat_app.chat import conversation
from mcp_chat_app.chat.call import Called
from mcp_chat_app.chat.notices import Notice, approval_notice, result_notice, unread_notice
from mcp_chat_app.chat.text import languages
from mcp_chat_app.chat.text.claims import is_yes_no_question, question_parts
from mcp_chat_app.chat.text.clock import unsupported_clock_times
from mcp_chat_app.chat.text.calendar_dates import calendar_dates
from mcp_chat_app.chat.text.day_words import asked_day, day_words
from mcp_chat_app.chat.text.quantities import Quantity, asked_quantities, field_matches, field_names, holds
from mcp_chat_app.chat.text.result_view import data_view, essentials, field_values, leaves, measured, results_today
from mcp_chat_app.chat.text.shown import shown_beside
from mcp_chat_app.chat.text.vocabulary import inside_another
from mcp_chat_app.chat.turn import Turn
from mcp_chat_app.mcp_client.results import ToolOutcome, tool_error_text

# A minus right after a digit is a separator ("2026-11-30"), not a sign.
_NUMBER = re.compile(r"(?<![\d.])[-−]?\d+(?:\.\d+)?")
_MAX_PROSE_CHARS = 2000  # a server's text longer than this is a dump, not a summary
_MAX_PAIRS = 12
_RECORD_SEPARATOR = re.compile(r"；|; ")
# The degree of a verdict's topic asked ("how hot will it get", "有多冷"): the answer gives the verdict too.
_HOW = r"(?:\bhow\s+|多|\b(?:chances?|odds|likelihood|probability)\s+of\s+(?:any\s+|some\s+)?)"
# A question word: "how hot?" or "which is hot?" asks more than yes or no.
_WH = re.compile(r"\b(?:what|whats|how|when|where|which|who|why)\b")
# ... and in Chinese (吗 and its kin ask yes or no already: claims.is_yes_no_question)
_ZH_WH = re.compile(r"什么|啥|哪|几|多少|怎|如何|为什么|多[高低大小冷热暖久远]|吗|(?<![这那])么|嘛")
# "…的概率多大": the chance of it, after its word; "热成啥样" ("how hot will it get"): its degree
_HOW_AFTER = r"的?(?:概率|几率|可能性|可能)|成(?:啥|什么|怎么|怎)样"
_WORD = re.compile(r"[A-Za-z0-9.]+")
# Terms a question may ask for by name (a pollutant, an index): a reply that gives one the facts lack made it up.
# Chat's capitals name nothing measured ("OK, what about this Friday?" was answered "the data does not include
# OK", "Should we move the BBQ indoors?" "… does not include BBQ").
_NOT_TERMS = ("OK", "BBQ", "LOL", "BTW", "FYI", "ASAP", "IMO", "TBH", "OMG", "IDK", "TV", "AM", "PM", "USA", "UK",
              "NYC", "UAE", "EU")
TERM = re.compile(rf"(?<![A-Za-z0-9])(?!(?:{'|'.join(_NOT_TERMS)})(?![A-Za-z0-9]))"
                  r"(?:[A-Za-z]{1,3}\d{1,2}(?:\.\d)?|[A-Z]{2,})(?![A-Za-z0-9])")


@dataclass(frozen=True)
class Finding:
    """One successful result as the writer reads it."""

    server: str
    tool: str
    text: str
    verdicts: list[dict[str, Any]]
    readable: str  # the text when the server wrote prose, else its data as "key value" pairs (for a reader)
    attached: bool = False  # a resource the user attached (chat/attachments.py), not a tool result
    # The words that name what a call of one subject was about (its one free-text argument, the result's names),
    # lowered: a reply's clause naming it is held to this result's verdicts. None for a call of several.
    names: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Failure:
    """One failed call: the server's own message when it is in the user's language, else none."""

    server: str
    tool: str
    reason: str
    message: str | None


@dataclass(frozen=True)
class Facts:
    """Everything the later stages need from the tool calls."""

    findings: list[Finding] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    numbers: list[float] = field(default_factory=list)  # of the data and the question
    numbers_of_data: bool = False
    days: set[str] = field(default_factory=set)
    tool_names: set[str] = field(default_factory=set)
    lead: str = ""  # what the answer must begin with: the verdict the question asks for ("" if none)
    asked: tuple[Quantity, ...] = ()  # the quantities the question names
    missing: tuple[str, ...] = ()  # what the question asks for (as it words it) that no result holds
    # The values the results' data gives each asked quantity (by the word asked), which an answer quotes.
    asked_values: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    # The question asks of a date or a year no result is of ("1954年那场大洪水…", a tool of the present called).
    out_of_time: bool = False
    pictured: bool = False  # a result shows images: a chart shows its figures, its words need not repeat them
    overview_asked: bool = False  # the question asks for the data as a whole too (the vocabulary's overview words)
    # The words of the successful calls' arguments, lowered: a term of the question a call was made with ("KL" of
    # "events in KL") is what its result is about, however the result names it (Kuala Lumpur).
    argued: frozenset[str] = frozenset()

    @property
    def lacking(self) -> tuple[Quantity, ...]:
        """The quantities the question names that no result holds."""
        missing = {word.lower() for word in self.missing}
        return tuple(quantity for quantity in self.asked if quantity.word.lower() in missing)

    @property
    def hold_nothing_asked(self) -> bool:
        """Whether the question names quantities and no result holds any of them, or asks of a time no result is
        of: the figures found (the air's, asked for the tide; today's, asked of 1954) would answer another
        question. Not when a result decides the yes or no it asks (a yes/no question with a remark on what no
        result holds was told only that the data lacks that), nor when it asks for the data as a whole too."""
        return self.out_of_time or (bool(self.asked) and len(self.lacking) == len(self.asked) and not self.lead
                                    and not self.overview_asked)

    @property
    def verdicts(self) -> list[dict[str, Any]]:
        return [verdict for finding in self.findings for verdict in finding.verdicts]

    @property
    def records_listed(self) -> int:
        """The longest list a finding's text gives, as items separated by semicolons (one day or place each)."""
        return max((len(_RECORD_SEPARATOR.split(f.text)) for f in self.findings if not f.attached), default=0)

    @property
    def text(self) -> str:
        """Every finding's text, as the writer reads it."""
        return "\n".join(finding.text for finding in self.findings)


def gather_facts(turn: Turn, called: Called) -> Facts:
    """The facts of the turn's tool calls; raises Cancelled if the turn was cancelled while they ran."""
    if called.outcomes:
        turn.cancellation.check()
    findings: list[Finding] = []
    failures: list[Failure] = []
    notices: list[Notice] = []
    numbers, numbers_of_data = numbers_in(turn.question), False
    days: set[str] = set()
    tool_names: set[str] = set()
    # A message that asks nothing asks for no quantity: "谢啦，我多穿件外套" names a quantity by its jacket.
    asked = [] if conversation.acknowledges(turn.question) else asked_quantities(turn.question, turn.vocabulary)
    for outcome in called.outcomes:
        tool_names |= {outcome.tool, outcome.qualified_name}
        if outcome.is_error:
            failures.append(_failure(outcome, turn))
            if outcome.reason == "needs_authorization" and (notice := Notice(outcome.server, outcome.text,
                                                                              "authorization")) not in notices:
                notices.append(notice)  # the reply says where to authorize
            if outcome.reason == "needs_approval" and (notice := approval_notice(outcome, turn.language)) \
                    not in notices:
                notices.append(notice)  # ... and how to allow a call it could not ask about
            continue
        notice = result_notice(outcome)
        if notice and notice not in notices:
            notices.append(notice)
        text, prose = _writer_text(outcome, notice, turn)
        readable = text if prose else _pairs(outcome, turn)
        unsaid = _unsaid(outcome, text, asked, turn)
        if unsaid:
            text, readable = f"{text}\n{unsaid}", f"{readable} {unsaid}."
        shown = shown_beside(outcome)
        if shown:  # the writer should know; the reader sees them
            text += f" ({shown})"
        findings.append(Finding(outcome.server, outcome.tool, text, _verdicts(outcome.structured_content), readable,
                                names=_names(outcome)))
        data_numbers = numbers_in(text) + numbers_in(str(outcome.structured_content))
        numbers += data_numbers + numbers_in(str(outcome.arguments))
        numbers_of_data = numbers_of_data or bool(data_numbers)
        days |= day_words(text)
    for attachment in turn.attachments:  # what the user gave: the answer may quote it, as it may a result
        findings.append(Finding(attachment.server, "", attachment.writer_text, [],
                                f"(you attached {attachment.uri})", attached=True))
        numbers += numbers_in(attachment.text)
        days |= day_words(attachment.text)
    notices += [unread_notice(unread, turn.language) for unread in turn.unread]
    verdicts = [verdict for finding in findings for verdict in finding.verdicts]
    held = [q for q in asked if any(holds(o.structured_content, q) or q.named_in(o.text)
                                    for o in called.outcomes if not o.is_error)]
    text = "\n".join(f.text for f in findings)
    unreached = _unreached_date(turn, text) + _unreached_year(turn, text)
    argued = frozenset(word.lower() for o in called.outcomes if not o.is_error for _, value in leaves(o.arguments)
                       if isinstance(value, str) for word in _WORD.findall(value))
    return Facts(findings, failures, notices, numbers, numbers_of_data, days, tool_names,
                 _lead(verdicts, turn, asked), tuple(asked), _missing(turn, asked, held, text, unreached, argued),
                 _values(called, held), out_of_time=bool(unreached),
                 pictured=any(o.images for o in called.outcomes if not o.is_error),
                 overview_asked=turn.vocabulary.asks_overview(turn.question), argued=argued)


_NAME_WORD = re.compile(r"[^\W\d_\u3400-\u9fff]{3,}|[\u3400-\u9fff]{2,}")


def _names(outcome: ToolOutcome) -> frozenset[str]:
    """The words naming the one subject a call was about: its one free-text argument that is no day, and its
    result's top-level names ("name", "english_name" of its first object), each up to a comma ("Asheville, NC")."""
    said = [value for _, value in leaves(outcome.arguments) if isinstance(value, str) and not day_words(value)]
    if len(said) != 1:
        return frozenset()
    content = outcome.structured_content if isinstance(outcome.structured_content, dict) else {}
    named = [value for key, value in leaves(content) if key.count(".") <= 1 and key.endswith("name")
             and isinstance(value, str)]
    return frozenset(word.lower() for value in [*said, *named] for word in _NAME_WORD.findall(value.split(",")[0]))


def _values(called: Called, held: list[Quantity]) -> dict[str, tuple[Any, ...]]:
    """The values of each held quantity in the results' data that an answer must quote: none for one only their
    text names, nor of a result with images (a chart shows its figures; its words need not repeat them)."""
    contents = [measured(o.structured_content) for o in called.outcomes if not o.is_error and not o.images]
    values = {q.word: tuple(value for content in contents for key, value in leaves(content)
                            if field_matches(key, q.field)) for q in held}
    return {word: found for word, found in values.items() if found}


def _unsaid(outcome: ToolOutcome, text: str, asked: list[Quantity], turn: Turn) -> str:
    """The values of the asked quantities the result holds but `text` does not speak of."""
    said = numbers_in(text)
    unsaid = [q for q in asked if holds(outcome.structured_content, q) and not q.named_in(text)
              and not _quotes_a_value(said, outcome.structured_content, q)]
    if not unsaid:
        return ""
    return field_values(outcome.structured_content, lambda key: any(field_matches(key, q.field) for q in unsaid),
                        turn.today, lambda key: _label(key, unsaid))


def _label(key: str, quantities: list[Quantity]) -> str:
    """A field's values under the question's word for its quantity ("UV", "价格"), and the field's own name
    where it is one of several of the quantity ("价格 (child price)")."""
    quantity = next(q for q in quantities if field_matches(key, q.field))
    own = any(key.startswith(part) for part in field_names(quantity.field))
    return quantity.word if own else f"{quantity.word} ({key.replace('_', ' ')})"


def _quotes_a_value(said: list[float], content: Any, quantity: Quantity) -> bool:
    """Whether numbers a text says include a value of the quantity ("62 kg" of the weight it never names)."""
    return any(isinstance(value, (int, float)) and not isinstance(value, bool) and value in said
               for key, value in leaves(measured(content)) if field_matches(key, quantity.field))


def _missing(turn: Turn, asked: list[Quantity], held: list[Quantity], text: str, unreached: list[str],
             argued: frozenset[str]) -> tuple[str, ...]:
    """What the question names that no result holds: a quantity, a term ("CO2") no call was made with, a clock
    time ("下午三点"), a date or a year (`unreached`)."""
    lacking = [q.word for q in asked if q not in held]
    lacking += [term for term in TERM.findall(turn.question) if term.lower() not in text.lower()
                and term.lower() not in argued and not any(q.named_in(term) for q in held)]
    lacking += unsupported_clock_times(turn.question, text, turn.vocabulary)
    lacking += unreached
    once: dict[str, str] = {}
    for word in lacking:
        once.setdefault(word.lower(), word)
    return tuple(once.values())


def _unreached_date(turn: Turn, text: str) -> list[str]:
    """The calendar date the question names ("New Year's Day 2020"), when the results name their dates and none
    is within a day of it (a place's date may be a day off the gateway's): a tool of the present was called."""
    asked = asked_day(turn.question, turn.today)
    if asked is None or asked.date is None:
        return []
    named = calendar_dates(text, turn.today).values()
    if not named or any(abs((day - asked.date).days) <= 1 for day in named):
        return []
    return [asked.word]


# A year named alone ("1954年那场大洪水", "back in 1998"): not one of a date, a month or a season (calendar_dates.py).
_YEAR = re.compile(r"(?<![\d-])(1[89]\d\d|20\d\d)(?:年(?![\d一二三四五六七八九十]+月|的?[春夏秋冬])|(?![\d-]))")


def _unreached_year(turn: Turn, text: str) -> list[str]:
    """A year the question names alone, other than this one, when the results name their dates and none is of
    it: a tool of the present was called for a question of another year."""
    asked = asked_day(turn.question, turn.today)
    if asked is not None and asked.date is not None:  # a date named: _unreached_date's
        return []
    years = [match for match in _YEAR.finditer(turn.question) if int(match[1]) != turn.today.year]
    named = calendar_dates(text, turn.today).values()
    if not years or not named or any(day.year == int(match[1]) for day in named for match in years):
        return []
    return [years[0][0]]


def verdicts_about(question: str, verdicts: list[dict[str, Any]], context: str = "") -> list[dict[str, Any]]:
    """The verdicts the question is about, by their keywords; a follow-up ("那明天呢？" after a yes/no question)
    falls back on the earlier question's words."""
    # (a word inside a compared place's name is no keyword: "Parkstad" asks nothing of the parking)
    names = sorted({str(name).lower() for v in verdicts for place in v.get("places") or []
                    for name in (place if isinstance(place, list) else [place]) if len(str(name)) > 2}, key=len,
                   reverse=True)
    for text in (question, context):
        lowered = text.lower()
        for name in names:
            lowered = lowered.replace(name, " " * len(name))
        spans = [[(m.start(), m.end()) for word in v["keywords"] if str(word)
                  for m in re.finditer(re.escape(str(word).lower()), lowered)] for v in verdicts]
        every = {span for found in spans for span in found}
        # A keyword inside another verdict's longer one is that one's: "gearbox" asks the gear box's verdict,
        # not the gear's (the two may differ).
        matched = [v for v, found in zip(verdicts, spans) if any(not inside_another(span, every) for span in found)]
        if matched:
            return matched
    return []


def _lead(verdicts: list[dict[str, Any]], turn: Turn, asked: list[Quantity]) -> str:
    """The verdict a yes/no question, a question of its degree ("how hot") or a comparison asks for, as the
    answer's first words."""
    # (the earlier question's verdict only for a follow-up that asks nothing of its own: "and the opening hours?"
    # after "which one is cheaper?" asks no price)
    relevant = verdicts_about(turn.question, verdicts, "" if asked else turn.earlier_question)
    yes_no = [v for v in relevant if isinstance(v.get("holds"), bool)]
    if yes_no and len({v["holds"] for v in yes_no}) == 1 and (
            asks_yes_no(turn.question, turn.earlier_question, asked, yes_no) or degree_asked(turn.question, yes_no)):
        return languages.capitalized(yes_no[0]["statement"], turn.language)
    winners = [v for v in relevant if v.get("winner")]
    return languages.capitalized(winners[0]["statement"], turn.language) if winners else ""


def asks_yes_no(question: str, context: str, asked: list[Quantity], verdicts: list[dict[str, Any]]) -> bool:
    """A yes/no question (tersely too: "any X?" of one of the `verdicts`), or a bare follow-up of one (`context`)
    that asks no quantity of its own: "那下周一呢" after "周末会不会下…啊" asks the same yes or no of Monday, "and in
    Y?" after "any X in Z?" the same of Y."""
    def yes_or_no(text: str) -> bool:
        return is_yes_no_question(text) or bool(tersely_asked(text, verdicts))
    return yes_or_no(question) or (bool(context) and yes_or_no(context) and not asked
                                   and conversation.bare_follow_up(question))


def degree_asked(question: str, verdicts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The verdicts whose topic the question asks the degree or the chance of ("how hot will it get?", "有多冷",
    "chance of X over the next 3 days?": answered with the verdict first, then its figures)."""
    lowered = question.lower()
    return [v for v in verdicts if any(re.search(f"{_HOW}{re.escape(str(word).lower())}", lowered)
                                       or re.search(f"{re.escape(str(word).lower())}{_HOW_AFTER}", lowered)
                                       for word in v["keywords"])]


def tersely_asked(question: str, verdicts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The verdicts a terse question opens or ends with ("Delays tonight on the A1?", "any queues tomorrow?",
    "Sydney tomorrow, hot?"): asked yes or no, as "will it ...?" asks it."""
    lowered = question.strip().lower()
    end = max(lowered.rfind("?"), lowered.rfind("？"))
    if end < 0:
        return []
    # (less a remark after it: "any delays over the next 3 days? going by car")
    lowered = lowered[:end + 1]
    # (after a lead of its own: "and the day after that - any delays then?")
    parts = [part.strip() for part in question_parts(lowered)]
    latin = [v for v in verdicts if any(re.match(rf"(?:any\s+)?{re.escape(str(word).lower())}\b", part)
                                        or (not _WH.search(part) and re.search(
                                            rf"(?:^|[\s,])(?:very |too |really |so )?{re.escape(str(word).lower())}\w*"
                                            r"\s*[?？]$", part))
                                        for word in v["keywords"] if str(word).isascii() for part in parts)]
    # in Chinese, a word of the verdict in a question with no question word ("明天呢，也这么热？")
    chinese = [] if _ZH_WH.search(lowered) else [v for v in verdicts if any(
        str(word) in lowered for word in v["keywords"] if str(word) and not str(word).isascii())]
    return latin + [v for v in chinese if v not in latin]


def numbers_in(text: str) -> list[float]:
    """The numbers written in `text` (a Unicode minus counts as a sign)."""
    return [float(match.replace("−", "-")) for match in _NUMBER.findall(text)]


def _writer_text(outcome: ToolOutcome, notice: Notice | None, turn: Turn) -> tuple[str, bool]:
    """What the writer reads of a result, and whether it is the server's prose (else its data, trimmed)."""
    text = outcome.text.strip()
    prose = bool(text) and not text.startswith(("{", "[")) and len(text) <= _MAX_PROSE_CHARS
    if not prose:
        text = data_view(outcome, turn.vocabulary, turn.today)
    if notice is not None:
        text = text.replace(notice.text, "").strip()
    return text, prose


def _pairs(outcome: ToolOutcome, turn: Turn) -> str:
    """A result's data as a reader can take it: "price eur 12.3, state open"."""
    content = outcome.structured_content if outcome.structured_content is not None else outcome.text
    pairs = [f"{key.rsplit('.', 1)[-1].replace('_', ' ')} {value}"
             for key, value in leaves(essentials(content, turn.vocabulary, results_today(content, turn.today)))]
    return ", ".join(pairs[:_MAX_PAIRS]) + ("." if pairs else "")


def _verdicts(content: Any) -> list[dict[str, Any]]:
    """The result's verdicts that are well-formed enough to check an answer against."""
    if not isinstance(content, dict) or not isinstance(content.get("verdicts"), list):
        return []
    return [v for v in content["verdicts"] if isinstance(v, dict) and isinstance(v.get("keywords"), list)
            and isinstance(v.get("statement"), str) and (isinstance(v.get("holds"), bool) or "winner" in v)]


def _failure(outcome: ToolOutcome, turn: Turn) -> Failure:
    message = tool_error_text(outcome.text)
    # A Chinese message may quote more Latin letters than it has characters (the places a name may mean, in
    # English): its full stops say its language.
    written_in = "zh" if message and "。" in message else languages.detect(message or "", turn.vocabulary)
    usable = outcome.reason == "tool_error" and message and written_in == turn.language
    return Failure(outcome.server, outcome.tool, outcome.reason, message if usable else None)
