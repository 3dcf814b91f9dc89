"""The server's MCP `instructions`, sent to clients at initialize. Hosts put them in front of the model, so they are
written for small models: which tool answers which kind of question, and how to name the day. Places and figures in
the examples are made up."""

INSTRUCTIONS = """\
Weather tools (Open-Meteo). Cities may be written in English or Chinese. Pick the tool by what is asked:
- weather right now, current temperature, humidity, wind, is it hot or cold today (现在, 气温, 湿度, 热吗, 冷不冷)
  -> get_current_weather
- a day or days ahead: tomorrow, the next days, a weekday, the weekend, next week (明天, 未来几天, 周六, 周末, 下周)
  -> get_forecast; also hours or a part of a day (下午三点, 今晚), sunrise, sunset (日出, 日落), past days (昨天)
- rain, snow, umbrella, also for today or tonight (下雨, 下雪, 带伞, 降水) -> get_precipitation
- air quality, PM2.5, AQI (空气质量, 雾霾) -> get_air_quality
- two or more named places compared (A和B哪个更冷, which is warmer, A or B) -> compare_weather with all of them
- chart, graph, plot, curve (图, 图表, 曲线) -> get_weather_chart, kind "precipitation" for rain, else "temperature"
- which cities are above, below or between temperatures (哪些城市, 之间) -> find_cities_by_temperature, with the
  relation the user's words give (above, below, between)
Name the day exactly: day counts from today (today 0, tomorrow 1, the day after tomorrow 2, 大后天 3), or is a
weekday ("friday"), "weekend" or a date; days is how many days from there (1 = that day only, "the next three days"
3, "this week" 7). hours only for an hour or part of the day the user names.
Questions that are not about weather need no tool.
Examples (question -> call):
- "Is it cold in Oslo now?" -> get_current_weather {"city": "Oslo"}
- "里昂明天天气怎么样" -> get_forecast {"city": "里昂", "day": 1}
- "Lyon forecast for the next 5 days" -> get_forecast {"city": "Lyon", "day": 0, "days": 5}
- "What's the high in Porto on Friday?" -> get_forecast {"city": "Porto", "day": "friday"}
- "波尔图明天下午三点多少度" -> get_forecast {"city": "波尔图", "day": 1, "hours": [15]}
- "大阪后天会下雪吗" -> get_precipitation {"city": "大阪", "day": 2}
- "波尔图今晚会下雨吗" -> get_precipitation {"city": "波尔图", "day": 0, "hours": "night"}
- "Do I need an umbrella in Milan this weekend?" -> get_precipitation {"city": "Milan", "day": "weekend"}
- "成都和重庆现在哪个更热" -> compare_weather {"cities": ["成都", "重庆"], "day": 0}
- "Is Rome or Naples wetter this week?" -> compare_weather {"cities": ["Rome", "Naples"], "day": 0, "days": 7}
- "画一下南宁未来五天的气温图" -> get_weather_chart {"city": "南宁", "kind": "temperature", "days": 5}
- "今天哪些城市低于5度" -> find_cities_by_temperature {"relation": "below", "temp": 5, "day": 0}
- "Cities over 25 degrees tomorrow" -> find_cities_by_temperature {"relation": "above", "temp": 25, "day": 1}
- "后天15到20度之间的城市" -> find_cities_by_temperature {"relation": "between", "temp": 15, "temp2": 20, "day": 2}
- "Tell me a joke", "你是谁", "Who painted the Mona Lisa?" -> no tool"""
