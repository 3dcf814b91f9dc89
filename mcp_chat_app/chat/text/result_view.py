"""How a tool result reads to a model: its structured data trimmed to what an answer quotes (no fields the domain
hides, places as one label, floats to one decimal, long lists cut, near days named), or the server's own summary."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Iterator
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from mcp_chat_app.chat.text.shown import shown_beside
from mcp_chat_app.chat.text.vocabulary import Vocabulary
from mcp_chat_app.mcp_client.results import ToolOutcome

# Small models read every byte of a tool message on a 2-core CPU: cap what they get.
_MAX_LIST_ITEMS = 10
_MAX_MODEL_CHARS = 1500
_MAX_SUMMARY_CHARS = 700  # a server's text summary longer than this is not a summary
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_NEAR_DAYS = ("today", "tomorrow", "day after tomorrow")
_ISO_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2})?")
_MAX_FIELD_VALUES = 16


def _label(value: dict[str, Any], vocabulary: Vocabulary) -> str | None:
    """An object the vocabulary labels (`{"name": "Lyon", "country": "France", ...}`) as one string: "Lyon, France"."""
    fields = vocabulary.label_fields
    if fields and isinstance(value.get(fields[0]), str) and any(key in value for key in vocabulary.label_markers):
        return ", ".join(str(value[key]) for key in fields if value.get(key))
    return None


def essentials(value: Any, vocabulary: Vocabulary, today: dt.date) -> Any:
    """Structured content trimmed to what an answer quotes: no hidden fields, no nulls, labelled objects as one
    string, floats to one decimal (whole ones as ints), long lists cut, today/tomorrow marked."""
    if isinstance(value, float):
        return _rounded(value)
    if isinstance(value, dict):
        label = _label(value, vocabulary)
        if label is not None:
            return label
        return {key: essentials(item, vocabulary, today) for key, item in value.items()
                if item is not None and key not in vocabulary.hidden_fields}
    if isinstance(value, list):
        return [essentials(item, vocabulary, today) for item in value[:_MAX_LIST_ITEMS]]
    if isinstance(value, str):
        return _with_relative_day(value, today)
    return value


def _with_relative_day(text: str, today: dt.date) -> str:
    """`2026-11-30` → `2026-11-30 (tomorrow)`, a later day of the coming week → `2026-12-04 (Friday)`: small
    models otherwise quote the first day listed, and cannot tell which days are the weekend."""
    labels = {(today + dt.timedelta(days=offset)).isoformat(): label for offset, label in enumerate(_NEAR_DAYS)}
    labels[(today - dt.timedelta(days=1)).isoformat()] = "yesterday"  # a Sunday's weekend begins with it
    labels[(today - dt.timedelta(days=2)).isoformat()] = "the day before yesterday"
    for offset in range(len(_NEAR_DAYS), 7):
        day = today + dt.timedelta(days=offset)
        labels[day.isoformat()] = day.strftime("%A")
    return _ISO_DATE.sub(lambda date: f"{date[0]} ({labels[date[0]]})" if date[0] in labels else date[0], text)


_ISO_DATE_LABELLED = re.compile(r"^\d{4}-\d{2}-\d{2}(?: \([^)]*\))?")


def results_today(content: Any, today: dt.date) -> dt.date:
    """The day `today` is where a result's data is dated: a result that names its IANA time zone ("timezone":
    "Europe/Berlin") counts its days from that clock, so at 23:30 UTC Berlin's "tomorrow" is two dates after the
    gateway's. Zones that disagree on the date, or none, leave `today`."""
    now = dt.datetime.now(dt.timezone.utc)
    shifts = set()
    for key, value in leaves(content):
        if key.rsplit(".", 1)[-1].replace("_", "") in ("timezone", "tz") and isinstance(value, str):
            try:
                zone = ZoneInfo(value)
            except (ZoneInfoNotFoundError, ValueError):
                continue
            shifts.add(now.astimezone(zone).date() - now.astimezone().date())
    return today + shifts.pop() if len(shifts) == 1 else today


def leaves(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Scalar fields as (dotted key, value), in order."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list):
        for item in value:
            yield from leaves(item, prefix)
    elif value not in (None, ""):
        yield prefix, value


def measured(content: Any) -> Any:
    """The content without its `units` map (field name → unit): a unit's string is no value of that field."""
    if isinstance(content, dict) and isinstance(content.get("units"), dict):
        return {key: item for key, item in content.items() if key != "units"}
    return content


def field_values(content: Any, picked: Callable[[str], bool], today: dt.date,
                 label: Callable[[str], str] | None = None) -> str:
    """The values of the fields `picked` chooses (by name), each after the place (of a result about several) and
    the day or hour of its record, with its unit where the content gives one (`units`), under its `label` (by
    default its name): "uv index max: 2026-12-02 (today) 0.4, 2026-12-03 (tomorrow) 0.5". For a field an answer
    must quote that the server's text, or the trimmed view, leaves out."""
    found: dict[str, list[str]] = {}
    today = results_today(content, today)
    units = content.get("units") if isinstance(content, dict) else None
    records = list(_records(measured(content), picked, "", today))
    # Places compared on one day: each value after its place's name alone (the text says the day).
    same_day = len(records) > 1 and all(place for _, place, _, _ in records) \
        and len({when for _, _, when, _ in records}) == 1
    # Records all of one day: each after its hour alone, if any (the text says the day; a date and an English day
    # word had been copied into a Chinese answer: "2026-12-12 (Saturday) 0小时").
    one_day = len({when[:10] for _, _, when, _ in records}) == 1  # a record's `when` begins with its date
    for key, place, when, value in records:
        when = _ISO_DATE_LABELLED.sub("", when).strip() if one_day else when
        unit = units.get(key) if isinstance(units, dict) and isinstance(units.get(key), str) else ""
        shown = _rounded(value) if isinstance(value, float) else value
        if isinstance(shown, str) and _ISO_TIME.match(shown) and shown[:10] in when:
            shown = shown[11:]  # a time of the record's own day ("sunrise 07:55")
        where = place if same_day else f"{place} {when}".strip()
        found.setdefault(key, []).append(f"{where} {shown}{' ' if unit[:1].isalpha() else ''}{unit}".strip())
    return "; ".join(f"{label(key) if label else key.replace('_', ' ')}: {', '.join(values[:_MAX_FIELD_VALUES])}"
                     for key, values in found.items())


def _records(value: Any, picked: Callable[[str], bool], when: str, today: dt.date, place: str = "",
             several: bool = False) -> Iterator[tuple[str, str, str, Any]]:
    """(field, its place in a result about several places ("places"), the day or hour of its record, value) for
    every picked field with a value."""
    if isinstance(value, list):
        for item in value:
            yield from _records(item, picked, when, today, place, several)
    elif isinstance(value, dict):
        location = value.get("location")
        if several and isinstance(location, dict) and isinstance(location.get("name"), str):
            place = location["name"]
        # A record's own time ("time" of an hour, "date" of a day), else its first date.
        times = sorted((key not in ("time", "date"), key != "time", item) for key, item in value.items()
                       if isinstance(item, str) and _ISO_TIME.match(item))
        if times:
            when = _with_relative_day(times[0][2].replace("T", " "), today)
        for key, item in value.items():
            if isinstance(item, (dict, list)):
                yield from _records(item, picked, when, today, place, key == "places")
            elif item is not None and item != "" and picked(key):
                yield key, place, when, item


def _rounded(value: float) -> float | int:
    rounded = round(value, 1)
    return int(rounded) if rounded.is_integer() else rounded


def model_view(outcome: ToolOutcome, vocabulary: Vocabulary, today: dt.date) -> str:
    """The tool message content fed back to the model: the server's own short text summary when it gives one
    beside structured data (the same facts in a fraction of the tokens), else the trimmed structured data,
    else the text."""
    if outcome.is_error:
        payload: Any = {"error": outcome.text or "the tool failed"}
    elif outcome.structured_content is not None and 0 < len(outcome.text) <= _MAX_SUMMARY_CHARS:
        shown = shown_beside(outcome)
        text = _with_relative_day(outcome.text, results_today(outcome.structured_content, today))
        return text + (f" ({shown})" if shown else "")
    else:
        payload = _data(outcome, vocabulary, today)
    shown = shown_beside(outcome)
    if shown:
        payload = {"result": payload, "shown": shown}
    rendered = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return rendered[:_MAX_MODEL_CHARS]


def data_view(outcome: ToolOutcome, vocabulary: Vocabulary, today: dt.date) -> str:
    """A result's data, trimmed to what an answer quotes, as compact JSON with today/tomorrow marked."""
    return json.dumps(_data(outcome, vocabulary, today), ensure_ascii=False, separators=(",", ":"))[:_MAX_MODEL_CHARS]


def _data(outcome: ToolOutcome, vocabulary: Vocabulary, today: dt.date) -> Any:
    if outcome.structured_content is not None:
        return essentials(outcome.structured_content, vocabulary, results_today(outcome.structured_content, today))
    # Many servers put JSON in a TextContent; re-encoding it compactly saves tokens.
    try:
        content = json.loads(outcome.text)
        return essentials(content, vocabulary, results_today(content, today))
    except ValueError:
        return outcome.text
