"""Pure pieces of the gateway: parsing, validation, trimming, answer guards, registry, profiles, OpenAPI."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from mcp_chat_app.chat import conversation
from mcp_chat_app.chat.route_arguments import flags, stated
from mcp_chat_app.chat.assistant import load_assistant
from mcp_chat_app.chat.route_prompt import openai_tools
from mcp_chat_app.chat.text import languages
from mcp_chat_app.chat.text.claims import states_measurements
from mcp_chat_app.chat.text.day_words import day_words, glossed, unsupported_days
from mcp_chat_app.chat.text.result_view import model_view, results_today
from mcp_chat_app.chat.turn import Turn
from mcp_chat_app.chat.verify import contradictions
from mcp_chat_app.config import CONFIG_DIR
from mcp_chat_app.history import SqliteHistoryStore, most_turns_within, trim_to_budget
from mcp_chat_app.media_store import MediaStore
from mcp_chat_app.mcp_client.manager import ToolInfo
from mcp_chat_app.mcp_client.arguments import decode_arguments, tidy_arguments, validation_error
from mcp_chat_app.mcp_client.results import ToolOutcome
from mcp_chat_app.llm.profiles import load_roles
from mcp_chat_app.mcp_client.registry import Registry, load_registry, parse_server_spec
from mcp_chat_app.llm.tool_call_parser import parse_tool_calls
from weather_mcp_server.domain.verdicts import Standing, comparison_verdicts
from weather_mcp_server.models import Location

ASSISTANT = load_assistant(CONFIG_DIR / "assistant.json")
VOCABULARY = ASSISTANT.vocabulary  # the shipped (weather) assistant's

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
          "required": ["city"]}


@pytest.mark.parametrize("text", [
    '```json\n{"name": "weather__get_forecast", "arguments": {"city": "Paris"}}\n```',
    'Sure! {"tool": "weather__get_forecast", "args": {"city": "Paris"}}',
    '{"tool_calls": [{"name": "weather__get_forecast", "arguments": "{\\"city\\": \\"Paris\\"}"}]}',
    '[{"function": {"name": "weather__get_forecast", "arguments": {"city": "Paris"}}}]',
])
def test_parser_accepts_the_shapes_models_write(text):
    calls = parse_tool_calls(text)
    assert [(c.name, c.arguments) for c in calls] == [("weather__get_forecast", {"city": "Paris"})]


@pytest.mark.parametrize("text", ["It is 12 °C in Paris.", '{"temperature": 12}', "```\nnot json\n```", ""])
def test_parser_finds_no_call_in_plain_answers(text):
    assert parse_tool_calls(text) == []


def test_arguments_are_tidied_then_validated():
    arguments = tidy_arguments(decode_arguments('{"city": "Oslo", "days": "2", "required": ["city"]}'), SCHEMA)
    assert arguments == {"city": "Oslo", "days": 2}
    assert validation_error(arguments, SCHEMA) is None
    assert "'city' is a required property" in validation_error({"days": 2}, SCHEMA)
    assert validation_error({"city": "Oslo", "days": 0}, SCHEMA).startswith("days:")
    with pytest.raises(ValueError, match="not valid JSON"):
        decode_arguments("{city: Oslo")
    with pytest.raises(ValueError, match="JSON object"):
        decode_arguments("[1, 2]")


def test_history_is_trimmed_from_the_oldest_and_never_starts_with_an_answer():
    turns = []
    for i in range(10):
        turns += [{"role": "user", "content": f"question {i} " * 5}, {"role": "assistant", "content": f"answer {i} " * 5}]
    kept = trim_to_budget(turns, budget=100)
    assert kept and kept[-1] == turns[-1] and kept[0]["role"] == "user"
    assert len(kept) < len(turns)
    assert trim_to_budget(turns, budget=5) == []


def test_sqlite_history_survives_reopening(tmp_path: Path):
    store = SqliteHistoryStore(tmp_path / "h.sqlite3")
    store.append("bob", [{"role": "user", "content": "你好"}, {"role": "assistant", "content": "你好！"}])
    store.close()
    reopened = SqliteHistoryStore(tmp_path / "h.sqlite3")
    assert reopened.messages("bob")[0]["content"] == "你好"
    assert reopened.clear("bob") == 2 and reopened.messages("bob") == []


def test_a_history_file_from_before_conversations_opens_as_the_default_one(tmp_path: Path):
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as old:  # the schema before conversations and shown notices
        old.executescript("CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, user TEXT NOT NULL, role TEXT "
                          "NOT NULL, content TEXT NOT NULL, created_at REAL NOT NULL, calls TEXT);"
                          "INSERT INTO messages (user, role, content, created_at) VALUES ('ola', 'user', 'hei', 1);")
    store = SqliteHistoryStore(path)
    assert store.messages("ola") == [{"role": "user", "content": "hei"}]
    notice = {"server": "weather", "kind": "simulated", "text": "simulated data"}
    store.append("ola", [{"role": "assistant", "content": "hei!", "notices": [notice], "images": []}])
    assert store.messages("ola")[-1] == {"role": "assistant", "content": "hei!", "notices": [notice]}
    assert store.conversations("ola")[0]["turns"] == 2
    store.close()


def test_only_the_turns_a_prompt_can_hold_are_loaded(tmp_path: Path):
    store = SqliteHistoryStore(tmp_path / "h.sqlite3")
    turns = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i}"} for i in range(40)]
    store.append("eve", turns)
    assert store.messages("eve") == turns and store.messages("eve", last=6) == turns[-6:]
    assert trim_to_budget(store.messages("eve", last=most_turns_within(60)), 60) == trim_to_budget(turns, 60)
    store.close()


@pytest.mark.parametrize("text, language", [
    ("北京今天天气怎么样？", "zh"), ("What is the weather in London tomorrow?", "en"), ("東京の明日の天気は？", "ja"),
    ("서울 내일 날씨 어때?", "ko"), ("Quel temps fait-il à Paris demain ?", "fr"),
    ("Wie wird das Wetter morgen in Berlin?", "de"), ("¿Qué tiempo hará mañana en Madrid?", "es"),
    ("Qwxzplk明天天气", "zh"), ("Beijing (北京) is at 12.3 °C.", "en"), ("北京的UV指数是0.8，PM2.5 good。", "zh"),
    # a place in its own script inside a Chinese question; Japanese with kanji and hiragana, or in katakana only
    ("부산 明天出海钓鱼，天会不会下雨", "zh"), ("ホノルル明天热不热", "zh"), ("明日、仙台で雪が降りますか？", "ja"),
    ("ホノルル、アロハ", "ja"),
    # one word of hangul or katakana asked about with Chinese grammar (dev27's "속초 呢" was answered in English)
    ("속초 呢", "zh"), ("ホノルル呢", "zh"), ("서울 날씨 어때 呢", "ko"),
    # a long Latin name in a Chinese question, by its particles; a Chinese name in an English one
    ("那Naypyidaw呢", "zh"), ("Naypyidaw明天热吗", "zh"), ("weather in 多伦多?", "en"),
    # names alone in Latin letters, however long, around a Chinese question
    ("现在Nuwara Eliya几度", "zh"), ("明天Swift Current多少度", "zh"), ("Is 北京 cold?", "en"),
    # English words in a question Chinese words ask
    ("tmrw 西安 weather 咋样", "zh"), ("Tokyo weekend weather 如何", "zh"), ("is it cold in 哈尔滨 today?", "en"),
    ("ok 3q啦", "zh"),  # thanks, in Chinese chat: 啦 ends it
    ("周末Phuket的forecast帮我check一下", "zh"),  # dev51: answered in English; 的 and 帮我 are Chinese grammar
])
def test_the_language_of_a_text(text, language):
    assert languages.detect(text, VOCABULARY) == language


def test_a_message_with_no_language_of_its_own_keeps_the_conversations():
    history = [{"role": "user", "content": "那后天10度以下的有哪些"}, {"role": "assistant", "content": "后天……"}]
    assert Turn.start("ok", history, ASSISTANT).language == "zh"
    assert Turn.start("👍", history, ASSISTANT).language == "zh"
    assert Turn.start("ok", [], ASSISTANT).language == "en"
    assert Turn.start("ok, and Paris tomorrow?", history, ASSISTANT).language == "en"  # it has a language: its own


def test_day_words_are_named_and_spelled_out_for_the_router():
    assert day_words("北京明天（12月2日 周三）；大后天（12月4日 周五）；下周一（12月7日）") == {
        "明天", "周三", "大后天", "周五", "下周一"}
    assert day_words("When does the sun rise tomorrow? Sun 6 Dec") == {"tomorrow", "sunday"}
    assert day_words("未来一周天气，这周一直晴，星期天有雨，今晚") == {"本周", "周日", "今天"}
    assert day_words("明儿个济南咋样，今儿冷不") == {"明天", "今天"}  # spoken Chinese
    assert day_words("明朝昆山要带伞伐") == {"明天"} and day_words("今朝冷伐") == {"今天"}  # Shanghainese (dev51)
    assert day_words("后儿个隆化冷不冷，大后儿呢") == {"后天", "大后天"}
    tuesday = dt.date(2026, 12, 1)
    assert glossed("桂林大后天天气如何", tuesday, VOCABULARY) == "桂林大后天天气如何\n\n(大后天 = 3 days from today)"
    assert glossed("下周一呢", tuesday, VOCABULARY).endswith("(下周一 = 6 days from today)")
    assert glossed("What was it yesterday?", tuesday, VOCABULARY).endswith("(yesterday = 1 day before today)")
    assert glossed("今天热吗", tuesday, VOCABULARY) == "今天热吗"
    # With an hour, today is said too: asked in the evening about 14:00, a model moved to tomorrow.
    assert glossed("今天下午两点上海多少度？", tuesday, VOCABULARY).endswith("(今天 = day 0; 下午两点 = 14:00)")
    assert unsupported_days("杭州周末不错，明天下雨", day_words("杭州周六（12月5日）；周日（12月6日）")) == ["明天"]


def test_words_for_below_zero_are_spelled_out_for_the_router():
    tuesday = dt.date(2026, 12, 1)
    # Asked "在零下", a small model searched below -10.
    assert glossed("今天哪些城市在零下", tuesday, VOCABULARY) == "今天哪些城市在零下\n\n(零下 = below 0)"
    assert glossed("明天哪里低于零下五度", tuesday, VOCABULARY).endswith("(明天 = 1 day from today; 零下五度 = -5)")
    assert glossed("哪里会到负12度", tuesday, VOCABULARY).endswith("(负12度 = -12)")
    assert glossed("Which cities are below freezing?", tuesday, VOCABULARY).endswith("(below freezing = below 0)")
    assert glossed("谁负责天气预报", tuesday, VOCABULARY) == "谁负责天气预报"  # 负 without a figure and degrees


def test_a_figure_bounded_from_one_side_is_spelled_out_for_the_router():
    """"30度以上的呢" after a search between 20 and 25 was called between 30 and nothing."""
    tuesday = dt.date(2026, 12, 1)
    assert glossed("30度以上的呢", tuesday, VOCABULARY) == "30度以上的呢\n\n(30度以上 = above 30)"
    assert glossed("哪些城市10℃以下", tuesday, VOCABULARY).endswith("(10℃以下 = below 10)")
    assert glossed("连续3天以上下雨吗", tuesday, VOCABULARY) == "连续3天以上下雨吗"  # days, not the domain's units


def test_a_range_written_with_a_dash_is_spelled_out_for_the_router():
    """"where's it gonna be 25-30°C the day after tomorrow" got no call at all."""
    tuesday = dt.date(2026, 12, 1)
    assert glossed("where's it gonna be 25-30°C?", tuesday, VOCABULARY) == \
        "where's it gonna be 25-30°C?\n\n(25-30° = between 25 and 30)"
    assert glossed("哪些城市-5~5度", tuesday, VOCABULARY).endswith("(-5~5度 = between -5 and 5)")
    assert glossed("what about 12-25?", tuesday, VOCABULARY) == "what about 12-25?"  # no unit: a date, a score


def test_a_follow_up_says_so_and_made_up_arguments_are_told_apart():
    assert conversation.is_follow_up("那后天呢？") and conversation.is_follow_up("What about Chicago?")
    assert not conversation.is_follow_up("北京今天天气怎么样？")
    assert conversation.is_follow_up("hmm, and above 30?")  # (dev43's was not, and lost its Saturday)
    # a name alone, asked ("moncton?" after tomorrow's snow in Halifax was called for Moncton's weather now)
    for question in ("moncton?", "regina too?", "Lyon as well?"):
        assert conversation.is_follow_up(question) and conversation.bare_follow_up(question), question
    assert not conversation.is_follow_up("who are you?") and not conversation.is_follow_up("is it cold?")
    assert conversation.is_follow_up("same question for Lae") and conversation.is_follow_up("同样的问题，问一下兰州")
    # dev26/dev27: a name with 呢 before a question of its own, and "then" at the end, follow on (the day carries)
    assert conversation.is_follow_up("清迈呢 空气咋样") and conversation.is_follow_up("ok, New York then")
    assert not conversation.is_follow_up("北京明天下雨吗，我要出门") and not conversation.is_follow_up("Then what?")
    # the same asked of another place (dev51's "安徽宿州也画一个" after a 14-day chart was drawn as a week's temperatures)
    assert all(map(conversation.is_follow_up, ("安徽宿州也画一个", "上海也查一下", "do the same for Lyon")))
    assert not conversation.is_follow_up("我也要去")
    schema = {"properties": {"city": {"type": "string"}, "kind": {"type": "string", "enum": ["a", "b"]},
                             "cities": {"type": "array", "items": {"type": "string"}}}}
    assert stated.states_its_arguments([{"city": "New York City", "kind": "a"}], [schema],
                                                "Current weather in New York")
    assert not stated.states_its_arguments([{"city": "Paris"}], [schema], "What is the capital of France?")
    assert not stated.states_its_arguments([{"cities": ["北京", "上海"]}], [schema], "北京和广州哪个冷")
    history = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a", "calls": [
        {"tool": "w__f", "arguments": {"city": "杭州"}}]}]
    assert conversation.earlier_calls(history) == 'w__f {"city":"杭州"}' and conversation.earlier_question(history) == "q"


def test_bare_follow_ups_ask_the_question_before_them():
    """"皮山那边呢" after "叶城呢" after "现在莎车热吗" asks whether it is hot, as each before it did."""
    said = ["现在莎车热吗", "叶城呢"]
    history = [{"role": role, "content": text} for question in said for role, text in (("user", question),
                                                                                       ("assistant", "…"))]
    assert conversation.earlier_question(history) == "现在莎车热吗"
    assert conversation.earlier_question(history[:2]) == "现在莎车热吗" and conversation.earlier_question([]) == ""
    history += [{"role": "user", "content": "How about tomorrow, is it windy?"}, {"role": "assistant", "content": "…"}]
    assert conversation.earlier_question(history) == "How about tomorrow, is it windy?"
    assert [conversation.bare_follow_up(q) for q in ("叶城呢", "and Yakima?", "明天多少度呢", "is it windy?")] == [
        True, True, False, False]
    # a doubt of the answer asks it again, and a remark after the follow-up asks nothing (dev51's "那后天呢 后天出发也
    # 行" after "你确定吗 别骗我" after "破防了 下不下雨啊" got no yes or no)
    doubted = [{"role": role, "content": text} for question in ("破防了 下不下雨啊", "你确定吗 别骗我")
               for role, text in (("user", question), ("assistant", "…"))]
    assert conversation.earlier_question(doubted) == "破防了 下不下雨啊"
    assert conversation.bare_follow_up("那后天呢 后天出发也行") and not conversation.bare_follow_up("那明天呢，冷不冷")
    # a correction that names only the right place or day asks the question again of it (dev51's "不对，是苏州不是
    # 杭州" after "杭州明天会下雨吗" got Suzhou's forecast and no yes or no); one that asks something else does not
    corrections = ("不对，是苏州不是杭州", "不是杭州，是苏州", "不对，我说的是明天", "no, I meant Paris, Texas",
                   "actually make that Thursday", "sorry I meant tomorrow", "哦我说错了 是奈良", "噢不是东莞 我说的是惠州",
                   "sorry, Springfield Missouri", "wait, Portland Maine, sorry, that's where my mom lives")
    for question in corrections:
        assert conversation.is_follow_up(question) and conversation.bare_follow_up(question), question
    assert not any(map(conversation.bare_follow_up, ("不对，我问的是会不会下雪", "no I meant how windy", "不对",
                                                     "sorry, what?", "wait, really?", "Sorry, Is it cold")))
    # the same day said again asks nothing new (dev43's "京都呢，同一天" after "会不会…哈" got no yes or no)
    assert [conversation.bare_follow_up(q) for q in ("京都呢，同一天", "京都呢，明天多少度")] == [True, False]
    # a name that begins with a character of acknowledgement keeps it (哈 of 哈尔滨 was taken for a laugh)
    assert [conversation.named_alone(q) for q in ("哈尔滨呢", "好，那成都呢", "哈哈，那成都呢", "行唐呢")] == [
        "哈尔滨", "成都", "成都", "行唐"]


def test_a_flag_the_question_does_not_name_is_dropped():
    schema = {"properties": {"city": {"type": "string"}, "fahrenheit": {
        "type": "boolean", "default": False, "description": "true only if °F, Fahrenheit or 华氏 is asked"}}}
    turned_on = {"city": "Chicago", "fahrenheit": True}
    assert flags.without_unasked_flags(turned_on, schema, "What about Chicago?", VOCABULARY) == {
        "city": "Chicago"}
    for asked in ("Chicago in Fahrenheit please", "Chicago, in °F", "芝加哥现在多少华氏度"):
        assert flags.without_unasked_flags(turned_on, schema, asked, VOCABULARY) == turned_on, asked
    off = {"city": "Chicago", "fahrenheit": False}
    # only a flag turned on
    assert flags.without_unasked_flags(off, schema, "What about Chicago?", VOCABULARY) == off


def test_a_flag_the_question_names_is_turned_on():
    """"list cities between 85 and 100 F today" and "用华氏度再说一遍" were called in the default unit."""
    schema = {"properties": {"temp": {"type": "number"}, "fahrenheit": {
        "type": "boolean", "default": False, "description": "true only if °F, Fahrenheit or 华氏 is asked"}}}
    for asked in ("list cities between 85 and 100 F today", "between 25 and 40°F?", "用华氏度再说一遍",
                  "in fahrenheit please", "Talkeetna temp now in F pls", "what cities are under 32 degrees F today",
                  "below 20 deg F?"):
        assert flags.with_asked_flags({"temp": 85}, schema, asked, VOCABULARY) == {"temp": 85, "fahrenheit": True}
        assert flags.with_asked_flags({"temp": 85, "fahrenheit": False}, schema, asked, VOCABULARY)["fahrenheit"]
    for asked in ("cities above 30 today", "Fine, thanks", "below 5 °C in Fes?", "in Fes"):
        assert flags.with_asked_flags({"temp": 30}, schema, asked, VOCABULARY) == {"temp": 30}, asked


def test_model_view_is_compact_structured_content():
    outcome = ToolOutcome("w", "t", {}, structured_content={"a": 1.23456, "b": None, "c": list(range(50))})
    today = dt.date.today()
    assert json.loads(model_view(outcome, VOCABULARY, today)) == {"a": 1.2, "c": list(range(10))}
    assert json.loads(model_view(ToolOutcome("w", "t", {}, text='{"x": 2}'), VOCABULARY, today)) == {"x": 2}
    assert json.loads(model_view(ToolOutcome("w", "t", {}, is_error=True, text="boom"), VOCABULARY, today)) == {
        "error": "boom"}


def test_registry_reads_claude_desktop_format_and_our_keys(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("SECRET_TOKEN", "s3cret")
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {
        "weather": {"command": "weather-mcp", "args": [], "env": {"WEATHER_PROVIDER": "${UNSET_VAR_X:-simulated}"},
                    "fallback": "weather-backup", "excluded_tools": ["get_weather_chart"]},
        "remote": {"url": "http://127.0.0.1:8765/mcp", "headers": {"Authorization": "Bearer ${SECRET_TOKEN}"},
                   "disabled": True, "timeout": 5},
    }}))
    registry = load_registry(path).servers
    assert registry["weather"].env == {"WEATHER_PROVIDER": "simulated"}
    assert registry["weather"].transport == "stdio" and registry["weather"].fallback == "weather-backup"
    assert not registry["weather"].exposes("get_weather_chart") and registry["weather"].exposes("get_forecast")
    assert registry["remote"].headers == {"Authorization": "Bearer s3cret"} and registry["remote"].disabled
    assert load_registry(tmp_path / "missing.json") == Registry()


def test_registry_names_inputs_and_duplicates_as_hosts_write_them(tmp_path: Path, monkeypatch):
    monkeypatch.delenv("MCP_INPUT_REGION", raising=False)
    path = tmp_path / ".vscode" / "mcp.json"
    path.parent.mkdir()
    path.write_text(json.dumps({
        "inputs": [{"type": "pickString", "id": "region", "options": ["eu", "us"], "default": "eu"}],
        "servers": {"io.github.acme/Weather Tools": {"type": "http", "url": "https://${input:region}.acme.test/mcp"},
                    "local": {"command": "a", "cwd": "${workspaceFolder}/srv", "args": ["${userHome}"]},
                    "twin": {"command": "a"}, "twin!": {"command": "c"}},
        "mcpServers": {"twin": {"command": "b"}}}))
    registry = load_registry(path)
    assert registry.servers["io-github-acme-Weather-Tools"].url == "https://eu.acme.test/mcp"  # the input's default
    assert registry.servers["local"].cwd == f"{tmp_path}/srv" and registry.servers["local"].args == [str(Path.home())]
    assert "twin" not in registry.servers and "defined more than once" in registry.rejected["twin"]
    monkeypatch.setenv("MCP_INPUT_REGION", "us")
    assert load_registry(path).servers["io-github-acme-Weather-Tools"].url == "https://us.acme.test/mcp"


@pytest.mark.parametrize("name, entry, message", [
    ("a__b", {"command": "x"}, "server name"),
    ("x", {"command": "x", "url": "http://h/mcp"}, "exactly one"),
    ("x", {}, "exactly one"),
    ("x", {"url": "ftp://h"}, "http"),
    ("x", {"command": "x", "timeout": -1}, "seconds in"),
    ("x", {"command": "x", "timeout": float("nan")}, "seconds in"),
    ("x", {"command": "x", "cwd": 5}, "'cwd' must be a str"),
    ("x", {"command": "x", "args": "a b"}, "list of strings"),
    ("x", {"type": "websocket", "url": "ws://h/mcp"}, "unknown type 'websocket'"),
    ("x", {"type": "stdio", "url": "http://h/mcp"}, "needs 'command'"),
    ("x", {"type": "sse", "command": "x"}, "needs 'url'"),
    ("x", {"command": "x", "env": {"A": ["list"]}}, "object of strings"),
    ("x", {"command": "x", "envFile": "/nonexistent/.env"}, "does not exist"),
    ("x", {"url": "http://h/mcp", "oauth": "yes"}, "'oauth' must be"),
    ("x", {"command": "${command:pick}"}, "unsupported variable"),
])
def test_registry_rejects_bad_entries_clearly(name, entry, message):
    with pytest.raises(ValueError, match=message):
        parse_server_spec(name, entry)


def test_profiles_resolve_plain_hybrid_and_overrides(monkeypatch):
    monkeypatch.setenv("DASHSCOPE_API_KEY", "dash-key")
    path = Path(__file__).resolve().parents[2] / "configs" / "models.json"
    local = load_roles(path, "local")
    assert not local.hybrid and local.router.base_url == "http://127.0.0.1:8000/v1"
    hybrid = load_roles(path, "hybrid")
    assert hybrid.hybrid and hybrid.router.profile == "local" and hybrid.writer.model == "qwen-plus"
    assert hybrid.writer.api_key == "dash-key"
    overridden = load_roles(path, "hybrid", base_url_override="http://127.0.0.1:9/v1", model_override="m")
    assert not overridden.hybrid and overridden.router.model == "m"
    with pytest.raises(ValueError, match="unknown model profile"):
        load_roles(path, "nope")


def test_tool_schemas_are_slimmed_for_the_model_only():
    tool = ToolInfo("weather", "find", "Find cities.\n\nLong details the model does not need.", {
        "type": "object", "title": "findArguments",
        "properties": {"min_temp": {"anyOf": [{"type": "number"}, {"type": "null"}], "default": None,
                                    "title": "Min Temp", "description": "Lowest °C"},
                       "title": {"type": "string", "title": "Title"}}})
    (spec,) = openai_tools([tool])
    assert spec["function"] == {"name": "weather__find", "description": "Find cities.", "parameters": {
        "type": "object", "properties": {"min_temp": {"description": "Lowest °C", "type": ["number", "null"]},
                                         "title": {"type": "string"}}}}
    assert tool.input_schema["properties"]["min_temp"]["anyOf"]  # the server's schema is untouched


def test_tool_list_drops_bounds_and_describes_a_repeated_argument_once():
    day = {"type": "integer", "minimum": -7, "maximum": 16, "description": "0 = today"}
    city = {"type": "string", "minLength": 1, "maxLength": 80, "description": "City name"}
    first = ToolInfo("w", "forecast", "Forecast.", {"type": "object", "properties": {"city": city, "day": day}})
    second = ToolInfo("w", "rain", "Rain.", {"type": "object", "properties": {
        "city": city, "day": {**day, "description": "0 = today, -1 = yesterday"}}})
    specs = openai_tools([first, second])
    assert [spec["function"]["parameters"]["properties"] for spec in specs] == [
        {"city": {"type": "string", "description": "City name"}, "day": {"type": "integer", "description": "0 = today"}},
        {"city": {"type": "string"}, "day": {"type": "integer", "description": "0 = today, -1 = yesterday"}}]
    assert second.input_schema["properties"]["city"]["description"] == "City name"  # the server's, untouched


def test_model_view_marks_yesterday_and_the_days_of_the_coming_week():
    today = dt.date.today()
    dates = [(today + dt.timedelta(days=offset)) for offset in (-1, 0, 1, 2, 3, 7)]
    days = [{"date": date.isoformat()} for date in dates]
    view = json.loads(model_view(ToolOutcome("w", "forecast", {}, structured_content={"days": days}), VOCABULARY,
                                 today))
    assert [day["date"] for day in view["days"]] == [
        f"{dates[0].isoformat()} (yesterday)", f"{dates[1].isoformat()} (today)",
        f"{dates[2].isoformat()} (tomorrow)", f"{dates[3].isoformat()} (day after tomorrow)",
        f"{dates[4].isoformat()} ({dates[4].strftime('%A')})",
        dates[5].isoformat()]  # a week on: the weekday alone would be ambiguous


def test_a_result_in_another_time_zone_names_its_days_from_that_zones_date():
    # At 23:30 UTC Berlin is a day on: its "tomorrow" was shown as "day after tomorrow" beside the server's text.
    fixed = dt.date(2026, 12, 4)
    for zone in ("Pacific/Kiritimati", "Pacific/Pago_Pago", "UTC"):
        now = dt.datetime.now(dt.timezone.utc)
        place_today = fixed + (now.astimezone(ZoneInfo(zone)).date() - now.astimezone().date())
        tomorrow = place_today + dt.timedelta(days=1)
        content = {"location": {"name": "X", "timezone": zone}, "days": [{"date": tomorrow.isoformat()}]}
        view = json.loads(model_view(ToolOutcome("w", "forecast", {}, structured_content=content), VOCABULARY, fixed))
        assert view["days"][0]["date"] == f"{tomorrow.isoformat()} (tomorrow)", zone
        assert results_today(content, fixed) == place_today
    # No zone, a zone no clock knows, or zones that disagree on the date: the gateway's own date.
    assert results_today({"timezone": "Mars/Olympus"}, fixed) == fixed
    assert results_today({"a": {"timezone": "Pacific/Kiritimati"}, "b": {"timezone": "Pacific/Pago_Pago"}},
                         fixed) == fixed


def test_measurements_are_recognised():
    assert states_measurements("北京今天22°C", VOCABULARY) and states_measurements("wind 10 km/h", VOCABULARY)
    assert states_measurements("湿度50%", VOCABULARY) and states_measurements("气温15度", VOCABULARY)
    assert not states_measurements("你好！2+2=4。", VOCABULARY) and not states_measurements("", VOCABULARY)
    assert not states_measurements("12 mmol", VOCABULARY)  # a unit of letters ends as a word ("mm")


def test_media_served_from_a_relative_data_dir(tmp_path, monkeypatch):
    """The default data dir is relative (`data`); Flask's send_file would resolve it against the
    package folder, so the chart URL answered 500. The app must serve it from the working directory."""
    from flask import Flask, send_file

    monkeypatch.chdir(tmp_path)
    store = MediaStore(Path("data") / "media")
    media_id = store.save(b"\x89PNG fake", "image/png")
    app = Flask("mcp_chat_app")  # root_path is the package folder, as in the real app
    app.add_url_rule("/m/<media_id>", view_func=lambda media_id: send_file(store.path(media_id)))
    response = app.test_client().get(f"/m/{media_id}")
    assert response.status_code == 200 and response.data == b"\x89PNG fake"
    assert (tmp_path / "data" / "media" / media_id).is_file()


def test_the_lowest_low_asked_for_is_the_colder_places_and_the_reply_names_it_first():
    """"明天锦州、营口、盘锦谁的最低气温最低" answered "盘锦的最低气温最低，为-5.4°C" beside 锦州's -9: the weather server's
    colder verdict is about that question, and a reply naming another place first breaks it."""
    def standing(name: str, low: float) -> Standing:
        location = Location(name=name, english_name=name, chinese_name=name, country="China", country_code="CN",
                            latitude=0.0, longitude=0.0, timezone="Asia/Shanghai")
        return Standing(location=location, name=name, warmth=0.0, coldness=low, wetness=0.0, windiness=0.0)

    verdicts = [v.model_dump() for v in comparison_verdicts([standing("锦州", -9.0), standing("营口", -7.2),
                                                             standing("盘锦", -5.4)])]
    question = "明天锦州、营口、盘锦谁的最低气温最低"
    assert contradictions("盘锦的最低气温最低，为-5.4°C。", question, verdicts, VOCABULARY) != []
    assert contradictions("锦州的最低气温最低，为-9°C。", question, verdicts, VOCABULARY) == []


def test_a_comparison_the_reply_makes_unasked_must_name_the_winner():
    places = [["Tokyo", "东京"], ["Seoul", "首尔"]]
    verdicts = [{"topic": "wetter", "winner": "Tokyo", "places": places, "statement": "Tokyo gets more rain",
                 "keywords": ["wet", "rain", "雨"]}]
    question = "Compare Tokyo and Seoul weather tomorrow"  # asks for no verdict
    assert contradictions("Seoul gets more rain than Tokyo.", question, verdicts, VOCABULARY) == [
        "it says 'Seoul gets more rain than Tokyo', but the facts say: Tokyo gets more rain"]
    assert contradictions("Seoul gets less rain than Tokyo.", question, verdicts, VOCABULARY) == []
    assert contradictions("首尔比东京雨多。", question, verdicts, VOCABULARY) != []
    # no comparison made
    assert contradictions("Seoul stays dry; Tokyo gets 0.6 mm.", question, verdicts, VOCABULARY) == []
