"""How results read, in the call's language: the text content beside each structured result, chart titles and
alt text, and the notice on simulated data.

The text names each day as the reader would (明天（12月2日 周三）, tomorrow (Wed 2 Dec)), covers only the days
asked for, and ends with the verdicts, so a reader, or a small model, can answer from it without working
anything out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, timedelta

from weather_mcp_server.charts.series import ChartKind, ChartSeries
from weather_mcp_server.domain.days import calendar_words, label, short_label
from weather_mcp_server.domain.verdicts import STATED_COMPARISONS
from weather_mcp_server.domain.weather_codes import describe
from weather_mcp_server.models import (
    CityTemperature,
    Day,
    HourRecord,
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
    WeatherDay,
)
from weather_mcp_server.places.names import has_cjk
from weather_mcp_server.sources.provider import Sourced
from weather_mcp_server.wording.language import current, pick


_LISTED_CITIES = 10
_ZH_UNITS = {"hPa": "百帕", "inHg": "英寸汞柱"}


def is_chinese() -> bool:
    return current() == "zh"


def place_name(location: Location) -> str:
    """The place as the reader knows it: its Chinese name in Chinese (when known), else its English name, with the
    name it was asked by beside it ("George Town (Penang)")."""
    if is_chinese():
        return location.chinese_name or location.name
    return location.english_name if has_cjk(location.name) else location.name


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
    when = f"{calendar_words(today_of(r.time))} {r.time[11:16]}"
    if is_chinese():
        facts = (f"{place_name(r.location)} 现在（{when}）："
                 f"{r.description}，{r.temperature:g}{t}，体感{r.feels_like:g}{t}，湿度{r.humidity:g}%，"
                 f"风速{r.wind_speed:g} {wind}，降水{_amount(r.precipitation, r.units)}{_zh_uv(r.uv_index)}"
                 f"{_air_state(r.pressure, r.visibility, r.dew_point, r.units)}。"
                 f"今天{r.today_min:g}~{r.today_max:g}{t}。")
    else:
        facts = (f"{place_name(r.location)} now ({when}): "
                 f"{r.description}, {r.temperature:g}{t} (feels like {r.feels_like:g}{t}), humidity "
                 f"{r.humidity:g}%, wind {r.wind_speed:g} {wind}, precipitation {_amount(r.precipitation, r.units)}"
                 f"{_en_uv(r.uv_index)}{_air_state(r.pressure, r.visibility, r.dew_point, r.units)}. Today "
                 f"{r.today_min:g} to {r.today_max:g}{t}.")
    # (snow now is said only when it falls: "not snowing" beside every reading says nothing)
    return with_verdicts(facts, [v for v in _feel_and_rest(r.verdicts) if v.topic != "snow" or v.holds], r.notice)


def forecast_text(r: Forecast) -> str:
    """The asked hours; else one day in full, or several as a compact line each, then the span's range."""
    if r.hours:
        facts = _hours_text(r)
    elif len(r.days) == 1:
        facts = _one_day(place_name(r.location), _forecast_day(r.days[0], r.units))
    else:
        t = r.units["temperature"]
        today = today_of(r.days[0].date, r.days[0].day)
        lines = [_compact_day(d, today, t) for d in r.days]
        low, high = min(d.temp_min for d in r.days), max(d.temp_max for d in r.days)
        facts = _headed(_place_span(r.location, r.days), pick("; ", "；").join(lines)) + pick(
            f" Over these {len(r.days)} days: {low:g} to {high:g}{t}.", f"这{len(r.days)}天气温{low:g}~{high:g}{t}。") \
            + _span_extremes(r.days, today, t)
    return with_verdicts(facts, _feel_and_rest(r.verdicts), r.notice)


def precipitation_text(r: PrecipitationOutlook) -> str:
    """The asked hours; else one day in full, or over several only the wet days in full and the dry ones
    together."""
    today = today_of(r.days[0].date, r.days[0].day)
    if r.hours:
        facts = _hours_text(r)
    elif len(r.days) == 1:
        facts = _one_day(place_name(r.location), _precipitation_day(r.days[0], label(today, r.days[0].day), r.units))
    else:
        wet = [d for d in r.days if d.rain_expected or d.snow_expected or d.precipitation_sum > 0]
        dry = [d for d in r.days if d not in wet]
        parts = [_precipitation_day(d, label(today, d.day), r.units) for d in wet]
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
    return with_verdicts(facts, _feel_and_rest(r.verdicts), r.notice)


def comparison_text(r: Comparison) -> str:
    t = r.units["temperature"]
    first = r.places[0].days
    today = today_of(first[0].date, first[0].day)
    span = (label(today, first[0].day) if len(first) == 1
            else f"{short_label(today, first[0].day)}–{short_label(today, first[-1].day)}")
    rows = []
    for place in r.places:
        low, high = min(d.temp_min for d in place.days), max(d.temp_max for d in place.days)
        rain = round(sum(d.precipitation_sum for d in place.days), 1)
        wind = f"{max(d.wind_speed_max for d in place.days):g} {r.units['wind_speed']}"
        if place.temperature is not None:
            rows.append(pick(f"{place_name(place.location)} now {place.temperature:g}{t} (today {low:g} to "
                             f"{high:g}{t}, {_amount(rain, r.units)}, wind up to {wind})",
                             f"{place_name(place.location)} 现在{place.temperature:g}{t}（今天{low:g}~{high:g}{t}，"
                             f"降水{_amount(rain, r.units)}，最大风速{wind}）"))
        elif len(place.days) == 1:
            rows.append(pick(f"{place_name(place.location)} {low:g} to {high:g}{t}, {_amount(rain, r.units)}, "
                             f"wind up to {wind}",
                             f"{place_name(place.location)} {low:g}~{high:g}{t}，降水{_amount(rain, r.units)}，"
                             f"最大风速{wind}"))
        else:
            mean_high = round(sum(d.temp_max for d in place.days) / len(place.days), 1)
            mean_low = round(sum(d.temp_min for d in place.days) / len(place.days), 1)
            rows.append(pick(f"{place_name(place.location)} highs average {mean_high:g}{t}, lows average "
                             f"{mean_low:g}{t}, {_amount(rain, r.units)} in all",
                             f"{place_name(place.location)} 平均最高{mean_high:g}{t}，平均最低{mean_low:g}{t}，"
                             f"降水合计{_amount(rain, r.units)}"))
    facts = pick(f"{span}: " + "; ".join(rows) + ".", f"{span}：" + "；".join(rows) + "。")
    return with_verdicts(facts, [v for v in r.verdicts if v.topic in STATED_COMPARISONS], r.notice)


def search_text(r: TemperatureSearch) -> str:
    t = r.units["temperature"]
    day = label(today_of(r.date, r.day), r.day)
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
        f"Bar chart '{series.title}', {span}: {_amount(total, units)} in all, wettest {series.dates[wettest]} with "
        f"{_amount(series.precipitation[wettest], units)}.",
        f"柱状图《{series.title}》，{span}：降水合计{_amount(total, units)}，最多的是{series.dates[wettest]}，"
        f"{_amount(series.precipitation[wettest], units)}。")


def chart_text(r: WeatherChart) -> str:
    """The chart is shown to the user; the text says what it shows, with the plotted values a reader may quote."""
    today = today_of(r.points[0].date, r.points[0].day)
    t = r.units["temperature"]
    if r.kind == "temperature":
        values = [pick(f"{short_label(today, p.day)} {p.temp_min:g} to {p.temp_max:g}{t}",
                       f"{short_label(today, p.day)} {p.temp_min:g}~{p.temp_max:g}{t}") for p in r.points]
        low, high = min(p.temp_min for p in r.points), max(p.temp_max for p in r.points)
        span = pick(f" Over these {len(r.points)} days: {low:g} to {high:g}{t}.",
                    f"这{len(r.points)}天气温{low:g}~{high:g}{t}。")
        what = pick("temperature", "气温")
    else:
        values = [pick(f"{short_label(today, p.day)} {_amount(p.precipitation_sum, r.units)}",
                       f"{short_label(today, p.day)} {_amount(p.precipitation_sum, r.units)}") for p in r.points]
        total = round(sum(p.precipitation_sum or 0 for p in r.points), 1)
        span = pick(f" Over these {len(r.points)} days: {_amount(total, r.units)} in all.",
                    f"这{len(r.points)}天降水合计{_amount(total, r.units)}。")
        what = pick("precipitation", "降水")
    first, last = short_label(today, r.points[0].day), short_label(today, r.points[-1].day)
    shown = pick(f"Here is the {what} chart for {place_name(r.location)}, {first} to {last}: ",
                 f"已附上{place_name(r.location)}{first}到{last}的{what}图：")
    return _with_notice(shown + pick("; ".join(values) + ".", "；".join(values) + "。") + span, r.notice)


def _forecast_day(d: ForecastDay, units: dict[str, str]) -> str:
    t, wind = units["temperature"], units["wind_speed"]
    today = today_of(d.date, d.day)
    chance = "" if d.precipitation_probability is None or d.day < 0 else pick(
        f", {d.precipitation_probability:g}% chance of precipitation", f"，降水概率{d.precipitation_probability:g}%")
    amount = "" if d.precipitation_sum == 0 else pick(f" ({_amount(d.precipitation_sum, units)})",
                                                      f"（{_amount(d.precipitation_sum, units)}）")
    means = _day_means(d, units)
    return pick(f"{label(today, d.day)}: {d.description}, {d.temp_min:g} to {d.temp_max:g}{t}{chance}{amount}, "
                f"wind up to {d.wind_speed_max:g} {wind}{means}{_sun(d, True)}",
                f"{label(today, d.day)}{d.description}，{d.temp_min:g}~{d.temp_max:g}{t}{chance}{amount}，"
                f"最大风速{d.wind_speed_max:g} {wind}{means}{_sun(d, True)}")


def _day_means(d: WeatherDay, units: dict[str, str]) -> str:
    """The day's mean humidity and cloud cover, then its pressure and dew point as the current state says them."""
    said = []
    if d.humidity_mean is not None:
        said.append(pick(f"humidity {d.humidity_mean:g}%", f"湿度{d.humidity_mean:g}%"))
    if d.cloud_cover_mean is not None:
        said.append(pick(f"cloud cover {d.cloud_cover_mean:g}%", f"云量{d.cloud_cover_mean:g}%"))
    clauses = "".join(pick(f", {part}", f"，{part}") for part in said)
    return clauses + _air_state(d.pressure_mean, None, d.dew_point_mean, units)


def _span_extremes(days: Sequence[ForecastDay], today: date, t: str) -> str:
    """Which day of a span is the warmest, the coldest and the least likely to be wet, where the days differ:
    "Saturday or Sunday for a hike?" and "which day this week is driest?" are answered by them, not by a reader
    comparing lines."""
    said = []
    warmest, coldest = max(days, key=lambda d: d.temp_max), min(days, key=lambda d: d.temp_min)
    # One day with both the highest high and the lowest low is neither "warmest" nor "coldest" alone ("郑州今天比
    # 昨天热吗" was answered with today's low as yesterday's).
    both = warmest is coldest
    if len({d.temp_max for d in days}) > 1:
        said.append(_extreme(("highest high", "最高气温最高") if both else ("warmest", "最暖"), warmest, days, today,
                             lambda d: d.temp_max, t))
    if len({d.temp_min for d in days}) > 1:
        said.append(_extreme(("lowest low", "最低气温最低") if both else ("coldest", "最冷"), coldest, days, today,
                             lambda d: d.temp_min, t, ("low ", "最低")))
    chances = [d for d in days if d.precipitation_probability is not None and d.day >= 0]
    if len({d.precipitation_probability for d in chances}) > 1:
        driest = min(chances, key=lambda d: (d.precipitation_probability, d.precipitation_sum))
        chance, when = driest.precipitation_probability, short_label(today, driest.day)
        said.append(pick(f"least chance of rain {when} ({chance:g}%)", f"降水概率最低{when}（{chance:g}%）"))
    if not said:
        return ""
    return pick(f" Of these days: {', '.join(said)}.", f"其中{'，'.join(said)}。")


def _extreme(words: tuple[str, str], day: ForecastDay, days: Sequence[ForecastDay], today: date,
             value: Callable[[ForecastDay], float], t: str, lead: tuple[str, str] = ("", "")) -> str:
    """The day of a span a figure is the most of, with it; of two days, the other's figure beside it (yesterday
    and today, compared)."""
    when = short_label(today, day.day)
    other = next((d for d in days if d is not day), None) if len(days) == 2 else None
    beside = pick(f", {short_label(today, other.day)} {value(other):g}{t}",
                  f"，{short_label(today, other.day)}{value(other):g}{t}") if other else ""
    return pick(f"{words[0]} {when} ({lead[0]}{value(day):g}{t}{beside})",
                f"{words[1]}{when}（{lead[1]}{value(day):g}{t}{beside}）")


def _compact_day(d: ForecastDay, today: date, t: str) -> str:
    chance = "" if d.precipitation_probability is None or d.day < 0 else pick(
        f" ({d.precipitation_probability:g}% chance of rain)", f"（降水概率{d.precipitation_probability:g}%）")
    return pick(f"{short_label(today, d.day)} {d.description}, {d.temp_min:g} to {d.temp_max:g}{t}{chance}"
                f"{_sun(d, False)}",
                f"{short_label(today, d.day)} {d.description}，{d.temp_min:g}~{d.temp_max:g}{t}{chance}{_sun(d, False)}")


def _sun(d: ForecastDay, with_length: bool) -> str:
    """Sunrise and sunset as local clock times (and the daylight's length), or the polar day or night."""
    if d.daylight_duration is None:
        return ""
    if d.sunrise is None or d.sunset is None:
        # Named as what is asked ("no sunrise"): "when does the sun rise?" is answered, not said to be lacking;
        # and with the day's length, which "how long is the day?" asks.
        if d.daylight_duration > 0:
            hours = round(d.daylight_duration / 3600)
            return pick(f", polar day (no sunrise or sunset: the sun does not set; {hours} h of daylight)",
                        f"，极昼（没有日出日落，太阳不落，白昼{hours}小时）")
        return pick(", polar night (no sunrise or sunset: the sun does not rise; 0 h of daylight)",
                    "，极夜（没有日出日落，太阳不升起，白昼0小时）")
    rise, set_ = d.sunrise[11:16], d.sunset[11:16]
    if not with_length:
        return pick(f", sunrise {rise}, sunset {set_}", f"，日出{rise}，日落{set_}")
    hours, minutes = divmod(round(d.daylight_duration / 60), 60)
    return pick(f", sunrise {rise}, sunset {set_} ({hours} h {minutes} min of daylight)",
                f"，日出{rise}，日落{set_}，白昼{hours}小时{minutes}分")


def _precipitation_day(d: PrecipitationDay, day: str, units: dict[str, str]) -> str:
    chance = "" if d.probability_max is None or d.day < 0 else pick(f" ({d.probability_max:g}% chance)",
                                                                    f"，降水概率{d.probability_max:g}%")
    snow = "" if not d.snowfall_sum else pick(f", {_amount(d.snowfall_sum, units, 'snowfall')} of snow",
                                              f"，降雪{_amount(d.snowfall_sum, units, 'snowfall')}")
    return pick(f"{day}: {d.description}, {_amount(d.precipitation_sum, units)}{snow}{chance}",
                f"{day}{d.description}，降水{_amount(d.precipitation_sum, units)}{snow}{chance}")


def _hours_text(r: Forecast | PrecipitationOutlook) -> str:
    """Hours by the clock one by one; a part of the day (早上, 下午, 今晚, tonight) summed up, day by day."""
    today = today_of(r.days[0].date, r.days[0].day)
    if r.part is None:  # the first hour's day in full, the others' briefly
        parts = [_hour(h, short_label(today, h.day) if i else label(today, h.day), r.units)
                 for i, h in enumerate(r.hours)]
    else:
        per_day = len(r.hours) // len(r.days)
        parts = [_part_of_day(r.hours[i * per_day:(i + 1) * per_day], day, r.part, today, r.units)
                 for i, day in enumerate(r.days)]
    return pick(f"{place_name(r.location)}, ", place_name(r.location)) + pick("; ", "；").join(parts) + pick(".", "。")


def _hour(h: HourRecord, day: str, units: dict[str, str]) -> str:
    t, wind = units["temperature"], units["wind_speed"]
    feels = "" if h.feels_like is None else pick(f" (feels like {h.feels_like:g}{t})", f"，体感{h.feels_like:g}{t}")
    chance = "" if h.precipitation_probability is None or h.day < 0 else pick(
        f", {h.precipitation_probability:g}% chance of precipitation", f"，降水概率{h.precipitation_probability:g}%")
    speed = "" if h.wind_speed is None else pick(f", wind {h.wind_speed:g} {wind}", f"，风速{h.wind_speed:g} {wind}")
    uv = pick(_en_uv(h.uv_index), _zh_uv(h.uv_index)) if h.uv_index else ""  # "UV 0" at night says nothing
    return pick(f"{day} {h.time[11:16]}: {h.description}, {h.temperature:g}{t}{feels}{chance}, "
                f"{_fallen(h.precipitation, h.snowfall or 0, units)}{speed}{uv}",
                f"{day}{h.time[11:16]}：{h.description}，{h.temperature:g}{t}{feels}{chance}，"
                f"{_fallen(h.precipitation, h.snowfall or 0, units)}{speed}{uv}")


def _part_of_day(hours: Sequence[HourRecord], day: Day, part: str, today: date, units: dict[str, str]) -> str:
    t, wind = units["temperature"], units["wind_speed"]
    low, high = min(h.temperature for h in hours), max(h.temperature for h in hours)
    mixed = any((h.rain or 0) > 0 for h in hours) and any((h.snowfall or 0) > 0 for h in hours)
    weather = describe(max(h.weather_code for h in hours), mixed)  # the most severe hour, as a day's code
    chance = max((h.precipitation_probability or 0) for h in hours)
    chance_text = "" if day.day < 0 else pick(f", chance of precipitation up to {chance:g}%",
                                               f"，降水概率最高{chance:g}%")
    wet = [h for h in hours if h.precipitation > 0]
    fallen = _fallen(round(sum(h.precipitation for h in wet), 1), round(sum(h.snowfall or 0 for h in wet), 2), units)
    when = "" if not wet else pick(f" between {wet[0].time[11:16]} and {wet[-1].time[11:16]}",
                                   f"，集中在{wet[0].time[11:16]}–{wet[-1].time[11:16]}")
    speeds = [h.wind_speed for h in hours if h.wind_speed is not None]
    speed = "" if not speeds else pick(f", wind up to {max(speeds):g} {wind}", f"，最大风速{max(speeds):g} {wind}")
    uv_max = max((h.uv_index for h in hours if h.uv_index is not None), default=0)
    uv = "" if not uv_max else pick(f", UV up to {uv_max:g}", f"，紫外线指数最高{uv_max:g}")
    start, end = hours[0].time[11:16], hours[-1].time[11:16]
    next_day = hours[-1].date != hours[0].date
    calendar = calendar_words(today_of(day.date))
    # The day's sunrise and sunset too: asked "几点日落" with a part of the day, a writer without them made one up.
    sun = _sun(day, False) if isinstance(day, ForecastDay) else ""
    return pick(f"{part_name(part, day.day, today)} ({calendar}, {start} to {end}{' the next day' if next_day else ''}): "
                f"{weather}, {low:g} to {high:g}{t}{chance_text}, {fallen}{when}{speed}{uv}{sun}",
                f"{part_name(part, day.day, today)}（{calendar} {start}至{'次日' if next_day else ''}{end}）："
                f"{weather}，{low:g}~{high:g}{t}{chance_text}，{fallen}{when}{speed}{uv}{sun}")


_PART_WORDS = {"morning": ("morning", "上午"), "noon": ("around noon", "中午"), "afternoon": ("afternoon", "下午"),
               "evening": ("evening", "傍晚"), "night": ("night", "夜间")}


def part_name(part: str, offset: int, today: date) -> str:
    """A part of a day as people say it: 今晚, 明天下午, 周五上午; tonight, this afternoon, tomorrow morning."""
    en, zh = _PART_WORDS[part]
    if current() == "zh":
        if part == "night" and offset in (0, 1):
            return ("今晚", "明晚")[offset]
        return f"{short_label(today, offset)}{zh}"
    if offset == 0:
        return "tonight" if part == "night" else "today around noon" if part == "noon" else f"this {en}"
    return f"{short_label(today, offset)} {en}"


def _fallen(amount: float, snow: float, units: dict[str, str]) -> str:
    """What fell (or falls): none, or how much, and how much of it as snow."""
    if amount <= 0:
        return pick("no precipitation", "无降水")
    snowed = "" if snow <= 0 else pick(f" ({_amount(snow, units, 'snowfall')} of snow)",
                                       f"（降雪{_amount(snow, units, 'snowfall')}）")
    return pick(f"{_amount(amount, units)} of precipitation{snowed}", f"降水{_amount(amount, units)}{snowed}")


def _amount(value: float, units: dict[str, str], kind: str = "precipitation") -> str:
    """An amount in the result's unit: mm or inch of water, cm or inch of snow."""
    unit = units.get(kind, "mm")
    if unit == "inch":
        return pick(f"{value:g} in", f"{value:g}英寸")
    if unit == "cm":
        return pick(f"{value:g} cm", f"{value:g}厘米")
    return pick(f"{value:g} mm", f"{value:g}毫米")


def _place_span(location: Location, days: Sequence[Day]) -> str:
    return pick(f"{place_name(location)}, {_span_label(days)}", f"{place_name(location)}{_span_label(days)}")


def _span_label(days: Sequence[Day]) -> str:
    """The days a multi-day text covers: 未来7天（12月1日–12月7日）; next 7 days (Tue 1 Dec – Mon 7 Dec)."""
    first, last = days[0], days[-1]
    today = today_of(first.date, first.day)
    start, end = today_of(first.date), today_of(last.date)
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
    """Hot and cold are said only when one holds ("not hot, not cold" says nothing); the others always, but which
    of two days is warmer and colder, which the span's extremes say with their figures."""
    return [v for v in verdicts if (v.topic not in ("hot", "cold") or v.holds) and v.topic not in STATED_COMPARISONS]


def with_verdicts(facts: str, verdicts: Sequence[Verdict], notice: str | None) -> str:
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


def today_of(day: str, offset: int = 0) -> date:
    """The place's today, from a record's date and its offset."""
    return date.fromisoformat(day[:10]) - timedelta(days=offset)


def _zh_uv(uv: float | None) -> str:
    return "" if uv is None else f"，紫外线指数{uv:g}"


def _en_uv(uv: float | None) -> str:
    return "" if uv is None else f", UV {uv:g}"


def _air_state(pressure: float | None, visibility: float | None, dew_point: float | None,
               units: dict[str, str]) -> str:
    """One short clause for the rest of the current state: pressure, visibility, dew point (those given)."""
    said = []
    if pressure is not None:
        unit = units.get("pressure", "hPa")
        said.append(pick(f"pressure {pressure:g} {unit}", f"气压{pressure:g}{_ZH_UNITS.get(unit, unit)}"))
    if visibility is not None:
        said.append(pick(f"visibility {_distance(visibility, units)}", f"能见度{_distance(visibility, units)}"))
    if dew_point is not None:
        t = units.get("dew_point", units["temperature"])
        said.append(pick(f"dew point {dew_point:g}{t}", f"露点{dew_point:g}{t}"))
    return "".join(pick(f", {part}", f"，{part}") for part in said)


def _distance(value: float, units: dict[str, str]) -> str:
    """A visibility in the result's unit: miles, or metres (as kilometres from 1 km on, as people say it)."""
    if units.get("visibility") == "mi":
        return pick(f"{value:g} mi", f"{value:g}英里")
    if value >= 1000:
        return pick(f"{round(value / 1000, 1):g} km", f"{round(value / 1000, 1):g}公里")
    return pick(f"{value:g} m", f"{value:g}米")
