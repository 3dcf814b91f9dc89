"""How results read, in the call's language: the text content beside each structured result, chart titles and
alt text, and the notice on simulated data.

The text names each day as the reader would (明天（12月2日 周三）, tomorrow (Wed 2 Dec)), covers only the days
asked for, and ends with the verdicts, so a reader, or a small model, can answer from it without working
anything out.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta

from weather_mcp_server.charts import ChartKind, ChartSeries
from weather_mcp_server.days import calendar_words, label, short_label
from weather_mcp_server.language import current, pick
from weather_mcp_server.models import (
    CityTemperature,
    Day,
    Comparison,
    CurrentWeather,
    Forecast,
    ForecastDay,
    Location,
    PrecipitationDay,
    PrecipitationOutlook,
    TemperatureSearch,
    Verdict,
    WeatherChart,
)
from weather_mcp_server.providers import Sourced


_LISTED_CITIES = 10


def is_chinese() -> bool:
    return current() == "zh"


def place_name(location: Location) -> str:
    """The place as the reader knows it: its Chinese name in Chinese (when known), else its English name."""
    if is_chinese():
        return location.chinese_name or location.name
    return location.english_name


def notice(sourced: Sourced) -> str | None:
    """The disclosure a reader must see when the figures are not real weather."""
    if sourced.source != "simulated":
        return None
    if sourced.fell_back:
        return pick("Note: Open-Meteo could not be reached, so these figures are simulated, not real weather.",
                    "注意：无法连接 Open-Meteo，以上数据为模拟数据，并非真实天气。")
    return pick("Note: these figures are simulated (demo data), not real weather.",
                "注意：以上数据为模拟数据（演示用），并非真实天气。")


def current_text(r: CurrentWeather) -> str:
    t, wind = r.units["temperature"], r.units["wind_speed"]
    when = f"{calendar_words(_today(r.time))} {r.time[11:16]}"
    if is_chinese():
        facts = (f"{place_name(r.location)} 现在（{when}）："
                 f"{r.description}，{r.temperature:g}{t}，体感{r.feels_like:g}{t}，湿度{r.humidity:g}%，"
                 f"风速{r.wind_speed:g} {wind}，降水{r.precipitation:g}毫米{_zh_uv(r.uv_index)}。"
                 f"今天{r.today_min:g}~{r.today_max:g}{t}。")
    else:
        facts = (f"{place_name(r.location)} now ({when}): "
                 f"{r.description}, {r.temperature:g}{t} (feels like {r.feels_like:g}{t}), humidity "
                 f"{r.humidity:g}%, wind {r.wind_speed:g} {wind}, precipitation {r.precipitation:g} mm"
                 f"{_en_uv(r.uv_index)}. Today {r.today_min:g} to {r.today_max:g}{t}.")
    return _with_verdicts(facts, _feel_and_rest(r.verdicts), r.notice)


def forecast_text(r: Forecast) -> str:
    """One day in full; several as a compact line each, then the span's range."""
    if len(r.days) == 1:
        facts = _one_day(place_name(r.location), _forecast_day(r.days[0], r.units))
    else:
        t = r.units["temperature"]
        today = _today(r.days[0].date, r.days[0].day)
        lines = [_compact_day(d, today, t) for d in r.days]
        low, high = min(d.temp_min for d in r.days), max(d.temp_max for d in r.days)
        facts = _headed(_place_span(r.location, r.days), pick("; ", "；").join(lines)) + pick(
            f" Over these {len(r.days)} days: {low:g} to {high:g}{t}.", f"这{len(r.days)}天气温{low:g}~{high:g}{t}。")
    return _with_verdicts(facts, _feel_and_rest(r.verdicts), r.notice)


def precipitation_text(r: PrecipitationOutlook) -> str:
    """One day in full; over several, only the wet days in full and the dry ones together."""
    today = _today(r.days[0].date, r.days[0].day)
    if len(r.days) == 1:
        facts = _one_day(place_name(r.location), _precipitation_day(r.days[0], label(today, r.days[0].day)))
    else:
        wet = [d for d in r.days if d.rain_expected or d.snow_expected or d.precipitation_sum > 0]
        dry = [d for d in r.days if d not in wet]
        parts = [_precipitation_day(d, label(today, d.day)) for d in wet]
        if dry:
            chance = max((d.probability_max or 0) for d in dry)
            if not wet:
                which = pick("on any day", "每天都")
            elif len(dry) <= 2:
                which = pick(" or ".join(short_label(today, d.day) for d in dry), "、".join(
                    short_label(today, d.day) for d in dry))
            else:
                which = pick("on the other days", "其余几天")
            parts.append(pick(f"no precipitation {'on ' if len(dry) <= 2 and wet else ''}{which} (chance at most "
                              f"{chance:g}%)", f"{which}没有降水（降水概率不超过{chance:g}%）"))
        facts = _headed(_place_span(r.location, r.days), pick("; ", "；").join(parts))
    return _with_verdicts(facts, r.verdicts, r.notice)


def comparison_text(r: Comparison) -> str:
    t = r.units["temperature"]
    first = r.places[0].days
    today = _today(first[0].date, first[0].day)
    span = (label(today, first[0].day) if len(first) == 1
            else f"{short_label(today, first[0].day)}–{short_label(today, first[-1].day)}")
    rows = []
    for place in r.places:
        low, high = min(d.temp_min for d in place.days), max(d.temp_max for d in place.days)
        rain = round(sum(d.precipitation_sum for d in place.days), 1)
        if place.temperature is not None:
            rows.append(pick(f"{place_name(place.location)} now {place.temperature:g}{t} (today {low:g} to "
                             f"{high:g}{t}, {rain:g} mm)",
                             f"{place_name(place.location)} 现在{place.temperature:g}{t}（今天{low:g}~{high:g}{t}，"
                             f"降水{rain:g}毫米）"))
        elif len(place.days) == 1:
            rows.append(pick(f"{place_name(place.location)} {low:g} to {high:g}{t}, {rain:g} mm",
                             f"{place_name(place.location)} {low:g}~{high:g}{t}，降水{rain:g}毫米"))
        else:
            mean_high = round(sum(d.temp_max for d in place.days) / len(place.days), 1)
            mean_low = round(sum(d.temp_min for d in place.days) / len(place.days), 1)
            rows.append(pick(f"{place_name(place.location)} highs average {mean_high:g}{t}, lows average "
                             f"{mean_low:g}{t}, {rain:g} mm in all",
                             f"{place_name(place.location)} 平均最高{mean_high:g}{t}，平均最低{mean_low:g}{t}，"
                             f"降水合计{rain:g}毫米"))
    facts = pick(f"{span}: " + "; ".join(rows) + ".", f"{span}：" + "；".join(rows) + "。")
    return _with_verdicts(facts, r.verdicts, r.notice)


def search_text(r: TemperatureSearch) -> str:
    t = r.units["temperature"]
    day = label(_today(r.date, r.day), r.day)
    measure = {"max": pick("high", "最高气温"), "min": pick("low", "最低气温"),
               "mean": pick("mean temperature", "平均气温")}[r.measure]
    bounds = _bounds(r.min_temp, r.max_temp, t)
    found = _cities(r.matches, t)
    if found:
        text = pick(f"{len(r.matches)} of {r.cities_checked} cities have a {measure} {bounds} {day}: {found}.",
                    f"{day}{measure}{bounds}的城市有{len(r.matches)}个（共查了{r.cities_checked}个）：{found}。")
    else:
        closest = _cities(r.nearest_outside, t)
        text = pick(f"No city has a {measure} {bounds} {day} ({r.cities_checked} checked)"
                    + (f"; closest: {closest}." if closest else "."),
                    f"{day}没有城市的{measure}{bounds}（共查了{r.cities_checked}个）"
                    + (f"；最接近的：{closest}。" if closest else "。"))
    return _with_notice(text, r.notice)


def chart_title(location: Location, days: Sequence[ForecastDay], kind: ChartKind) -> str:
    what = pick("temperature", "气温") if kind == "temperature" else pick("precipitation", "降水")
    return pick(f"{place_name(location)}: {len(days)}-day {what}", f"{place_name(location)} {len(days)}天{what}")


def chart_alt_text(series: ChartSeries, kind: ChartKind, units: dict[str, str]) -> str:
    """What the chart shows, for readers who cannot see it."""
    span = f"{series.dates[0]} – {series.dates[-1]}"
    if kind == "temperature":
        t = units.get("temperature", "°C")
        return pick(
            f"Line chart '{series.title}', {span}: highs {min(series.temp_max):g} to {max(series.temp_max):g}{t}, "
            f"lows {min(series.temp_min):g} to {max(series.temp_min):g}{t}.",
            f"折线图《{series.title}》，{span}：最高气温{min(series.temp_max):g}~{max(series.temp_max):g}{t}，"
            f"最低气温{min(series.temp_min):g}~{max(series.temp_min):g}{t}。")
    wettest = max(range(len(series.dates)), key=lambda i: series.precipitation[i])
    total = round(sum(series.precipitation), 1)
    return pick(
        f"Bar chart '{series.title}', {span}: {total:g} mm in all, wettest {series.dates[wettest]} with "
        f"{series.precipitation[wettest]:g} mm.",
        f"柱状图《{series.title}》，{span}：降水合计{total:g}毫米，最多的是{series.dates[wettest]}，"
        f"{series.precipitation[wettest]:g}毫米。")


def chart_text(r: WeatherChart) -> str:
    """The chart is shown to the user; the text says what it shows, with the plotted values a reader may quote."""
    today = _today(r.points[0].date, r.points[0].day)
    t = r.units["temperature"]
    if r.kind == "temperature":
        values = [pick(f"{short_label(today, p.day)} {p.temp_min:g} to {p.temp_max:g}{t}",
                       f"{short_label(today, p.day)} {p.temp_min:g}~{p.temp_max:g}{t}") for p in r.points]
        low, high = min(p.temp_min for p in r.points), max(p.temp_max for p in r.points)
        span = pick(f" Over these {len(r.points)} days: {low:g} to {high:g}{t}.",
                    f"这{len(r.points)}天气温{low:g}~{high:g}{t}。")
        what = pick("temperature", "气温")
    else:
        values = [pick(f"{short_label(today, p.day)} {p.precipitation_sum:g} mm",
                       f"{short_label(today, p.day)} {p.precipitation_sum:g}毫米") for p in r.points]
        total = round(sum(p.precipitation_sum or 0 for p in r.points), 1)
        span = pick(f" Over these {len(r.points)} days: {total:g} mm in all.",
                    f"这{len(r.points)}天降水合计{total:g}毫米。")
        what = pick("precipitation", "降水")
    first, last = short_label(today, r.points[0].day), short_label(today, r.points[-1].day)
    shown = pick(f"Here is the {what} chart for {place_name(r.location)}, {first} to {last}: ",
                 f"已附上{place_name(r.location)}{first}到{last}的{what}图：")
    return _with_notice(shown + pick("; ".join(values) + ".", "；".join(values) + "。") + span, r.notice)


def _forecast_day(d: ForecastDay, units: dict[str, str]) -> str:
    t, wind = units["temperature"], units["wind_speed"]
    today = _today(d.date, d.day)
    chance = "" if d.precipitation_probability is None else pick(
        f", {d.precipitation_probability:g}% chance of precipitation", f"，降水概率{d.precipitation_probability:g}%")
    amount = "" if d.precipitation_sum == 0 else pick(f" ({d.precipitation_sum:g} mm)",
                                                      f"（{d.precipitation_sum:g}毫米）")
    return pick(f"{label(today, d.day)}: {d.description}, {d.temp_min:g} to {d.temp_max:g}{t}{chance}{amount}, "
                f"wind up to {d.wind_speed_max:g} {wind}",
                f"{label(today, d.day)}{d.description}，{d.temp_min:g}~{d.temp_max:g}{t}{chance}{amount}，"
                f"最大风速{d.wind_speed_max:g} {wind}")


def _compact_day(d: ForecastDay, today: date, t: str) -> str:
    chance = "" if d.precipitation_probability is None else pick(
        f" ({d.precipitation_probability:g}% chance of rain)", f"（降水概率{d.precipitation_probability:g}%）")
    return pick(f"{short_label(today, d.day)} {d.description}, {d.temp_min:g} to {d.temp_max:g}{t}{chance}",
                f"{short_label(today, d.day)} {d.description}，{d.temp_min:g}~{d.temp_max:g}{t}{chance}")


def _precipitation_day(d: PrecipitationDay, day: str) -> str:
    chance = "" if d.probability_max is None else pick(f" ({d.probability_max:g}% chance)",
                                                        f"，降水概率{d.probability_max:g}%")
    snow = "" if not d.snowfall_sum else pick(f", {d.snowfall_sum:g} cm of snow", f"，降雪{d.snowfall_sum:g}厘米")
    return pick(f"{day}: {d.description}, {d.precipitation_sum:g} mm{snow}{chance}",
                f"{day}{d.description}，降水{d.precipitation_sum:g}毫米{snow}{chance}")


def _place_span(location: Location, days: Sequence[Day]) -> str:
    return pick(f"{place_name(location)}, {_span_label(days)}", f"{place_name(location)}{_span_label(days)}")


def _span_label(days: Sequence[Day]) -> str:
    """The days a multi-day text covers: 未来7天（12月1日–12月7日）; next 7 days (Tue 1 Dec – Mon 7 Dec)."""
    first, last = days[0], days[-1]
    today = _today(first.date, first.day)
    start, end = _today(first.date), _today(last.date)
    if first.day == 0:
        return pick(f"next {len(days)} days ({calendar_words(start)} – {calendar_words(end)})",
                    f"未来{len(days)}天（{calendar_words(start)}–{calendar_words(end)}）")
    return pick(f"{short_label(today, first.day)} to {short_label(today, last.day)}",
                f"{short_label(today, first.day)}到{short_label(today, last.day)}")


def _headed(head: str, body: str) -> str:
    return pick(f"{head}: {body}.", f"{head}：{body}。")


def _one_day(place: str, day: str) -> str:
    return pick(f"{place}, {day}.", f"{place}{day}。")


def _feel_and_rest(verdicts: Sequence[Verdict]) -> list[Verdict]:
    """Hot and cold are said only when one holds ("not hot, not cold" says nothing); the others always."""
    return [v for v in verdicts if v.topic not in ("hot", "cold") or v.holds]


def _with_verdicts(facts: str, verdicts: Sequence[Verdict], notice: str | None) -> str:
    said = [v.statement for v in verdicts]
    if said:
        sentence = ", ".join(said)  # not "; ", which separates a list's records
        facts += pick(f" {sentence[:1].upper()}{sentence[1:]}.", "，".join(said) + "。")
    return _with_notice(facts, notice)


def _with_notice(text: str, notice: str | None) -> str:
    return f"{text} {notice}" if notice else text


def _cities(cities: Sequence[CityTemperature], t: str) -> str:
    """The first few by name, one record each as in the lists of days; a long list of matches reads as a dump."""
    named = pick("; ", "；").join(f"{place_name(c.location)} {c.temperature:g}{t}" for c in cities[:_LISTED_CITIES])
    more = len(cities) - _LISTED_CITIES
    return named + (pick(f", and {more} more", f"，另有{more}个城市") if more > 0 else "")


def _bounds(low: float | None, high: float | None, t: str) -> str:
    if low is not None and high is not None:
        return pick(f"between {low:g} and {high:g}{t}", f"在{low:g}~{high:g}{t}之间")
    if low is not None:
        return pick(f"of at least {low:g}{t}", f"不低于{low:g}{t}")
    return pick(f"of at most {high:g}{t}", f"不高于{high:g}{t}")


def _today(day: str, offset: int = 0) -> date:
    """The place's today, from a record's date and its offset."""
    return date.fromisoformat(day[:10]) - timedelta(days=offset)


def _zh_uv(uv: float | None) -> str:
    return "" if uv is None else f"，紫外线指数{uv:g}"


def _en_uv(uv: float | None) -> str:
    return "" if uv is None else f", UV {uv:g}"

