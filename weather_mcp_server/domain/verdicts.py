"""The conclusions the data decides (rain or not, hot or not, which place is colder), stated in the call's language.

They are computed here, for exactly the days a call covers, so no reader has to work them out from the figures:
a host shows `statement`, and can check an answer against `holds` / `winner` for the question's `keywords`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from weather_mcp_server.domain.weather_codes import RAIN_CODES, SNOW_CODES
from weather_mcp_server.models import ForecastDay, HourRecord, Location, PrecipitationDay, Verdict
from weather_mcp_server.wording.language import pick

RAIN_PROBABILITY = 50.0  # a day at or above this chance of precipitation counts as wet
RAIN_MM = 1.0
HOT_C = 28.0  # a high (or a current temperature) from here up is hot
COLD_C = 10.0  # a high (or a current feels-like) from here down is cold
FEEL_SPAN_DAYS = 7  # a span this short (the weekend, 明后天, 这周) is said hot or cold, with the days it is so
WINDY_KMH = 29.0  # Beaufort 5 ("fresh breeze"), China's 5级: from here up a day or a moment is windy
GUSTY_KMH = 50.0  # gusts from here up make it windy whatever the mean wind

# (Chinese in both scripts: "會很熱嗎" was answered "會很熱" at 19.9°C, 熱 being no word for hot; and the stems of the
# other languages a question may come in, "Pioverà domani?" being a rain question: none a part of a common English word)
_KEYWORDS = {
    "rain": ["rain", "shower", "wet", "drizzle", "pour", "雨", "llov", "lluvia", "pleu", "pluie", "regen", "regn",
             "piov", "pioggia", "chuv", "비가", "비 와", "비와", "비 오", "비오"],
    "snow": ["snow", "雪", "nieve", "nieva", "nevar", "neige", "neiger", "schnee", "schnei", "nevic", "눈이", "눈 와",
             "눈와", "눈 오", "눈오"],
    "umbrella": ["umbrella", "brolly", "伞", "傘", "raincoat", "rain coat", "rain jacket", "waterproof", "poncho", "雨衣",
                 "雨具", "paraguas", "parapluie", "schirm", "ombrell", "guarda-chuva", "우산"],
    "hot": ["hot", "warm", "heat", "scorch", "swelter", "sizzl", "boiling", "unbearabl", "热", "熱", "暖", "calor",
            "caluros", "chaud", "heiß", "heiss", "caldo", "calda", "暑い", "暑く", "더워", "덥",
            "shorts", "t-shirt", "短袖", "短裤"],
    # (and the clothes worn against it: "do they need jumpers?", "要不要把羽绒服翻出来" ask whether it is cold)
    "cold": ["cold", "chilly", "freez", "cool", "frigid", "frost", "冷", "凉", "涼", "冻", "凍", "frío", "frio", "froid",
             "kalt", "freddo", "fredda", "寒い", "寒く", "추워", "춥",
             "jumper", "sweater", "jacket", "coat", "hoodie", "layers", "外套", "羽绒服", "毛衣", "棉袄", "秋裤", "保暖"],
    # The highest high is the warmer place's, the lowest low the colder's ("谁的最低气温最低").
    "warmer": ["warm", "hot", "热", "熱", "暖", "highest high", "higher high", "highest max", "higher max", "最高气温最高",
               "最高温最高", "最高温度最高", "最高气温更高", "最高温更高", "温度高", "气温高", "温度更高", "气温更高",
               "温度最高", "气温最高", "higher temp"],
    "colder": ["cold", "cool", "chill", "冷", "凉", "涼", "冻", "凍", "lowest low", "lower low", "lowest min", "lower min", "最低气温最低",
               "最低温最低", "最低温度最低", "最低气温更低", "最低温更低", "温度低", "气温低", "温度更低", "气温更低",
               "温度最低", "气温最低", "lower temp"],
    "wetter": ["wet", "rain", "雨", "湿", "降水"],
    "windy": ["wind", "gust", "breez", "viento", "venteux", "ventoso", "风大", "大风", "风不大", "风很大", "刮风", "风力",
              "風大", "大風", "風不大", "風很大", "颳風", "風力"],  # not 风 alone: 台风
    "windier": ["wind", "gust", "breez", "blow", "bluster", "风", "風"],
    # The other way round ("less wind: Tarifa or Biarritz?", "哪里雨少"): longer than the words of wetter and windier
    # they contain, so a question with them asks these.
    "drier": ["drier", "dryer", "driest", "less rain", "least rain", "less precipitation", "雨少", "雨更少", "雨最少",
              "少雨", "降水少", "降水更少", "降水最少", "降水量少", "降水量更少", "降水量最少", "雨水少", "雨水更少", "更干",
              "最干"],
    "calmer": ["calmer", "calmest", "less wind", "least wind", "less gust", "风小", "风更小", "风最小", "風小", "風更小",
               "風最小"],
    "polluted": ["pollut", "smog", "haze", "mask", "污染", "雾霾", "霾", "口罩"],
    # A comparison's chance of rain and UV ("下雨概率更高", "where's the UV stronger"): longer than wetter's words,
    # so "chance of rain" asks this, not which place gets more rain.
    "likelier": ["chance of rain", "chance of precipitation", "chance of snow", "rain chance", "probability",
                 "likelihood of rain", "odds of rain", "概率", "几率", "可能性", "下雨概率", "降雨概率", "降水概率",
                 "降雪概率", "下雪概率", "下雨的概率", "下雨几率", "降雨几率", "下雨的可能性", "下雨可能性",
                 "likely to rain", "likely to get rain", "likely to snow", "likeliest", "最可能下雨"],
    # ... and the other way round ("which is least likely to get rain"): longer than likelier's and wetter's words.
    "unlikelier": ["least likely", "less likely", "lowest chance", "lower chance", "smallest chance", "smaller chance",
                   "least likely to rain", "least likely to get rain", "less likely to rain", "less likely to get rain",
                   "最不可能", "可能性最小", "可能性更小", "可能性小", "概率最低", "概率更低", "概率最小", "概率更小",
                   "概率低", "下雨概率最低", "下雨概率更低", "降水概率最低", "降水概率更低", "下雨的可能性最小",
                   "不容易下雨", "不容易下雪", "不太会下雨", "不太容易下雨"],
    "uv": ["uv", "ultraviolet", "紫外线", "紫外"],
    # Whether the sun rises at all, said on a day of polar night ("does the sun even come up in Tromsø?").
    "sunrise": ["sunrise", "sun rise", "sun come up", "sun comes up", "sun even come up", "sun up", "see the sun",
                "sun at all", "日出", "太阳升起", "太阳出来", "看到太阳", "见到太阳", "太阳会出来"],
}
# Words for rain and snow alike: they go with each of the two the data has, or with both when it has neither, so
# "no precipitation this week" beside a day of snow contradicts the snow (it agreed with "no rain"), and "会有降水吗"
# asked of a snowy week is answered by the snow.
_EITHER = ["precipitation", "降水"]
POLLUTED_AQI = 100  # China's AQI above this exceeds the Grade II standard: 轻度污染 and worse


def rain_expected(precipitation_mm: float, code: int, probability: float | None) -> bool:
    """A day is wet when a millimetre falls, its weather is rain, or rain is more likely than not; a day whose
    weather is snow is a snowy day, not a rainy one (its rain, if any, is in `precipitation_mm`)."""
    if code in SNOW_CODES:
        return precipitation_mm >= RAIN_MM
    return precipitation_mm >= RAIN_MM or code in RAIN_CODES or (probability or 0) >= RAIN_PROBABILITY


def snow_expected(snowfall_cm: float, code: int) -> bool:
    return snowfall_cm > 0 or code in SNOW_CODES


def precipitation_verdicts(days: Sequence[PrecipitationDay], labels: Sequence[str]) -> list[Verdict]:
    """Rain, snow and umbrella over the covered days; a wet day is named. Past days say what fell."""
    rainy = [label for day, label in zip(days, labels) if day.rain_expected]
    snowy = [label for day, label in zip(days, labels) if day.snow_expected]
    past = days[-1].day < 0
    verdicts = _rain_and_snow(rainy, snowy, len(days), past)
    return verdicts if past else [*verdicts, _umbrella(bool(rainy or snowy))]


def _rain_mm(day: ForecastDay) -> float:
    """The day's rain: its rain sum where the provider gives one (a snowy day's sleet counts, as its description
    "Rain and snow" says), else none on a snowy day and all its precipitation on another."""
    if day.rain_sum is not None:
        return day.rain_sum
    return 0.0 if day.weather_code in SNOW_CODES else day.precipitation_sum


def forecast_verdicts(days: Sequence[ForecastDay], labels: Sequence[str],
                      names: Sequence[list[str]] = ()) -> list[Verdict]:
    """Rain and snow over the covered days, hot/cold when the span is a few days (the weekend's "冷不冷" had no
    verdict to answer by), windy when it is one day, and of two days which is warmer and which colder (`names`:
    each day's names)."""
    rainy = [label for day, label in zip(days, labels) if rain_expected(_rain_mm(day), day.weather_code,
                                                                          day.precipitation_probability)]
    # A day of rain and snow under a rain code ("雨夹雪 ... 不会下雪" was one forecast's text) has snow by its sum.
    snowy = [label for day, label in zip(days, labels) if snow_expected(day.snowfall_sum or 0, day.weather_code)]
    past = days[-1].day < 0
    verdicts = _rain_and_snow(rainy, snowy, len(days), past)
    if len(days) == 1:
        day = days[0]
        verdicts += [*feel_verdicts(day.temp_max, day.temp_max, past), windy(day.wind_speed_max, None, past)]
        if day.sunrise is None and day.daylight_duration == 0:  # polar night: "Yes, the sun will rise" is false
            verdicts.append(_yes_no("sunrise", False, pick("the sun does not rise (polar night)", "太阳不升起（极夜）")))
    elif len(days) <= FEEL_SPAN_DAYS:
        verdicts += _span_feel(days, labels, past)
    if len(days) == 2 and names:
        verdicts += day_comparison_verdicts(days, labels, names)
    return verdicts


# Of two days compared ("is tomorrow warmer than today", "昨天和今天哪天更冷", "明天会比今天热吗"): words that
# compare, so that a question of the two days' heat or cold ("今明两天冷不冷") is asked its yes or no, not which wins
# (and, longer than the hot and cold words they hold, they take the question from those).
_WARMER_DAY = ["warmer", "hotter", "milder", "warmest", "hottest", "warm up", "更暖", "更热", "更熱", "暖和些", "暖和点",
               "暖和一点", "热一点", "热一些", "热些", "热点", "升温", "回暖", "变暖", "变热"]
_COLDER_DAY = ["colder", "cooler", "chillier", "coldest", "coolest", "cool down", "cool off", "更冷", "更凉", "更涼",
               "冷一点", "冷一些", "冷些", "冷点", "凉快些", "降温", "变冷", "变凉", "转凉", "转冷"]


def day_comparison_verdicts(days: Sequence[ForecastDay], labels: Sequence[str],
                            names: Sequence[list[str]]) -> list[Verdict]:
    """Of two days, which is warmer (the higher high) and which colder (the lower low), each day named by its label;
    the Chinese that compares with a day's name ("比今天冷", "没昨天热") asks them too."""
    def keywords(words: list[str], adjectives: str) -> list[str]:
        chinese = [name for day in names for name in day if not name.isascii()]
        return [*words, *(f"{before}{name}{more}{adjective}" for name in chinese for adjective in adjectives
                          for before, more in (("比", ""), ("比", "更"), ("比", "还"), ("没", ""), ("没有", "")))]

    def said(en: str, zh: str) -> Callable[[str], str]:
        return lambda label: pick(f"{label} {en}", f"{label}{zh}")

    warmer = _winner("warmer", [(label, day.temp_max) for day, label in zip(days, labels)], list(names), max,
                     said("is warmer", "更暖和"), pick("equally warm", "两天一样暖和"), keywords(_WARMER_DAY, "热暖熱"))
    colder = _winner("colder", [(label, day.temp_min) for day, label in zip(days, labels)], list(names), min,
                     said("is colder", "更冷"), pick("equally cold", "两天一样冷"), keywords(_COLDER_DAY, "冷凉"))
    if warmer.winner and warmer.winner == colder.winner:  # (as of two places)
        warmer = warmer.model_copy(update={"statement": said("has the higher high", "最高气温更高")(warmer.winner)})
        colder = colder.model_copy(update={"statement": said("has the lower low", "最低气温更低")(colder.winner)})
    return [warmer, colder]


def _span_feel(days: Sequence[ForecastDay], labels: Sequence[str], past: bool) -> list[Verdict]:
    """Hot and cold over a few days: hot on the days whose high reaches HOT_C, cold on those whose high is at most
    COLD_C, the days named."""
    hot = [label for day, label in zip(days, labels) if day.temp_max >= HOT_C]
    cold = [label for day, label in zip(days, labels) if day.temp_max <= COLD_C]
    said_hot, said_cold = feel_verdicts(max(day.temp_max for day in days), min(day.temp_max for day in days), past)
    every = pick(" (every day)", "（每天）")  # a week's every day named is too long a yes or no
    return [verdict.model_copy(update={"statement": verdict.statement + (
        every if len(which) == len(days) else _which(which, len(days)))}) if which
        else verdict for verdict, which in ((said_hot, hot), (said_cold, cold))]


def hour_verdicts(hours: Sequence[HourRecord], umbrella: bool) -> list[Verdict]:
    """Rain and snow in the asked hours (and the umbrella, for a precipitation question): an hour is wet when
    rain or snow falls, its weather is rain or snow, or rain is more likely than not."""
    rainy = any((h.rain or 0) > 0 or h.weather_code in RAIN_CODES or (
        h.weather_code not in SNOW_CODES and (h.precipitation_probability or 0) >= RAIN_PROBABILITY) for h in hours)
    snowy = any((h.snowfall or 0) > 0 or h.weather_code in SNOW_CODES for h in hours)
    past = hours[-1].day < 0
    verdicts = _with_either_words([_rain(rainy, "", past), _snow(snowy, "", past)])
    if umbrella and not past:
        verdicts.append(_umbrella(rainy or snowy))
    # Hot or cold, windy or not, in those hours ("今天下午热不热", "下午3点风大吗"): the warmest hour decides, as a
    # day's high does, its feel for cold (6 °C that feels like 2 °C is cold).
    warmest = max(h.temperature for h in hours)
    verdicts += feel_verdicts(warmest, max(h.feels_like if h.feels_like is not None else h.temperature
                                           for h in hours), past)
    winds = [h.wind_speed for h in hours if h.wind_speed is not None]
    return [*verdicts, windy(max(winds), None, past)] if winds else verdicts


def feel_verdicts(warmest: float, coldest: float, past: bool = False) -> list[Verdict]:
    """Hot when `warmest` reaches HOT_C, cold when `coldest` is at most COLD_C."""
    hot, cold = warmest >= HOT_C, coldest <= COLD_C
    if past:
        return [_yes_no("hot", hot, pick("it was hot", "天气炎热") if hot else pick("it was not hot", "不算热")),
                _yes_no("cold", cold, pick("it was cold", "天气寒冷") if cold else pick("it was not cold", "不算冷"))]
    return [
        _yes_no("hot", hot, pick("it is hot", "天气炎热") if hot else pick("it is not hot", "不算热")),
        _yes_no("cold", cold, pick("it is cold", "天气寒冷") if cold else pick("it is not cold", "不算冷")),
    ]


def windy(speed_kmh: float, gusts_kmh: float | None = None, past: bool = False) -> Verdict:
    """Windy when the mean wind reaches WINDY_KMH or the gusts GUSTY_KMH ("风大不大", "is it windy")."""
    holds = speed_kmh >= WINDY_KMH or (gusts_kmh or 0.0) >= GUSTY_KMH
    if past:
        return _yes_no("windy", holds, pick("it was windy", "风很大") if holds else pick("it was not windy", "风不大"))
    return _yes_no("windy", holds, pick("it is windy", "风很大") if holds else pick("it is not windy", "风不大"))


def polluted(aqi: int, category: str, category_en: str) -> Verdict:
    """Whether the air is polluted: China's AQI above 100 (轻度污染 and worse), its category named."""
    if aqi > POLLUTED_AQI:
        return _yes_no("polluted", True, pick(f"the air is {category_en.lower()}", f"空气{category}"))
    return _yes_no("polluted", False, pick(f"the air is not polluted ({category_en.lower()})",
                                           f"没有污染，空气质量{category}"))


def raining_now(precipitation_mm: float, code: int) -> Verdict:
    """Rain now: its weather is rain, or precipitation falls that is not snow (Moncton's slight snowfall had been
    "it is raining now")."""
    wet = code in RAIN_CODES or (precipitation_mm > 0 and code not in SNOW_CODES)
    return _yes_no("rain", wet, pick("it is raining now", "现在正在下雨") if wet
                   else pick("it is not raining now", "现在没有下雨"))


def snowing_now(snowfall_cm: float, code: int) -> Verdict:
    """Snow now: its weather is snow, or snow falls ("is it still snowing")."""
    snowy = code in SNOW_CODES or snowfall_cm > 0
    return _yes_no("snow", snowy, pick("it is snowing now", "现在正在下雪") if snowy
                   else pick("it is not snowing now", "现在没有下雪"))


def umbrella_now(raining: Verdict, snowing: Verdict) -> Verdict:
    """An umbrella for the present moment ("do i need an umbrella in london rn" was answered "Yes" beside "it is not
    raining now": the question's word had no verdict of its own to hold the lead to)."""
    wet = bool(raining.holds or snowing.holds)
    return _yes_no("umbrella", wet, pick("take an umbrella", "建议带伞") if wet
                   else pick("no umbrella needed right now", "现在不用带伞"))


@dataclass(frozen=True)
class Standing:
    """One compared place's figures over the span."""

    location: Location
    name: str
    warmth: float
    coldness: float
    wetness: float
    windiness: float
    chance: float | None = None  # the highest chance of precipitation over the span
    uv: float | None = None  # the highest UV index over the span


def comparison_verdicts(standings: Sequence[Standing]) -> list[Verdict]:
    """Which place is warmer, colder, wetter, windier, drier and calmer, and where the data has them, which has the
    higher and the lower chance of rain and the stronger UV; a tie names no winner. Of three places or more, the
    winner is said as the most of them ("Bergen is the warmest", "广州最暖和"), not as more than one other."""
    places = [_names(s) for s in standings]

    def scored(value: Callable[[Standing], float | None]) -> list[tuple[str, float | None]]:
        return [(s.name, value(s)) for s in standings]

    both = "两地" if len(standings) == 2 else "各地"  # a tie of three places or more is of every place

    def said(two_en: str, two_zh: str, many_en: str, many_zh: str) -> Callable[[str], str]:
        en, zh = (two_en, two_zh) if len(standings) == 2 else (many_en, many_zh)
        return lambda name: pick(f"{name} {en}", f"{name}{zh}")

    warmer = _winner("warmer", scored(lambda s: s.warmth), places, max,
                     said("is warmer", "更暖和", "is the warmest", "最暖和"), pick("equally warm", f"{both}一样暖和"))
    colder = _winner("colder", scored(lambda s: s.coldness), places, min,
                     said("is colder", "更冷", "is the coldest", "最冷"), pick("equally cold", f"{both}一样冷"))
    if warmer.winner and warmer.winner == colder.winner:
        # the highest high and the lowest low in one place: "多哈更暖和，多哈更冷" read as a contradiction
        warmer = warmer.model_copy(update={"statement": said(
            "has the higher high", "最高气温更高", "has the highest high", "最高气温最高")(warmer.winner)})
        colder = colder.model_copy(update={"statement": said(
            "has the lower low", "最低气温更低", "has the lowest low", "最低气温最低")(colder.winner)})
    return [
        warmer,
        colder,
        _winner("wetter", scored(lambda s: s.wetness), places, max,
                said("gets more rain", "降水更多", "gets the most rain", "降水最多"),
                pick("equally wet", f"{both}降水一样多")),
        _winner("windier", scored(lambda s: s.windiness), places, max,
                said("is windier", "风更大", "is the windiest", "风最大"), pick("equally windy", f"{both}风一样大")),
        _winner("drier", scored(lambda s: s.wetness), places, min,
                said("gets less rain", "降水更少", "gets the least rain", "降水最少"),
                pick("equally wet", f"{both}降水一样多")),
        _winner("calmer", scored(lambda s: s.windiness), places, min,
                said("is less windy", "风更小", "is the least windy", "风最小"),
                pick("equally windy", f"{both}风一样大")),
        *([_winner("likelier", scored(lambda s: s.chance), places, max,
                   said("has the higher chance of rain", "降水概率更高", "has the highest chance of rain", "降水概率最高"),
                   pick("the same chance of rain", f"{both}降水概率一样")),
           _winner("unlikelier", scored(lambda s: s.chance), places, min,
                   said("has the lower chance of rain", "降水概率更低", "has the lowest chance of rain", "降水概率最低"),
                   pick("the same chance of rain", f"{both}降水概率一样"))]
          if all(s.chance is not None for s in standings) else []),
        *([_winner("uv", scored(lambda s: s.uv), places, max,
                   said("has the stronger UV", "紫外线更强", "has the strongest UV", "紫外线最强"),
                   pick("equally strong UV", f"{both}紫外线一样强"))]
          if all(s.uv is not None for s in standings) else []),
    ]


# The verdicts a comparison's text states: drier and calmer are wetter and windier read the other way round.
STATED_COMPARISONS = ("warmer", "colder", "wetter", "windier")


def _winner(topic, scored, places, best, says, tie, keywords=None) -> Verdict:  # noqa: ANN001 - local helper
    """The verdict of `topic` over (name, value) pairs: the one name whose value is `best`, or none on a tie."""
    top = best(value for _, value in scored)
    leaders = [name for name, value in scored if value == top]
    winner = leaders[0] if len(leaders) == 1 else None
    return Verdict(topic=topic, winner=winner, places=places, statement=says(winner) if winner else tie,
                   keywords=keywords or _KEYWORDS[topic])


def _names(standing: Standing) -> list[str]:
    location = standing.location
    asked_as = location.name[location.name.find("(") + 1:-1] if location.name.endswith(")") else ""
    names = [standing.name, location.name, location.english_name, location.chinese_name or "", asked_as]
    return list(dict.fromkeys(name for name in names if name))  # ("George Town (Penang)": Penang too)


def _rain_and_snow(rainy: list[str], snowy: list[str], span: int, past: bool) -> list[Verdict]:
    """Rain and snow over days: the wet days (labels) named when the span has several."""
    return _with_either_words([_rain(bool(rainy), _which(rainy, span), past),
                               _snow(bool(snowy), _which(snowy, span), past)])


def _with_either_words(rain_and_snow: list[Verdict]) -> list[Verdict]:
    """The rain and snow verdicts with the words for either (_EITHER) on those that hold, or on both."""
    either = [verdict for verdict in rain_and_snow if verdict.holds] or rain_and_snow
    return [verdict.model_copy(update={"keywords": [*verdict.keywords, *_EITHER]}) if verdict in either else verdict
            for verdict in rain_and_snow]


def _rain(rainy: bool, which: str, past: bool) -> Verdict:
    """`which`: the wet days, named after the statement."""
    if not rainy:
        return _yes_no("rain", False, pick("no rain fell", "没有下雨") if past else pick("no rain is expected", "不会下雨"))
    said = pick("it rained", "下了雨") if past else pick("rain is expected", "会下雨")
    return _yes_no("rain", True, said + which)


def _snow(snowy: bool, which: str, past: bool) -> Verdict:
    if not snowy:
        return _yes_no("snow", False, pick("no snow fell", "没有下雪") if past else pick("no snow is expected", "不会下雪"))
    said = pick("it snowed", "下了雪") if past else pick("snow is expected", "会下雪")
    return _yes_no("snow", True, said + which)


def _umbrella(wet: bool) -> Verdict:
    return _yes_no("umbrella", wet, pick("take an umbrella", "建议带伞") if wet
                   else pick("no umbrella needed", "不用带伞"))


def _which(labels: list[str], span: int) -> str:
    """The wet days, when the span has more than one."""
    if span == 1:
        return ""
    return pick(f" ({', '.join(labels)})", f"（{'、'.join(labels)}）")


def _yes_no(topic: str, holds: bool, statement: str) -> Verdict:
    return Verdict(topic=topic, holds=holds, statement=statement, keywords=_KEYWORDS[topic])
