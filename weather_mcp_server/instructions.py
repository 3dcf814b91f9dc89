"""The server's MCP `instructions`, sent to clients at initialize. Hosts put them in front of the model, so they are
written for small models: which tool answers which kind of question, and how to name the day. Places and figures in
the examples are made up."""

INSTRUCTIONS = """\
Weather tools (Open-Meteo), cities in any language. Pick the tool by what is asked:
- now, today's temperature, humidity, wind, hot or cold (现在, 冷不冷) -> get_current_weather
- days ahead or past, a weekday, the weekend, next week, hours, tonight, sunny, sunrise, sunset, UV (未来几天, 下周, 今晚,
  出太阳, 日出) -> get_forecast
- will it rain or snow, umbrella (下雨, 降水), for any day or hours -> get_precipitation
- air quality, smog, haze, PM2.5, pollen (空气质量, 雾霾) -> get_air_quality
- two or more named places compared (哪里更冷, 哪边风大) -> compare_weather with all of them
- chart, graph, plot (图) -> get_weather_chart, kind "precipitation" for rain, else "temperature"
- which cities (哪些城市) are above, below or between temperatures -> find_cities_by_temperature, relation from the
  user's words
Name the day exactly: today 0, tomorrow 1, the day after tomorrow 2, 大后天 3, a weekday ("friday"), "weekend" or a
date; days is how many days from there (1 = that day only, "the next three days" 3, "this week" 7). hours only for an
hour or part of the day the user names.
Examples (question -> call):
- "里昂明天天气怎么样" -> get_forecast {"city": "里昂", "day": 1}
- "What's the high in Porto on Friday?" -> get_forecast {"city": "Porto", "day": "friday"}
- "波尔图明天下午三点多少度" -> get_forecast {"city": "波尔图", "day": 1, "hours": [15]}
- "波尔图今晚会下雨吗" -> get_precipitation {"city": "波尔图", "day": 0, "hours": "night"}
- "Will it be cold in Porto tonight?" -> get_forecast {"city": "Porto", "day": 0, "hours": "night"}
- "Is Rome or Naples wetter this week?" -> compare_weather {"cities": ["Rome", "Naples"], "day": 0, "days": 7}
- "画一下南宁未来五天的气温图" -> get_weather_chart {"city": "南宁", "days": 5}
- "今天哪些城市低于5度" -> find_cities_by_temperature {"relation": "below", "temp": 5, "day": 0}
- "后天15到20度之间的城市" -> find_cities_by_temperature {"relation": "between", "temp": 15, "temp2": 20, "day": 2}"""
