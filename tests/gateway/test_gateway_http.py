"""The gateway process over HTTP, with the real weather server (simulated data) and the tiny
server over stdio, and the scripted LLM."""

from __future__ import annotations

import json
import subprocess

import httpx
import pytest

from tests.support.gateway_processes import TINY_SERVER, WEATHER_SERVER, GatewayProcess

ADMIN_TOKEN = "test-admin-token"
# What the weather server (WEATHER_PROVIDER=simulated) asks to be shown with its figures; the gateway adds it.
DEMO_NOTICE_ZH = "注意：以上数据为模拟数据（演示用），并非真实天气。"
DEMO_NOTICE_EN = "Note: these figures are simulated (demo data), not real weather."


@pytest.fixture(scope="module")
def gateway(fake_llm, tmp_path_factory):
    process = GatewayProcess(tmp_path_factory.mktemp("gateway"),
                             {"weather": WEATHER_SERVER, "tiny": TINY_SERVER, "tiny2": TINY_SERVER},
                             fake_llm.url, MCP_CHAT_ADMIN_TOKEN=ADMIN_TOKEN)
    yield process
    process.stop()


def call(*calls):
    return {"tool_calls": [{"name": name, "arguments": arguments} for name, arguments in calls]}


def tool_messages(request):
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def test_single_tool_call(gateway, fake_llm):
    fake_llm.script(call(("weather__get_current_weather", {"city": "Beijing"})), {"content": "北京现在多云。"})
    reply = gateway.chat("alice", {"message": "北京今天天气怎么样？", "use_tools": True})
    assert reply.status_code == 200
    body = reply.json()
    # The simulated data is disclosed by the gateway, in the user's language, after the checked answer.
    assert body["response"] == f"北京现在多云。\n\n{DEMO_NOTICE_ZH}" and body["model"] == "fake-model"
    assert body["notices"] == [{"server": "weather", "kind": "simulated", "text": DEMO_NOTICE_ZH}]
    assert body["language"] == "zh" and body["answer_source"] == "model"
    (tool_call,) = body["tool_calls"]
    assert tool_call["server"] == "weather" and tool_call["tool"] == "get_current_weather"
    assert tool_call["arguments"] == {"city": "Beijing"} and tool_call["is_error"] is False
    assert tool_call["structured_content"]["location"]["name"] == "Beijing" and tool_call["duration_ms"] > 0
    assert set(body["timings"]) >= {"total_ms", "llm_ms", "tools_ms", "gateway_ms"} and body["images"] == []
    timings = body["timings"]
    assert timings["route_ms"] > 0 and timings["write_ms"] == 0  # an auto router's own answer beside the results
    assert timings["llm_ms"] == pytest.approx(timings["route_ms"] + timings["write_ms"], abs=0.05)
    # The call went out with the user's locale, so the server's own summary, what the model is fed, is in Chinese.
    (fed,) = tool_messages(fake_llm.requests()[1])
    assert fed == tool_call["text"] and fed.startswith("北京 现在（")
    assert f'{tool_call["structured_content"]["temperature"]:g}°C' in fed


def test_the_users_units_reach_the_tools(gateway, fake_llm):
    """`units: imperial` in the request goes to every call as `_meta.units`: the weather server answers in °F."""
    fake_llm.script(call(("weather__get_forecast", {"city": "Chicago", "day": 1}),
                         ("weather__compare_weather", {"cities": ["Chicago", "Boston"], "day": 1})),
                    {"content": "Chicago tomorrow: cold."})
    imperial = gateway.chat("ursula", {"message": "Chicago tomorrow, and is it colder than Boston?",
                                       "units": "imperial"}).json()
    fake_llm.script(call(("weather__get_forecast", {"city": "Chicago", "day": 1})), {"content": "Chicago: cold."})
    metric = gateway.chat("ursula", {"message": "Chicago tomorrow?"}).json()
    forecast, comparison = (c["structured_content"] for c in imperial["tool_calls"])
    (celsius,) = (c["structured_content"] for c in metric["tool_calls"])
    assert forecast["units"]["temperature"] == comparison["units"]["temperature"] == "°F"
    assert celsius["units"]["temperature"] == "°C"
    high_f, high_c = forecast["days"][0]["temp_max"], celsius["days"][0]["temp_max"]
    assert high_f == round(high_c * 9 / 5 + 32, 1) and f"{high_f:g}°F" in imperial["tool_calls"][0]["text"]


def test_multi_tool_call_in_one_turn(gateway, fake_llm):
    fake_llm.script(call(("weather__get_current_weather", {"city": "Beijing"}),
                         ("weather__get_forecast", {"city": "Shanghai", "day": 1})),
                    {"content": "Beijing now, Shanghai tomorrow."})
    body = gateway.chat("alice", {"message": "Beijing now and Shanghai tomorrow?"}).json()
    assert [c["tool"] for c in body["tool_calls"]] == ["get_current_weather", "get_forecast"]
    assert [d["day"] for d in body["tool_calls"][1]["structured_content"]["days"]] == [1]
    assert len(tool_messages(fake_llm.requests()[1])) == 2


def test_multi_round(gateway, fake_llm):
    fake_llm.script(call(("weather__find_cities_by_temperature", {"relation": "between", "temp": 29, "temp2": 30, "day": 1})),
                    call(("weather__get_forecast", {"city": "Shenzhen", "day": 1})),
                    {"content": "Shenzhen it is."})
    body = gateway.chat("alice", {"message": "Which city will be 29-30 °C tomorrow, and its forecast?"}).json()
    assert [c["tool"] for c in body["tool_calls"]] == ["find_cities_by_temperature", "get_forecast"]
    assert body["timings"]["rounds"] == 3 and body["response"] == f"Shenzhen it is.\n\n{DEMO_NOTICE_EN}"


def test_calls_to_two_servers_run_in_parallel(gateway, fake_llm):
    fake_llm.script(call(("tiny__sleep_then_echo", {"text": "a", "seconds": 1.0}),
                         ("tiny2__sleep_then_echo", {"text": "b", "seconds": 1.0}),
                         ("weather__get_current_weather", {"city": "Paris"})),
                    {"content": "done"})
    body = gateway.chat("alice", {"message": "run them"}).json()
    assert [c["server"] for c in body["tool_calls"]] == ["tiny", "tiny2", "weather"]
    assert all(not c["is_error"] for c in body["tool_calls"])
    assert min(c["duration_ms"] for c in body["tool_calls"][:2]) >= 1000
    assert body["timings"]["tools_ms"] < 1800  # sequential would take > 2000


def test_argument_repair(gateway, fake_llm):
    fake_llm.script(call(("weather__get_forecast", {"city": "Oslo", "days": 0})),
                    call(("weather__get_forecast", {"city": "Oslo", "days": 2})),
                    {"content": "Oslo, two days."})
    body = gateway.chat("alice", {"message": "Oslo forecast"}).json()
    assert [(c["arguments"], c["is_error"]) for c in body["tool_calls"]] == [({"city": "Oslo", "days": 2}, False)]
    (feedback,) = tool_messages(fake_llm.requests()[1])
    error = json.loads(feedback)["error"]
    assert "days" in error and "minimum of 1" in error


def test_tool_error_is_reported(gateway, fake_llm):
    fake_llm.script(call(("weather__get_current_weather", {"city": "Xyzzyville"})),
                    {"content": "Sorry, I could not find Xyzzyville."})
    body = gateway.chat("alice", {"message": "Weather in Xyzzyville?"}).json()
    (tool_call,) = body["tool_calls"]
    assert tool_call["is_error"] and "Xyzzyville" in tool_call["text"]
    assert "Xyzzyville" in json.loads(tool_messages(fake_llm.requests()[1])[0])["error"]
    # Every call failed: the user gets the server's own words, whatever the model wrote.
    assert body["answer_source"] == "composed" and body["notices"] == []
    assert body["response"] == ("Sorry, I could not get that: Unknown place 'Xyzzyville': no city of that name was "
                                "found. Only offline place names (towns of 500 people or more) were searched. A "
                                "place no name finds may be given by its coordinates, as 'latitude,longitude'.")


def test_llm_server_error_is_a_503(gateway, fake_llm):
    fake_llm.script({"status": 500})
    reply = gateway.chat("dave", {"message": "hello"})
    assert reply.status_code == 503 and reply.json()["error"]["code"] == "llm_unavailable"
    assert gateway.get("/chat/dave/history").json()["messages"] == []  # nothing half-saved


@pytest.mark.parametrize("body, content_type", [
    (b"not json", "application/json"),
    (b'["a list"]', "application/json"),
    (b"{}", "application/json"),
    (b'{"message": "   "}', "application/json"),
    (b'{"message": 42}', "application/json"),
    (b'{"message": "hi", "use_tools": "yes"}', "application/json"),
    (b'{"message": "hi", "stream": 1}', "application/json"),
    (b'{"message": "hi", "units": "kelvin"}', "application/json"),
    (json.dumps({"message": "x" * 8001}).encode(), "application/json"),
])
def test_malformed_requests_are_400(gateway, body, content_type):
    reply = httpx.post(f"{gateway.url}/chat/alice", content=body, headers={"Content-Type": content_type})
    assert reply.status_code == 400 and reply.json()["error"]["message"]


def test_bad_user_and_unknown_routes(gateway):
    assert gateway.chat("bad user!", {"message": "hi"}).status_code == 400
    assert gateway.get("/nope").json()["error"]["code"] == "not_found"
    assert httpx.put(f"{gateway.url}/chat/alice").status_code == 405


def test_streaming(gateway, fake_llm):
    fake_llm.script(call(("weather__get_current_weather", {"city": "Tokyo"})), {"content": "Tokyo is mild today."})
    with httpx.stream("POST", f"{gateway.url}/chat/erin", json={"message": "Tokyo?", "stream": True},
                      timeout=60) as reply:
        assert reply.headers["content-type"].startswith("text/event-stream")
        frames = [frame for frame in reply.read().decode().split("\n\n") if frame]
    events = [(f.split("\n")[0].removeprefix("event: "), json.loads(f.split("\n")[1].removeprefix("data: ")))
              for f in frames]
    names = [name for name, _ in events]
    assert names[0] == "tool_call" and names[1] == "tool_result" and names[-1] == "done"
    assert "".join(data["text"] for name, data in events if name == "token") == "Tokyo is mild today."
    assert events[-1][1]["response"] == f"Tokyo is mild today.\n\n{DEMO_NOTICE_EN}"


def test_a_servers_progress_reaches_the_stream(gateway, fake_llm):
    """The multi-city search reports progress; a streaming client sees it as `progress` events before the result."""
    fake_llm.script(call(("weather__find_cities_by_temperature", {"relation": "above", "temp": 20})),
                    {"content": "Several cities are above 20°C today."})
    with httpx.stream("POST", f"{gateway.url}/chat/erin", json={"message": "Which cities are above 20°C today?",
                                                               "stream": True}, timeout=60) as reply:
        frames = [frame for frame in reply.read().decode().split("\n\n") if frame]
    events = [(f.split("\n")[0].removeprefix("event: "), json.loads(f.split("\n")[1].removeprefix("data: ")))
              for f in frames]
    names = [name for name, _ in events]
    progress = [data for name, data in events if name == "progress"]
    assert len(progress) > 10 and names.index("tool_call") < names.index("progress") < names.index("tool_result")
    assert {(p["index"], p["server"], p["tool"]) for p in progress} == {(0, "weather", "find_cities_by_temperature")}
    assert [p["progress"] for p in progress] == sorted(p["progress"] for p in progress)
    assert progress[-1]["progress"] == progress[-1]["total"] and progress[-1]["message"]


def test_chart_images_are_served(gateway, fake_llm):
    fake_llm.script(call(("weather__get_weather_chart", {"city": "Paris", "days": 2})), {"content": "Here it is."})
    body = gateway.chat("alice", {"message": "Chart for Paris"}).json()
    (image,) = body["images"]
    png = gateway.get(image["url"])
    assert png.status_code == 200 and png.headers["content-type"] == "image/png"
    assert png.content.startswith(b"\x89PNG")
    assert gateway.get("/media/0123456789abcdef0123456789abcdef.png").status_code == 404
    assert gateway.get("/media/..%2Fhistory.sqlite3").status_code == 404


def test_history_persists_across_restart(gateway, fake_llm):
    gateway.get("/chat/carol/history")
    fake_llm.script({"content": "Nice to meet you, Carol."})
    gateway.chat("carol", {"message": "I am Carol", "use_tools": False})
    gateway.restart()
    history = gateway.get("/chat/carol/history").json()["messages"]
    assert [m["content"] for m in history] == ["I am Carol", "Nice to meet you, Carol."]
    fake_llm.script({"content": "You are Carol."})
    gateway.chat("carol", {"message": "Who am I?", "use_tools": False})
    assert [m["content"] for m in fake_llm.requests()[0]["messages"][1:]] == [
        "I am Carol", "Nice to meet you, Carol.", "Who am I?"]
    assert httpx.delete(f"{gateway.url}/chat/carol/history").json()["deleted"] == 4
    assert gateway.get("/chat/carol/history").json()["messages"] == []


def _weather_server_pid(gateway) -> int:
    children = subprocess.run(["pgrep", "-P", str(gateway.process.pid)], capture_output=True, text=True).stdout
    for pid in children.split():
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            if b"weather_mcp_server" in cmdline.read():
                return int(pid)
    raise AssertionError("weather server process not found")


def test_killed_weather_server_is_restarted(gateway, fake_llm):
    pid = _weather_server_pid(gateway)
    subprocess.run(["kill", "-9", str(pid)], check=True)
    fake_llm.script(call(("weather__get_current_weather", {"city": "Berlin"})), {"content": "Here is Berlin right now."})
    body = gateway.chat("alice", {"message": "Berlin?"}).json()
    assert body["tool_calls"][0]["is_error"] is False and body["response"].startswith("Here is Berlin right now.")
    assert _weather_server_pid(gateway) != pid
    weather = next(s for s in gateway.get("/servers").json()["servers"] if s["name"] == "weather")
    assert weather["up"] and weather["restarts"] >= 1


def test_registry_tools_and_health(gateway):
    servers = {s["name"]: s for s in gateway.get("/servers").json()["servers"]}
    assert set(servers) == {"weather", "tiny", "tiny2"} and all(s["up"] for s in servers.values())
    assert "weather://cities" in servers["weather"]["resources"]
    names = {t["name"] for t in gateway.get("/tools").json()["tools"]}
    assert {"weather__get_forecast", "tiny__echo", "tiny2__echo"} <= names  # same tool, two servers
    health = gateway.get("/health").json()
    assert health["status"] == "ok" and health["llm"][0]["reachable"]
    assert gateway.get("/openapi.json").json()["openapi"].startswith("3.")


def test_runtime_registration_needs_the_admin_token(gateway):
    entry = {"name": "time", "command": "mcp-server-time"}
    assert httpx.post(f"{gateway.url}/servers", json=entry).status_code == 401
    wrong = {"Authorization": "Bearer nope"}
    assert httpx.post(f"{gateway.url}/servers", json=entry, headers=wrong).status_code == 401
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    bad = httpx.post(f"{gateway.url}/servers", json={"name": "x", "url": "ftp://x"}, headers=admin)
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_server"
    added = httpx.post(f"{gateway.url}/servers", json=entry, headers=admin, timeout=60)
    assert added.status_code == 201 and added.json()["up"]
    assert "time__get_current_time" in {t["name"] for t in gateway.get("/tools").json()["tools"]}
    assert httpx.delete(f"{gateway.url}/servers/time", headers=admin).status_code == 200
    assert httpx.delete(f"{gateway.url}/servers/time", headers=admin).status_code == 404
    assert "time__get_current_time" not in {t["name"] for t in gateway.get("/tools").json()["tools"]}
