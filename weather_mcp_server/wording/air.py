"""How an air-quality result reads, in the call's language: the index and category first (China's AQI, which
Chinese readers know, with its primary pollutant), then the concentrations by their usual short names, then the
US and European indices; pollen last, where the data has it (Europe)."""

from __future__ import annotations

from datetime import date

from weather_mcp_server.domain.days import calendar_words, label, short_label
from weather_mcp_server.models import AirQuality, AirQualityDay, AirReading, ChinaAqi, Pollen, Pollutants
from weather_mcp_server.wording.language import pick
from weather_mcp_server.wording.weather import part_name, place_name, today_of, with_verdicts

# The names a reader looks for ("PM2.5", "O3"), ASCII so a question's term matches.
_SHORT = (("pm2_5", "PM2.5"), ("pm10", "PM10"), ("ozone", "O3"), ("nitrogen_dioxide", "NO2"),
          ("sulphur_dioxide", "SO2"), ("carbon_monoxide", "CO"))
_POLLEN = (("alder_pollen", "alder", "桤木"), ("birch_pollen", "birch", "桦树"), ("grass_pollen", "grass", "禾草"),
           ("mugwort_pollen", "mugwort", "艾蒿"), ("olive_pollen", "olive", "橄榄"), ("ragweed_pollen", "ragweed", "豚草"))
_GRAINS = (" grains/m³", "粒/立方米")


def air_quality_text(r: AirQuality) -> str:
    """Now (for today), else each asked day; the asked hours one by one, a part of the day summed up."""
    place = place_name(r.location)
    today = today_of(r.days[0].date, r.days[0].day)
    if r.hours:
        parts = _hours(r, today)
    elif r.current is not None and len(r.days) == 1:
        when = f"{calendar_words(today)} {r.current.time[11:16]}"
        parts = [pick(f"now ({when}): ", f"现在（{when}）") + _reading(r.current, "")]
    else:
        parts = [_day(d, today) for d in r.days]
    facts = pick(f"{place}, ", place) + pick("; ", "；").join(parts) + pick(".", "。")
    # The category is said first already; the `polluted` verdict is for hosts checking a yes or no.
    return with_verdicts(facts, [], r.notice)


def _hours(r: AirQuality, today: date) -> list[str]:
    if r.part is None:
        return [f"{label(today, _offset(h, today)) if i == 0 else short_label(today, _offset(h, today))}"
                f"{pick(' ', '')}{h.time[11:16]}{pick(': ', '：')}{_reading(h, '')}" for i, h in enumerate(r.hours)]
    per_day = len(r.hours) // len(r.days)
    said = []
    for i, day in enumerate(r.days):
        hours = r.hours[i * per_day:(i + 1) * per_day]
        worst = max(hours, key=lambda h: h.china_aqi.aqi if h.china_aqi else -1)
        pm25 = [h.pm2_5 for h in hours if h.pm2_5 is not None]
        next_day = hours[-1].time[:10] != hours[0].time[:10]
        span = pick(f"{hours[0].time[11:16]} to {hours[-1].time[11:16]}{' the next day' if next_day else ''}",
                    f"{hours[0].time[11:16]}至{'次日' if next_day else ''}{hours[-1].time[11:16]}")
        head = pick(f"{part_name(r.part, day.day, today)} ({span}): ", f"{part_name(r.part, day.day, today)}（{span}）：")
        rng = "" if not pm25 else pick(f", PM2.5 {min(pm25):g} to {max(pm25):g} μg/m³",
                                       f"，PM2.5 {min(pm25):g}~{max(pm25):g}微克/立方米")
        said.append(head + pick(f"at worst {worst.time[11:16]}, ", f"最差在{worst.time[11:16]}，")
                    + _index(worst.china_aqi, worst.us_aqi, worst.european_aqi) + rng + _most_pollen(hours))
    return said


def _day(d: AirQualityDay, today: date) -> str:
    return (label(today, d.day) + pick(" (24-hour means): ", "（24小时平均）")
            + _index(d.china_aqi, d.us_aqi_max, d.european_aqi_max, daily=True) + pick(", ", "，")
            + _concentrations(d) + _pollen(d))


def _reading(r: AirReading, prefix: str) -> str:
    return prefix + _index(r.china_aqi, r.us_aqi, r.european_aqi) + pick(", ", "，") + _concentrations(r) + _pollen(r)


def _index(china: ChinaAqi | None, us: float | None, european: float | None, daily: bool = False) -> str:
    highest = pick(" up to", "最高") if daily else ""
    others = [pick(f"US AQI{highest} {us:g}", f"美国AQI{highest} {us:g}") if us is not None else "",
              pick(f"European AQI{highest} {european:g}", f"欧洲AQI{highest} {european:g}") if european is not None
              else ""]
    rest = pick(", ", "，").join(o for o in others if o)
    if china is None:
        return rest
    primary = "" if not china.primary_pollutants else pick(f", primary pollutant {'/'.join(china.primary_pollutants)}",
                                                           f"，首要污染物{'、'.join(china.primary_pollutants)}")
    said = pick(f"air quality {china.category_en.lower()} (China AQI {china.aqi}{primary})",
                f"空气质量{china.category}（中国AQI {china.aqi}{primary}）")
    return said + (pick(f", {rest}", f"，{rest}") if rest else "")


def _concentrations(p: Pollutants) -> str:
    values = [(name, getattr(p, field)) for field, name in _SHORT if getattr(p, field) is not None]
    said = pick(", ", "、").join(f"{name} {value:g}" for name, value in values)
    return said + pick(" μg/m³", " 微克/立方米") if said else ""


def _pollen(p: Pollen) -> str:
    """The pollen there is, most first (none given outside Europe: nothing said); the kinds at 0 in a word."""
    given = [(getattr(p, field), en, zh) for field, en, zh in _POLLEN if getattr(p, field) is not None]
    if not given:
        return ""
    present = sorted((kind for kind in given if kind[0] > 0), key=lambda kind: -kind[0])
    if not present:
        return pick(f", pollen 0{_GRAINS[0]}", f"，花粉0{_GRAINS[1]}")
    rest = pick(" (others 0)", "（其余为0）") if len(present) < len(given) else ""
    return pick(", pollen: " + ", ".join(f"{en} {value:g}" for value, en, _ in present) + _GRAINS[0] + rest,
                "，花粉：" + "、".join(f"{zh}{value:g}" for value, _, zh in present) + _GRAINS[1] + rest)


def _most_pollen(hours: list[AirReading]) -> str:
    """A part of the day's highest pollen, of the kind that reaches it."""
    given = [(getattr(h, field), en, zh) for h in hours for field, en, zh in _POLLEN if getattr(h, field) is not None]
    if not given:
        return ""
    value, en, zh = max(given, key=lambda kind: kind[0])
    if not value:
        return pick(f", pollen 0{_GRAINS[0]}", f"，花粉0{_GRAINS[1]}")
    return pick(f", {en} pollen up to {value:g}{_GRAINS[0]}", f"，{zh}花粉最高{value:g}{_GRAINS[1]}")


def _offset(reading: AirReading, today: date) -> int:
    return (date.fromisoformat(reading.time[:10]) - today).days
