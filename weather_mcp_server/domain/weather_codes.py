"""WMO weather interpretation codes as used by Open-Meteo's `weather_code`."""

from __future__ import annotations

from weather_mcp_server.wording.language import pick

# WMO code: (English, Chinese)
_DESCRIPTIONS: dict[int, tuple[str, str]] = {
    0: ("Clear sky", "晴"),
    1: ("Mainly clear", "大致晴朗"),
    2: ("Partly cloudy", "局部多云"),
    3: ("Overcast", "阴"),
    45: ("Fog", "雾"),
    48: ("Depositing rime fog", "雾凇"),
    51: ("Light drizzle", "小毛毛雨"),
    53: ("Moderate drizzle", "毛毛雨"),
    55: ("Dense drizzle", "大毛毛雨"),
    56: ("Light freezing drizzle", "冻毛毛雨"),
    57: ("Dense freezing drizzle", "强冻毛毛雨"),
    61: ("Slight rain", "小雨"),
    63: ("Moderate rain", "中雨"),
    65: ("Heavy rain", "大雨"),
    66: ("Light freezing rain", "冻雨"),
    67: ("Heavy freezing rain", "强冻雨"),
    71: ("Slight snowfall", "小雪"),
    73: ("Moderate snowfall", "中雪"),
    75: ("Heavy snowfall", "大雪"),
    77: ("Snow grains", "米雪"),
    80: ("Slight rain showers", "小阵雨"),
    81: ("Moderate rain showers", "阵雨"),
    82: ("Violent rain showers", "强阵雨"),
    85: ("Slight snow showers", "小阵雪"),
    86: ("Heavy snow showers", "强阵雪"),
    95: ("Thunderstorm", "雷暴"),
    96: ("Thunderstorm with slight hail", "雷暴伴小冰雹"),
    99: ("Thunderstorm with heavy hail", "雷暴伴大冰雹"),
}

SNOW_CODES = frozenset({71, 73, 75, 77, 85, 86})
RAIN_CODES = frozenset({51, 53, 55, 56, 57, 61, 63, 65, 66, 67, 80, 81, 82, 95, 96, 99})


def describe(code: int, mixed: bool = False) -> str:
    """The code's description in the call's language (`mixed`: rain and snow fell, which no code says); unknown
    codes are named rather than guessed."""
    if mixed:
        return pick("Rain and snow", "雨夹雪")
    if code not in _DESCRIPTIONS:
        return pick(f"unknown weather code {code}", f"未知天气代码 {code}")
    return pick(*_DESCRIPTIONS[code])
