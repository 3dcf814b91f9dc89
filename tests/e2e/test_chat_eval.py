"""bench/chat_eval.py: the checks on hand-made replies, then a whole run against the gateway with the real
weather server (simulated data) and the scripted LLM."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from gateway_processes import REPO

sys.path.insert(0, str(REPO / "bench"))

import chat_eval  # noqa: E402
from chat_eval_checks import fully_correct, haversine_km, reply_language, score  # noqa: E402

BEIJING = {"name": "Beijing", "lat": 39.9, "lon": 116.4}
TOKYO = {"name": "Tokyo", "lat": 35.68, "lon": 139.69}
SEOUL = {"name": "Seoul", "lat": 37.57, "lon": 126.98}
SHENZHEN = {"name": "Shenzhen", "lat": 22.54, "lon": 114.06}


def _place(lat: float, lon: float) -> dict:
    return {"location": {"name": "x", "latitude": lat, "longitude": lon}}


def _call(tool: str, arguments: dict, content: dict, is_error: bool = False) -> dict:
    return {"server": "weather", "tool": tool, "arguments": arguments, "is_error": is_error,
            "structured_content": content, "text": "", "duration_ms": 5.0}


def _reply(response: str, *calls: dict, images: int = 0) -> dict:
    return {"response": response, "tool_calls": list(calls), "model": "m",
            "images": [{"url": f"/media/{i}", "alt": "", "mime": "image/png"} for i in range(images)]}


def test_haversine_and_language_helpers():
    assert haversine_km(39.9, 116.4, 39.9, 116.4) == 0
    assert 1060 < haversine_km(BEIJING["lat"], BEIJING["lon"], 31.23, 121.47) < 1075  # Beijing-Shanghai
    assert reply_language("北京现在 12.3°C，多云。") == "zh"
    assert reply_language("Beijing is 12.3 °C (北京).") == "en"


def test_a_forecast_reply_is_fully_correct_only_with_city_days_and_grounded_numbers():
    query = {"query": "广州明天天气如何", "lang": "zh", "intent": "forecast",
             "cities": [{"name": "Guangzhou", "lat": 23.13, "lon": 113.26}], "days": 2}
    days = [{"date": "2026-11-29", "temp_min": 18.2, "temp_max": 24.6},
            {"date": "2026-11-30", "temp_min": 17.0, "temp_max": 23.4}]
    good = _call("get_forecast", {"city": "广州", "days": 2}, {**_place(23.12, 113.25), "days": days})
    assert score(query, _reply("广州明天最高 41 度。", good), image_ok=True)["grounded"] is False
    assert score(query, _reply("广州明天天气不错。", good), image_ok=True)["grounded"] is False  # no number
    checks = score(query, _reply("广州明天17到23.4度，今天最高25度。", good), image_ok=True)  # 24.6 rounded
    assert checks == {"tool": True, "location": True, "days": True, "chart": None, "range": None,
                      "no_tool": None, "grounded": True, "language": True}
    assert fully_correct(checks)

    one_day = _call("get_forecast", {"city": "广州", "days": 1}, {**_place(23.12, 113.25), "days": days[:1]})
    assert score(query, _reply("广州今天最高24.6度。", one_day), True)["days"] is False
    far_away = _call("get_forecast", {"city": "广州"}, {**_place(22.54, 114.06), "days": days})  # Shenzhen
    assert score(query, _reply("最高24.6度。", far_away), True)["location"] is False
    failed = _call("get_forecast", {"city": "广州"}, None, is_error=True)
    assert score(query, _reply("抱歉，查询失败。", failed), True)["tool"] is False
    assert score(query, _reply("Guangzhou: 24.6 °C tomorrow.", good), True)["language"] is False


def test_range_chart_compare_and_chit_chat_checks():
    range_query = {"query": "明天29以上，30以下的城市有哪些？", "lang": "zh", "intent": "temperature_range",
                   "cities": [], "days": 2, "min_c": 29, "max_c": 30}
    search = {"days_ahead": 1, "min_temp": 29.0, "max_temp": 30.0, "matches": [{"temperature": 29.4}]}
    right = _call("find_cities_by_temperature", {"min_temp": 29, "max_temp": 30}, search)
    assert fully_correct(score(range_query, _reply("明天海口29.4度。", right), True))
    open_bound = _call("find_cities_by_temperature", {"min_temp": 29}, {**search, "max_temp": None})
    assert score(range_query, _reply("明天海口29.4度。", open_bound), True)["range"] is False
    today = _call("find_cities_by_temperature", {}, {**search, "days_ahead": 0})
    assert score(range_query, _reply("今天海口29.4度。", today), True)["days"] is False

    chart_query = {"query": "给我看看深圳的降水量图表", "lang": "zh", "intent": "chart", "cities": [SHENZHEN],
                   "chart": "precipitation"}
    chart = _call("get_weather_chart", {"city": "深圳", "kind": "precipitation"},
                  {**_place(22.55, 114.07), "kind": "precipitation", "points": [{}] * 7})
    assert fully_correct(score(chart_query, _reply("这是深圳的降水量图。", chart, images=1), True))
    assert score(chart_query, _reply("这是深圳的降水量图。", chart, images=1), False)["chart"] is False
    assert score(chart_query, _reply("这是深圳的降水量图。", chart), True)["chart"] is False

    compare = {"query": "Compare Tokyo and Seoul weather tomorrow", "lang": "en", "intent": "compare",
               "cities": [TOKYO, SEOUL], "days": 2}
    tokyo = _call("get_forecast", {"city": "Tokyo", "days": 2}, {**_place(35.69, 139.69), "days": [{}, {}]})
    seoul = _call("get_forecast", {"city": "Seoul", "days": 2}, {**_place(37.56, 126.97), "days": [{}, {}]})
    busan = _call("get_forecast", {"city": "Busan", "days": 2}, {**_place(35.1, 129.04), "days": [{}, {}]})
    assert score(compare, _reply("Tokyo is warmer.", tokyo, seoul), True)["location"] is True
    assert score(compare, _reply("Tokyo is warmer.", tokyo, busan), True)["location"] is False

    hello = {"query": "你好", "lang": "zh", "intent": "none", "cities": []}
    assert fully_correct(score(hello, _reply("你好！有什么可以帮你？"), True))
    assert score(hello, _reply("你好！", tokyo), True)["no_tool"] is False


def _tool_reply(*calls: tuple[str, dict]) -> dict:
    return {"tool_calls": [{"name": f"weather__{name}", "arguments": arguments} for name, arguments in calls]}


def test_a_run_against_the_gateway_scores_and_writes_the_tables(weather_gateway, fake_llm, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture):
    queries = [
        {"query": "给我看看深圳的降水量图表", "lang": "zh", "intent": "chart", "cities": [SHENZHEN],
         "chart": "precipitation"},
        {"query": "Compare Tokyo and Seoul weather tomorrow", "lang": "en", "intent": "compare",
         "cities": [TOKYO, SEOUL], "days": 2},
        {"query": "你好", "lang": "zh", "intent": "none", "cities": []},
        {"query": "北京今天天气怎么样？", "lang": "zh", "intent": "current", "cities": [BEIJING]},
    ]
    path = tmp_path / "queries.jsonl"
    path.write_text("\n".join(json.dumps(query, ensure_ascii=False) for query in queries))
    fake_llm.script(
        _tool_reply(("get_weather_chart", {"city": "深圳", "kind": "precipitation"})),
        {"content": "这是深圳未来几天的降水量图表。"},
        _tool_reply(("get_forecast", {"city": "Tokyo", "days": 2}), ("get_forecast", {"city": "Busan", "days": 2})),
        {"content": "Tokyo and Busan look similar."},
        {"content": "你好！有什么天气问题可以帮你？"},
        _tool_reply(("get_current_weather", {"city": "北京"})),
        {"content": "北京现在气温 987 度。"},
    )
    markdown = tmp_path / "eval.md"
    assert chat_eval.main([str(path), "--gateway", weather_gateway.url, "--markdown", str(markdown)]) == 0
    printed = capsys.readouterr().out

    progress = [re.match(r"\[ ?\d+/\d+\] (ok |BAD) +[\d.]+s (.+)", line) for line in printed.splitlines()]
    outcomes = {match[2]: match[1].strip() for match in progress if match}
    assert outcomes == {"给我看看深圳的降水量图表": "ok", "Compare Tokyo and Seoul weather tomorrow": "BAD",
                        "你好": "ok", "北京今天天气怎么样？": "BAD"}
    assert "- Compare Tokyo and Seoul weather tomorrow  [location, grounded]" in printed  # Busan; no number
    assert "- 北京今天天气怎么样？  [grounded]" in printed
    assert "replies in the user's language: 4/4 (100%)" in printed
    table = markdown.read_text()
    assert "| chart | 1 | 1/1 (100%) | 1/1 | 1/1 | - | 1/1 | - | - | 1/1 | 1/1 |" in table
    assert "| all | 4 | 2/4 (50%) |" in table and "latency p50" in table
