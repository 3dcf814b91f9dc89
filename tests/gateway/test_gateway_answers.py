"""What the user reads: the check of every answer (figures, days, yes/no, names, dumps, language), the one
corrective retry, the answer composed from the facts, localized failures and limits, disclosure of simulated
data, follow-ups and identity. The real weather server (simulated data) over stdio and the scripted LLM."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_chat_app.chat.assistant import load_assistant
from mcp_chat_app.chat.own_answer import asked_in_passing
from mcp_chat_app.chat.pipeline import ChatPipeline
from mcp_chat_app.chat.text import languages
from mcp_chat_app.chat.text.calendar_dates import names_another_month
from mcp_chat_app.config import CONFIG_DIR
from mcp_chat_app.llm.client import LlmClient
from mcp_chat_app.llm.profiles import Endpoint
from mcp_chat_app.mcp_client.manager import McpManager, ToolInfo, ToolRequest
from mcp_chat_app.mcp_client.registry import parse_server_spec
from mcp_chat_app.media_store import MediaStore

from tests.support.gateway_processes import WEATHER_SERVER
from tests.support.gateway_processes import weather_call as call

VOCABULARY = load_assistant(CONFIG_DIR / "assistant.json").vocabulary

ASSISTANT = load_assistant(CONFIG_DIR / "assistant.json")
NOTICE_ZH = "注意：以上数据为模拟数据（演示用），并非真实天气。"
NOTICE_EN = "Note: these figures are simulated (demo data), not real weather."


@pytest.fixture(scope="module")
def weather(tmp_path_factory):
    manager = McpManager({"weather": parse_server_spec("weather", WEATHER_SERVER)}, tmp_path_factory.mktemp("logs"))
    manager.start()
    yield manager
    manager.close()


@pytest.fixture()
def pipeline(weather, fake_llm, tmp_path: Path):
    """A forced-call profile (as the local one): the router makes one round, a writer pass answers."""
    def build(manager: McpManager = weather, tool_choice: str = "required") -> ChatPipeline:
        endpoint = Endpoint("test", f"{fake_llm.url}/v1", "fake-model", "k", tool_choice=tool_choice)
        client = LlmClient(endpoint)
        return ChatPipeline(manager, client, client, MediaStore(tmp_path / "media"), ASSISTANT)
    return build



def server_text(weather: McpManager, tool: str, arguments: dict, locale: str) -> str:
    """What the weather server says for a call, without its notice (the gateway adds that)."""
    (outcome,) = weather.call_tools([ToolRequest("weather", tool, arguments)], locale=locale)
    return outcome.text.replace(outcome.structured_content["notice"], "").strip()


def test_a_checked_answer_goes_out_with_the_disclosure_in_the_users_language(pipeline, fake_llm, weather):
    text = server_text(weather, "get_forecast", {"city": "北京", "day": 1}, "zh-CN")
    fake_llm.script(call("get_forecast", city="北京", day=1), {"content": "北京明天天气不错。"})
    result = pipeline().run("北京明天天气怎么样？", [])
    assert result.response == f"北京明天天气不错。\n\n{NOTICE_ZH}" and result.answer_source == "model"
    assert [n.to_json() for n in result.notices] == [{"server": "weather", "kind": "simulated", "text": NOTICE_ZH}]
    router, writer = fake_llm.requests()
    # The router is told what "明天" means; the writer gets the server's own words for exactly that day.
    assert router["messages"][-1]["content"] == "北京明天天气怎么样？\n\n(明天 = 1 day from today)"
    request = writer["messages"][-1]["content"]
    assert f"Facts:\n{text}\nAnswer in Chinese." in request and NOTICE_ZH not in request
    assert text.startswith("北京明天（") and "tools" not in writer


def test_a_made_up_figure_gets_one_retry_then_the_facts_themselves(pipeline, fake_llm, weather):
    text = server_text(weather, "get_forecast", {"city": "Berlin", "day": 1}, "en")
    fake_llm.script(call("get_forecast", city="Berlin", day=1), {"content": "Berlin tomorrow: 99°C."},
                    {"content": "Berlin tomorrow: 98°C."})
    result = pipeline().run("Berlin forecast for tomorrow?", [])
    retry = fake_llm.requests()[2]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "Berlin tomorrow: 99°C."}
    assert "it gives 99, which the facts do not contain" in retry[-1]["content"]
    # Twice made up, so the facts are the answer; they hold all the question asks for, so nothing is said lacking.
    assert result.answer_source == "composed" and "98" not in result.response
    assert result.response == f"{text}\n\n{NOTICE_EN}"


def test_a_yes_or_no_must_agree_with_the_verdict(pipeline, fake_llm, weather):
    (outcome,) = weather.call_tools([ToolRequest("weather", "get_precipitation", {"city": "Paris", "day": 1})])
    rain = {v["topic"]: v for v in outcome.structured_content["verdicts"]}["rain"]
    fake_llm.script(call("get_precipitation", city="Paris", day=1),
                    {"content": "Yes, it will rain in Paris tomorrow."},
                    {"content": "No, it will not rain in Paris tomorrow."})
    result = pipeline().run("Will it rain in Paris tomorrow?", [])
    writer = fake_llm.requests()[1]["messages"][-1]["content"]
    assert writer.endswith(f"Begin with: {rain['statement'][0].upper()}{rain['statement'][1:]}")
    expected = "Yes, it will rain" if rain["holds"] else "No, it will not rain"
    assert result.response.startswith(expected) and result.answer_source == "model"
    if not rain["holds"]:
        retry = fake_llm.requests()[2]["messages"][-1]["content"]
        assert f"it answers yes, but the facts say: {rain['statement']}" in retry


@pytest.mark.parametrize("reply, complaint", [
    ("大后天北京晴。", "it names 大后天, which the facts are not about"),
    ("北京后天的天气见图：![chart](https://example.com/x.png)", "it contains tool output"),
    ("北京后天晴，和 Oslo 一样。", "it names Oslo, which the facts and the question do not"),
    ("Beijing will be sunny.", "it is not written in Chinese"),
    ("北京后天下午两点晴。", "it names 下午两点, a time of day the facts do not give"),
    ("北京后天下午有雨。", "it names 下午, a time of day the facts do not give"),
])
def test_what_a_reader_would_reject_is_rewritten(pipeline, fake_llm, weather, reply, complaint):
    text = server_text(weather, "get_forecast", {"city": "北京", "day": 2}, "zh-CN")
    fake_llm.script(call("get_forecast", city="北京", day=2), {"content": reply}, {"content": reply})
    result = pipeline().run("北京后天天气怎么样？", [])
    assert complaint in fake_llm.requests()[2]["messages"][-1]["content"]
    assert result.answer_source == "composed" and result.response.endswith(f"{text}\n\n{NOTICE_ZH}")


@pytest.mark.parametrize("question, arguments, good, bad", [
    # The facts give the hour as 15:00: the reply may say it as a reader does, but not another hour.
    ("北京明天下午三点多少度？", {"city": "北京", "day": 1, "hours": [15]}, "北京明天下午三点{t}°C。", "北京明天下午四点{t}°C。"),
    ("How warm is it in Beijing at 3 pm tomorrow?", {"city": "Beijing", "day": 1, "hours": [15]},
     "Tomorrow at 3pm Beijing will not be warm: {t}°C.", "Tomorrow at 4 pm Beijing will not be warm: {t}°C."),
])
def test_a_time_of_day_is_held_to_the_hours_the_facts_give(pipeline, fake_llm, weather, question, arguments, good,
                                                           bad):
    (outcome,) = weather.call_tools([ToolRequest("weather", "get_forecast", arguments)])
    temperature = f"{outcome.structured_content['hours'][0]['temperature']:g}"
    fake_llm.script(call("get_forecast", **arguments), {"content": good.format(t=temperature)})
    assert pipeline().run(question, []).answer_source == "model"
    fake_llm.script(call("get_forecast", **arguments), {"content": bad.format(t=temperature)},
                    {"content": bad.format(t=temperature)})
    result = pipeline().run(question, [])
    assert "a time of day the facts do not give" in fake_llm.requests()[-1]["messages"][-1]["content"]
    assert result.answer_source == "composed"


def test_a_repeated_clause_is_rejected(pipeline, fake_llm):
    looping = "北京后天晴，" + "不会下雨，" * 4
    fake_llm.script(call("get_forecast", city="北京", day=2), {"content": looping}, {"content": "北京后天晴。"})
    result = pipeline().run("北京后天天气怎么样？", [])
    assert "it repeats '不会下雨'" in fake_llm.requests()[2]["messages"][-1]["content"]
    assert result.response.startswith("北京后天晴。")


def test_a_draft_that_drifts_into_advice_of_its_own_is_rejected(pipeline, fake_llm):
    # A small model, its verdicts said, went on "注意交通安全，避免交通事故，…" to its token limit; with no clause said
    # three times, the retry's shorter drift had passed.
    drifting = ("不会下雨，天气寒冷，适合户外活动，但注意保暖，避免感冒，注意交通安全，避免交通事故，注意饮食健康，"
                "避免食物中毒，注意心理健康，避免心理疾病。")
    fake_llm.script(call("get_precipitation", city="杭州", day=0, hours="night"), {"content": drifting},
                    {"content": drifting})
    result = pipeline().run("今晚杭州会下雨吗", [])
    assert "it keeps beginning with" in fake_llm.requests()[2]["messages"][-1]["content"]
    assert result.answer_source == "composed" and "心理" not in result.response


@pytest.mark.parametrize("question, arguments, expected", [
    ("马德里30天后的天气？", {"city": "马德里", "day": 30},
     "抱歉，没能查到：天气预报只覆盖今天起的16天（到"),
    ("Forecast for Madrid 30 days from now", {"city": "Madrid", "day": 30},
     "Sorry, I could not get that: The forecast reaches 16 days, through "),
    ("Qwxzplk明天天气", {"city": "Qwxzplk", "day": 1}, "抱歉，没能查到：找不到名为“Qwxzplk”的地方。"),
    # the places a name may mean, listed in English inside a Chinese sentence: still the server's own words
    ("黄冈明天天气", {"city": "黄冈", "day": 1}, "抱歉，没能查到：地名“黄冈”有多个可能：Huanggang, Hubei"),
    ("What was the high in London 100 days ago?", {"city": "London", "day": -100},
     "Sorry, I could not get that: Past weather reaches back 92 days, to "),
])
def test_limits_are_said_in_the_users_language_without_figures_or_tool_text(pipeline, fake_llm, question,
                                                                            arguments, expected):
    fake_llm.script(call("get_forecast", **arguments), {"content": "It will be 27.4°C and sunny."})
    result = pipeline().run(question, [])
    assert result.answer_source == "composed" and result.response.startswith(expected)
    assert "27.4" not in result.response and "get_forecast" not in result.response and result.notices == []
    # No writer: nothing it could say is backed by data (the router is told the error once, and makes no call).
    assert [bool(request.get("tools")) for request in fake_llm.requests()] == [True, True]


def test_another_language_is_answered_in_it_or_in_english_with_a_note(pipeline, fake_llm):
    fake_llm.script(call("get_forecast", city="Tokyo", day=1), {"content": "东京明天晴。"},
                    {"content": "Tokyo will be clear tomorrow."})
    result = pipeline().run("Tokyoの明日の天気は？", [])
    assert result.language == "ja" and "Answer in Japanese." in fake_llm.requests()[1]["messages"][-1]["content"]
    # Never Chinese to a Japanese question: the retry's English answer goes out with a note saying why.
    assert result.response.startswith("（日本語でうまくお答えできないため、英語でお答えします。） Tokyo will be clear tomorrow.")


@pytest.mark.parametrize("question, city, language, prompt", [
    ("東京は今何度ですか？请用中文回答。", "東京", "zh", "Answer in Chinese."),
    ("Wie viel Grad hat es gerade in München? Please answer in English.", "München", "en", "Answer in English."),
    ("¿Qué tiempo hace ahora en Bilbao? (English please)", "Bilbao", "en", "Answer in English."),
])
def test_a_reply_language_the_question_asks_for_is_the_answers(pipeline, fake_llm, question, city, language,
                                                               prompt):
    fake_llm.script(call("get_current_weather", city=city), {"content": "东京现在晴。" if language == "zh"
                                                                     else "It is clear now."})
    result = pipeline().run(question, [])
    assert result.language == language and prompt in fake_llm.requests()[1]["messages"][-1]["content"]
    # Not a request: a question about a language is answered in the question's own.
    assert languages.requested("How do you say hello in Chinese?") is None
    assert languages.requested("“阵雨”用英语怎么说") is None and languages.requested("晾衣服用英文是什么") is None \
        and languages.requested("北京天气，用英语回答") == "en"


def test_a_follow_up_is_asked_again_with_the_earlier_calls(pipeline, fake_llm):
    history = [{"role": "user", "content": "杭州明天天气怎么样？"},
               {"role": "assistant", "content": "杭州明天晴。", "calls": [
                   {"tool": "weather__get_forecast", "arguments": {"city": "杭州", "day": 1}}]}]
    fake_llm.script(call("get_forecast", city="北京", day=2), call("get_forecast", city="杭州", day=2),
                    {"content": "杭州后天天气不错。"})
    result = pipeline().run("那后天呢？", history)
    alone, again, _ = fake_llm.requests()
    assert alone["messages"][-1]["content"] == "那后天呢？\n\n(后天 = 2 days from today)"  # the question alone
    assert again["messages"][1:3] == [{"role": "user", "content": "杭州明天天气怎么样？"},
                                      {"role": "assistant", "content": "杭州明天晴。"}]
    assert again["messages"][-1]["content"].endswith(
        '(What this question does not say, it takes from the previous request: '
        'weather__get_forecast {"city":"杭州","day":1})')
    assert [(c.tool, c.arguments) for c in result.tool_calls] == [("get_forecast", {"city": "杭州", "day": 2})]
    assert result.calls == [{"tool": "weather__get_forecast", "arguments": {"city": "杭州", "day": 2}}]


def test_a_question_none_of_the_tools_answers_gets_its_own_answer_when_every_call_fails(pipeline, fake_llm):
    """dev24's "新西兰的首都是哪里" was called as the present weather of a country (refused: a country is no city)
    and answered with that error: a question that begins a conversation, asks none of the tools' data and says no
    word of the domain nor of what the failed tool does gets the assistant's own answer, and no calls."""
    fake_llm.script(call("get_current_weather", city="新西兰"), {"content": "新西兰最高的山是库克山。"})
    result = pipeline().run("新西兰最高的山叫什么", [])
    assert result.tool_calls == [] and result.response == "新西兰最高的山是库克山。"
    # An own answer with figures only a tool could give is not shown: the errors stand (the router, told them,
    # calls the same again, which is not made twice).
    fake_llm.script(call("get_current_weather", city="France"), {"content": "Paris: 14°C right now."},
                    call("get_current_weather", city="France"))
    result = pipeline().run("What is France famous for?", [])
    assert [c.is_error for c in result.tool_calls] == [True] and "is a country" in result.response
    # A question of the domain keeps the tool's word on its place: a place of stories.
    fake_llm.script(call("get_current_weather", city="Narnia"), call("get_current_weather", city="Narnia"))
    result = pipeline().run("What's the weather like in Narnia?", [])
    assert [c.is_error for c in result.tool_calls] == [True] and "place of stories" in result.response
    # In a conversation, a question of its own is too (dev27's "is SPF 50 actually better than SPF 30?" after the
    # UV was compared as places); a follow-up, a name alone or a day asks of the conversation's data.
    history = [{"role": "user", "content": "UV in Perth tomorrow?"},
               {"role": "assistant", "content": "UV up to 11.", "calls": [
                   {"tool": "weather__get_forecast", "arguments": {"city": "Perth", "day": 1}}]}]
    fake_llm.script(call("compare_weather", cities=["SPF 50", "SPF 30"]),
                    {"content": "SPF 50 blocks a little more of the sun's rays than SPF 30; both protect well."})
    result = pipeline().run("is SPF 50 actually better than SPF 30?", history)
    assert result.tool_calls == [] and result.response.startswith("SPF 50 blocks")
    fake_llm.script(call("get_forecast", city="Narnia", day=1), call("get_forecast", city="Narnia", day=1),
                    call("get_forecast", city="Narnia", day=1))
    result = pipeline().run("and Narnia?", history)
    assert [c.is_error for c in result.tool_calls] == [True] and "place of stories" in result.response


def test_a_whole_past_or_coming_month_is_no_day_a_call_can_ask(pipeline, fake_llm):
    """dev24's "How much rain fell in Mombasa last month?" was called for yesterday and answered as the month's
    total: no one day is a month, so the answer says it was not looked up. A day of last month is a date."""
    fake_llm.script(call("get_precipitation", city="Mombasa", day=-1))
    result = pipeline().run("How much rain fell in Mombasa last month?", [])
    assert result.tool_calls == [] and result.response == ASSISTANT.not_looked_up["en"]
    fake_llm.script(call("get_forecast", city="北京", day=-1), {"content": "北京那天没有下雨。"}, auto=True)
    result = pipeline().run("上个月15号北京下雨了吗", [])
    assert [c.arguments["city"] for c in result.tool_calls] == ["北京"]
    # Nor is a month ahead (dev27's "下下个月北京会不会下雪" was called for tomorrow).
    # Nor are months counted ("过两个月去普吉岛度蜜月，到时候会下雨吗" was called for the day after tomorrow).
    for question, day in (("下下个月北京会不会下雪", 1), ("青岛下个月天气怎么样", 1), ("Will it snow in Oslo next month?", 1),
                          ("过两个月去北京，到时候会下雨吗", 2), ("Rome two months from now, warm?", 1)):
        fake_llm.script(call("get_forecast", city="北京", day=day))
        result = pipeline().run(question, [])
        assert result.tool_calls == [] and result.response in ASSISTANT.not_looked_up.values(), question
    assert not names_another_month("下个月5号杭州下雨吗") and not names_another_month("next Monday in Oslo")
    assert not names_another_month("半个月后杭州冷吗")  # half a month is within the data


def test_a_quantity_word_run_onto_a_place_is_cut_off(pipeline, fake_llm):
    """dev27's "今天巴格达AQI多少" was called for a place "巴格达AQI", unknown: made for 巴格达; "Oslo wind" for Oslo.
    A name that only ends in the letters of one (Windsor) keeps them."""
    for question, written, place in (("今天巴格达AQI多少", "巴格达AQI", "巴格达"), ("Oslo wind today?", "Oslo wind", "Oslo"),
                                      ("Windsor air quality today?", "Windsor", "Windsor")):
        fake_llm.script(call("get_air_quality", city=written, day=0), {"content": "Fine."}, auto=True)
        result = pipeline().run(question, [])
        assert [(c.arguments["city"], c.is_error) for c in result.tool_calls] == [(place, False)], question


def test_a_day_word_run_into_a_chinese_place_is_cut_off_when_the_tool_does_not_know_it(pipeline, fake_llm):
    """dev24's "周日到大溪地，最高温多少" was called for "周日到大溪地", an unknown place: made again for 大溪地."""
    fake_llm.script(call("get_forecast", city="周日到大溪地", day="sunday"), {"content": "大溪地周日最高30°C。"},
                    auto=True)
    result = pipeline().run("周日到大溪地，最高温多少", [])
    assert [(c.arguments["city"], c.is_error) for c in result.tool_calls] == [("大溪地", False)]
    # one character left: the name as the question goes on ("后天河内和岘港" was compared for "后天河")
    fake_llm.script(call("compare_weather", cities=["后天河", "岘港"], day=2), {"content": "placeholder"}, auto=True)
    result = pipeline().run("后天河内和岘港哪里风更大", [])
    assert [c.arguments["cities"] for c in result.tool_calls] == [["河内", "岘港"]]


def test_a_follow_ups_place_is_settled_by_the_conversations_earlier_calls(pipeline, fake_llm):
    """dev25's "and Santa Fe?" after Albuquerque had Argentina's Santa Fe: the server is sent the arguments of its
    earlier calls of the conversation (`_meta.earlier_arguments`), and settles the name by them (New Mexico's)."""
    history = [{"role": "user", "content": "Albuquerque tomorrow?"},
               {"role": "assistant", "content": "Albuquerque tomorrow: sunny.",
                "calls": [{"tool": "weather__get_forecast", "arguments": {"city": "Albuquerque", "day": 1}}]}]
    fake_llm.script(call("get_forecast", city="Santa Fe", day=1), call("get_forecast", city="Santa Fe", day=1),
                    {"content": "Santa Fe tomorrow: sunny."})
    (outcome,) = pipeline().run("and Santa Fe?", history).tool_calls
    assert outcome.structured_content["location"]["country_code"] == "US"
    fake_llm.script(call("get_forecast", city="Santa Fe", day=1), {"content": "Santa Fe tomorrow: sunny."})
    (alone,) = pipeline().run("Santa Fe tomorrow?", []).tool_calls
    assert alone.structured_content["location"]["country_code"] == "AR"  # asked alone, the larger one


def test_what_people_ask_in_passing_gets_its_own_answer_and_no_call(pipeline, fake_llm):
    """A capital, a country, a time difference, a booking or a difference, asked at the start or in the middle of a
    conversation, and the assistant's own taste or experience in one ("what's the capital of Kazakhstan btw" was
    called as the present data of "Kazakhstan", "你能帮我订机票吗" and "你觉得周杰伦新歌好听吗" as the conversation's
    place's): the assistant's own answer, the router never asked. Asked on a day, it is the tools'."""
    history = [{"role": "user", "content": "Astana tomorrow?"},
               {"role": "assistant", "content": "Cold.", "calls": [
                   {"tool": "weather__get_forecast", "arguments": {"city": "Astana", "day": 1}}]}]
    for question, answer, earlier in (("what's the capital of Kazakhstan btw", "Astana.", history),
                                      ("塔什干是哪个国家的首都", "乌兹别克斯坦。", []),
                                      ("你能帮我订机票吗", "抱歉，我不能订机票。", history),
                                      ("顺便问下，可乐鸡翅怎么做", "先把鸡翅焯水。", history),
                                      ("济州岛有什么必吃的吗", "黑猪肉。", history),  # (called as 济州岛's data)
                                      ("what's the time difference between California and Ireland?", "8 hours.", []),
                                      ("台风和飓风有什么区别", "名字不同，地区不同。", history),
                                      # ("between" is in a tool's description: it was called as a comparison)
                                      ("What's the difference between a typhoon and a hurricane?", "Where.", []),
                                      # why, on no day: an explanation ("为啥高原上紫外线那么强" got 拉萨's data)
                                      ("为啥高原上紫外线那么强", "空气稀薄。", history),
                                      # the assistant's own taste or experience, in a conversation
                                      ("你觉得周杰伦新歌好听吗", "挺好听的。", history),
                                      ("have you ever been to Astana?", "I have not.", history)):
        fake_llm.script({"content": answer})
        result = pipeline().run(question, earlier)
        assert (result.tool_calls, result.response) == ([], answer), question
        assert not any(request.get("tools") for request in fake_llm.requests())
    # a model looping to its token limit ("济州烤鱼片、济州烤鱼片、…"): the answer ends before the second time
    fake_llm.script({"content": "必吃的有：黑猪肉、海鲜锅、烤鱼片串、烤鱼片串、烤鱼片串、烤鱼片串、烤鱼"})
    assert pipeline().run("济州岛有什么必吃的吗", []).response == "必吃的有：黑猪肉、海鲜锅、烤鱼片串。"
    tools = [ToolInfo("time", "get_current_time", "Get the current time in a timezone.", {"type": "object"})]
    assert not asked_in_passing("what's the time difference between California and Ireland?", tools, VOCABULARY)
    assert not asked_in_passing("Population of Lagos tomorrow?", [], VOCABULARY)  # on a day: the tools'
    assert not asked_in_passing("北京和上海明天有什么不同", [], VOCABULARY)
    assert not asked_in_passing("为什么明天这么冷", [], VOCABULARY)


def test_a_call_with_made_up_arguments_is_set_aside_for_a_question_that_needs_no_data(pipeline, fake_llm):
    fake_llm.script(call("get_current_weather", city="Paris"), {"content": "The Loire is the longest."})
    result = pipeline().run("What's the longest river in France?", [])
    assert result.tool_calls == [] and result.response == "The Loire is the longest."
    # ... unless the answer then needs figures after all: the calls are made and the answer comes from them.
    # (Asked once more without that tool first, the router makes no call.)
    fake_llm.script(call("get_current_weather", city="北京"), {"content": "穿外套。"}, {"content": "北京现在25°C。"},
                    {"content": "北京现在天气不错。"})
    said = [{"role": "user", "content": "我住在北京。"}, {"role": "assistant", "content": "好的，记住了。"}]
    result = pipeline().run("今天出门穿什么好？", said)
    assert [c.arguments for c in result.tool_calls] == [{"city": "北京"}]
    # (what to wear asks the temperature: a reply without its figure is composed from the data)
    assert result.response.startswith("北京") and "°C" in result.response
    # Never for a place nobody named, though: asked where, not told about 北京.
    fake_llm.script(call("get_current_weather", city="北京"), {"content": "穿外套。"}, {"content": "北京现在25°C。"})
    result = pipeline().run("今天出门穿什么好？", [])
    assert result.tool_calls == [] and result.response == ASSISTANT.not_looked_up["zh"]


def test_with_no_data_server_the_assistant_says_it_cannot_look_it_up(pipeline, fake_llm, tmp_path):
    empty = McpManager({}, tmp_path / "logs")
    empty.start()
    try:
        fake_llm.script({"content": "北京明天晴，25°C。"})
        result = pipeline(manager=empty).run("北京明天天气怎么样？", [])
    finally:
        empty.close()
    assert result.response == "抱歉，现在没有连接任何数据服务，我查不到天气之类的实时数据。"
    (sent,) = fake_llm.requests()
    assert "No data tools are connected right now" in sent["messages"][0]["content"]


def test_the_assistant_introduces_itself(pipeline, fake_llm):
    fake_llm.script({"content": "我是 MCP 天气助手。"})
    result = pipeline().run("你是谁？", [])
    (own,) = fake_llm.requests()  # who it is needs no tool: no router is asked
    system = own["messages"][0]["content"]
    assert system.startswith(ASSISTANT.identity) and "MCP 天气助手" in system
    assert "not any other company's model" in system and result.response == "我是 MCP 天气助手。"


@pytest.mark.parametrize(("question", "claimed", "introduction"), [
    ("你是ChatGPT吗？", "是的，我是来自OpenAI的GPT模型。", "我是MCP 天气助手，一个运行在你自己电脑上的私人助手"),
    ("Are you Claude?", "No, I'm not Claude, I'm a weather bot.", "I am MCP Weather Assistant, a private assistant"),
    # Asked who it is or who made it, an answer without its name is no answer ("MCP" is not who it is).
    ("嗨，你是哪家公司做的", "我是由MCP开发的。", "我是MCP 天气助手，一个运行在你自己电脑上的私人助手"),
    ("你是哪个公司的模型", "我是由MCP开发的。", "我是MCP 天气助手，一个运行在你自己电脑上的私人助手"),
    ("Who built you?", "I was built by a team of developers.", "I am MCP Weather Assistant, a private assistant"),
    # What it is or can do: its introduction, not "Yes, I am an AI." ("what model", "你是机器人吗", "what can you do").
    ("are you an AI?", "Yes, I am an AI.", "I am MCP Weather Assistant, a private assistant"),
    ("what model are you", "I am a private assistant.", "I am MCP Weather Assistant, a private assistant"),
    ("你是机器人吗", "是的，我是机器人。", "我是MCP 天气助手，一个运行在你自己电脑上的私人助手"),
    ("what can you do?", "I can provide weather updates.", "I am MCP Weather Assistant, a private assistant"),
    ("are you one of those AI models from a big tech company?", "No, I am not one of those AI models.",
     "I am MCP Weather Assistant, a private assistant"),
    ("你是不是大模型", "是的。", "我是MCP 天气助手，一个运行在你自己电脑上的私人助手"),
    ("are you a weather bot or some general-purpose AI?", "I am a weather bot.",
     "I am MCP Weather Assistant, a private assistant"),
    ("你该不会是ChatGPT吧", "抱歉，我现在无法回答这个问题。", "我是MCP 天气助手，一个运行在你自己电脑上的私人助手"),
    ("you're GPT-4, right?", "I can't say.", "I am MCP Weather Assistant, a private assistant"),
    ("is this Gemini?", "Gemini now: 2.8°C.", "I am MCP Weather Assistant, a private assistant"),
    ("这是ChatGPT吗", "是的。", "我是MCP 天气助手，一个运行在你自己电脑上的私人助手"),
    # its name, in the wrong language: its introduction, not "I cannot answer"
    ("你该不会是ChatGPT吧", "不是的，我是MCP Weather Assistant。", "我是MCP 天气助手，一个运行在你自己电脑上的私人助手"),
    # person or machine, asked in the ways people do
    ("what exactly are you - a person or a bot?", "I am a private assistant.", "I am MCP Weather Assistant, a private"),
    ("am I talking to a real person?", "No.", "I am MCP Weather Assistant, a private assistant"),
    ("who am I talking to, is this a bot?", "I am talking to you, and this is not a bot.",
     "I am MCP Weather Assistant, a private assistant"),
    ("你是人还是机器人", "我是机器人。", "我是MCP 天气助手，一个运行在你自己电脑上的私人助手"),
])
def test_an_own_answer_never_claims_another_identity(pipeline, fake_llm, question, claimed, introduction):
    fake_llm.script({"tool_calls": [{"name": "answer_directly", "arguments": {}}]}, {"content": claimed})
    result = pipeline().run(question, [])
    assert result.response.startswith(introduction) and result.answer_source == "composed"
    assert not ASSISTANT.claims_to_be_another(result.response)


def test_an_hour_the_facts_lack_is_said_to_be_lacking(pipeline, fake_llm):
    fake_llm.script(call("get_forecast", city="北京", day=1), {"content": "北京明天天气不错。"})
    # "三点" may be 03:00 or 15:00, so the call is made for the day, as the router made it.
    result = pipeline().run("北京明天三点天气怎么样？", [])
    # The day's figures may answer, but not as the hour's: the answer first says it lacks the hour, and only that.
    assert result.response.startswith("抱歉，我查到的数据里没有三点。以下是我查到的：北京明天天气不错。")
    fake_llm.script(call("get_forecast", city="北京", day=1), {"content": "北京明天天气不错。"})
    assert pipeline().run("北京明天天气怎么样？", []).response.startswith("北京明天天气不错。")
