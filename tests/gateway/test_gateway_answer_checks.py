"""One reply, one story, and "I don't have that" only for what no result has (issue 23, items 3 and 4): each check
with a reply it rejects and one it accepts, then over HTTP with the weather server (simulated) and the scripted
LLM: a contradicting draft is rejected and the answer that goes out is consistent; a UV question is answered with
the figure the forecast holds."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

import pytest

from mcp_chat_app.chat.assistant import load_assistant
from mcp_chat_app.chat.call import Called
from mcp_chat_app.chat.compose import from_facts
from mcp_chat_app.chat.facts import Facts, degree_asked, gather_facts, numbers_in, tersely_asked, verdicts_about
from mcp_chat_app.chat.route import Routed
from mcp_chat_app.chat.text.claims import is_yes_no_question, states_measurements
from mcp_chat_app.chat.text.consistency import inconsistencies
from mcp_chat_app.chat.text.quantities import asked_quantities, field_matches, holds
from mcp_chat_app.chat.text.result_view import field_values
from mcp_chat_app.chat.turn import Turn
from mcp_chat_app.chat.verify import (
    bounds_given_as_figures,
    check_reply,
    comparison_patterns,
    contradictions,
    misattributed,
    unfounded_chances,
)
from mcp_chat_app.chat.write import Draft, write
from mcp_chat_app.chat.write_prompt import WRITER_RULES
from mcp_chat_app.config import CONFIG_DIR
from mcp_chat_app.mcp_client.results import ToolImage, ToolOutcome

from tests.support.gateway_processes import WEATHER_SERVER, GatewayProcess
from tests.support.gateway_processes import weather_call as call

ASSISTANT = load_assistant(CONFIG_DIR / "assistant.json")
VOCABULARY = ASSISTANT.vocabulary
RAIN = ["rain", "shower", "wet", "drizzle", "雨", "precipitation", "降水"]  # the rain's, where only rain falls
WEEK = ("Berlin, next 7 days (Wed 2 Dec – Tue 8 Dec): today Partly cloudy, 1.3 to 7.6°C (15% chance of rain); "
        "tomorrow Mainly clear, -0.1 to 7.9°C (11% chance of rain); Sun 6 Dec Slight rain, 1.3 to 7°C (73% chance "
        "of rain), 3.8 mm. Rain is expected (Sun 6 Dec), no snow is expected.")
ZH_DAYS = "北京未来3天：今天 局部多云，-6.1~2.2°C；明天 晴，-4.7~6.4°C；后天（12月4日 周五）小雨，-9.7~0.6°C（降水概率80%）。"


def rain(holds: bool, statement: str) -> dict[str, Any]:
    return {"topic": "rain", "holds": holds, "statement": statement, "keywords": RAIN}


def told(reply: str, question: str, facts: str, verdicts: list[dict[str, Any]]) -> list[str]:
    comparing = comparison_patterns(VOCABULARY.comparatives, VOCABULARY.lesser_comparatives)[0]
    return inconsistencies(reply, question, facts, verdicts, VOCABULARY, comparing)


WET_SUNDAY = [rain(True, "rain is expected (Sun 6 Dec)")]
DRY = [rain(False, "no rain is expected")]


@pytest.mark.parametrize("question, yes_no", [
    ("今晚佛山有雨没？", True), ("那边会下雨不？", True), ("明天有雨没有", True), ("明天是否下雨", True),
    ("明天冷不冷", True), ("明天下雨吗", True), ("明天天气怎么样", False), ("不下雨的城市有哪些？", False),
    ("Will it rain?", True), ("What is the weather?", False),
    ("Kingston, Jamaica - is it going to be hot tomorrow?", True), ("Timbuktu right now: is it scorching?", True),
    ("Lagos, Nigeria, will it rain?", True), ("Paris - what is the weather?", False),
    ("willit rain in Keelung tmr", True), ("isit cold in Oslo", True), ("Willits weather tomorrow", False),
    # in traditional characters ("會很熱嗎" was answered "會很熱" at 19.9°C)
    ("會很熱嗎", True), ("台北明天會不會下雨", True), ("有沒有雨", True),
    # with a remark after it (dev29's "Berlin 明天下雨吗 德国那个"), not 什么 or 怎么 before a space
    ("Berlin 明天下雨吗 德国那个", True), ("北京明天什么 天气", False),
    # ... or a clause ending in 不 (dev35's "张家口崇礼明天下雪不 想去滑雪" got the day's figures and no verdict)
    ("张家口崇礼明天下雪不 想去滑雪", True), ("明天下雨不，想出门", True), ("今天不热，明天呢", False),
    # after a sentence of its own
    ("Hi! My mom is flying into Honolulu tomorrow. Will it be hot there?", True),
    ("St. Louis weather tomorrow?", False), ("Thanks. What is the high?", False),
    # spoken ("Gonna be hot in Seville tomorrow?" got "Yes, it will be hot" at 14.3°C), and in other languages
    ("Gonna be hot in Seville tomorrow?", True), ("going to rain in Leeds?", True),
    # after a greeting or a filler word (dev27's "hey is it hot out in Kuwait City rn" got "Yes, it is hot" at 14°C)
    ("hey is it hot out in Kuwait City rn", True), ("ok so will it snow in Oslo", True), ("hey what's the high?", False),
    ("Pioverà domani a Sintra? Rispondi in inglese, per favore.", True), ("¿Va a llover mañana en Cusco?", True),
    ("Est-ce qu'il va pleuvoir demain à Lyon ?", True), ("Wird es morgen in Graz regnen?", True),
    ("明日の札幌は雪が降りますか？", True), ("내일 부산에 비가 올까요?", True),
    ("내일 제주도에 비 와요? Answer in English please.", True), ("서울 날씨 어때요?", False),
    ("¿Qué tiempo hará mañana en Cusco?", False), ("Quel temps fera-t-il demain à Lyon ?", False),
    ("Wie warm wird es morgen in Graz?", False), ("明日の札幌の天気はどうですか？", False),
    # "… or not", as 冷不冷 ("JB tomorrow very hot or not ah")
    ("JB tomorrow very hot or not ah", True), ("Cameron Highlands on Saturday will be cold or not?", True),
    # a guess put to be confirmed (dev43's "明天杭州不会下雨吧？" got the figures first, its "no" after them)
    ("明天杭州不会下雨吧？约了朋友去西湖边拍照", True), ("明天不会比今天冷吧", True),
    ("it won't rain tomorrow, right?", True), ("so no umbrella then?", True), ("Rain in Leeds tomorrow, yeah?", True),
    ("what about Leeds, then?", False), ("明天呢？", False),
    ("Honestly just tell me if Muscat will be unbearable tomorrow", True),
])
def test_yes_no_questions_are_told_in_their_spoken_forms_too(question, yes_no):
    assert is_yes_no_question(question) is yes_no


def test_a_yes_lead_and_a_no_for_every_day_are_one_reply_too_many():
    question = "Will it rain in Berlin this week?"
    assert told("Yes, rain is expected on Sunday; no precipitation in the next 7 days.", question, WEEK,
                WET_SUNDAY) == [
        "it says 'rain is expected on Sunday' and also 'no precipitation in the next 7 days': say one thing of "
        "each day",
        "it says 'no precipitation in the next 7 days', but the facts say: rain is expected (Sun 6 Dec)"]
    assert told("Yes, rain on Monday.", question, WEEK, WET_SUNDAY) == [
        "it says 'rain on Monday', but the facts say: rain is expected (Sun 6 Dec)"]
    # A no for the other days, a figure quoted, a low chance: one story.
    assert told("Yes, rain is expected on Sunday (73%); the other days stay dry.", question, WEEK, WET_SUNDAY) == []
    assert told("Rain on Sunday; today only a 15% chance of rain.", question, WEEK, WET_SUNDAY) == []
    assert told("会下雨（周日）；今天降雨可能性很小。", "北京这周会下雨吗？", "北京：周日 小雨。会下雨（周日）。",
                [rain(True, "会下雨（周日）")]) == []
    assert told("会下雨（周一、周二）；未来7天没有降水。", "北京这周会下雨吗？", "北京：周一 小雨；周二 小雨。",
                [rain(True, "会下雨（周一、周二）")])[0] == (
        "it says '会下雨（周一、周二）' and also '未来7天没有降水': say one thing of each day")


def test_no_precipitation_for_the_week_beside_its_day_of_snow_is_a_contradiction():
    """"会下雪（后天）；北京未来7天没有降水。" agreed with "不会下雨" while denying the snow it had just said."""
    facts = ("北京未来7天（12月6日 周日–12月12日 周六）：后天（12月8日 周二）中雪，降水4毫米，降雪2.8厘米，降水概率89%；"
             "其余几天没有降水（降水概率不超过23%）。不会下雨，会下雪（后天），建议带伞。")
    verdicts = [{"topic": "rain", "holds": False, "statement": "不会下雨", "keywords": ["rain", "雨"]},
                {"topic": "snow", "holds": True, "statement": "会下雪（后天）", "keywords": ["snow", "雪", "降水"]}]
    assert told("会下雪（后天）；北京未来7天没有降水。", "北京未来一周会下雪吗？", facts, verdicts) == [
        "it says '会下雪（后天）' and also '北京未来7天没有降水': say one thing of each day",
        "it says '北京未来7天没有降水', but the facts say: 会下雪（后天）"]
    assert told("会下雪（后天），降雪2.8厘米；其余几天没有降水。", "北京未来一周会下雪吗？", facts, verdicts) == []


def test_a_bare_yes_the_words_after_it_deny_is_a_contradiction():
    """"Yes, it will not rain in Mui Ne tomorrow" answered "ok and what about Sunday" after "Will it rain …?": one
    way or the other; a "yes" to a question framed the other way ("stay dry?") may go on with a no."""
    def said(reply: str, question: str, context: str = "") -> list[str]:
        return [p for p in contradictions(reply, question, DRY, VOCABULARY, context) if "first words" in p]

    assert said("Yes, it will not rain in Mui Ne on Sunday.", "ok and what about Sunday",
                "Will it rain in Mui Ne tomorrow?")
    assert said("是的，周日不会下雨。", "那周日呢", "美奈明天会下雨吗？")
    assert not said("No, it will not rain in Mui Ne on Sunday.", "ok and what about Sunday",
                    "Will it rain in Mui Ne tomorrow?")
    assert not said("Yes, it will not rain in Mui Ne tomorrow.", "Will it stay dry in Mui Ne tomorrow?")


def test_a_no_beside_a_yes_for_part_of_the_day_is_a_contradiction():
    assert told("不会下雨，今天下午有雨。", "北京今天会下雨吗？", "北京今天：多云。不会下雨。",
                [rain(False, "不会下雨")]) == ["it says '今天下午有雨' and also '不会下雨': say one thing of each day",
                                             "it says '今天下午有雨', but the facts say: 不会下雨"]
    assert told("No rain this morning; showers this afternoon.", "Will it rain today?", "Berlin today: showers.",
                [rain(True, "rain is expected")]) == []  # two parts of the day, each its own
    assert told("不会下雨，降水概率只有15%。", "北京今天会下雨吗？", "北京今天：多云，降水概率15%。不会下雨。",
                [rain(False, "不会下雨")]) == []
    # Two results (two places): a yes for one and a no for the other is no contradiction.
    comparing = comparison_patterns(VOCABULARY.comparatives, VOCABULARY.lesser_comparatives)[0]
    assert inconsistencies("Seoul will not see rain, but Tokyo will have rain.", "Will it rain in Seoul or Tokyo?",
                           "Seoul: clear. Tokyo: showers.", [rain(False, "no rain is expected"), rain(True, "rain is expected")],
                           VOCABULARY, comparing,
                           one_result=False) == []


def test_a_verdict_word_is_held_to_the_figures_beside_it():
    assert told("No rain on Sunday, precipitation 3.8 mm.", "Will it rain on Sunday?", WEEK, WET_SUNDAY) == [
        "it says 'No rain on Sunday', but the facts say: rain is expected (Sun 6 Dec)"]
    assert told("Rain on Sunday: 3.8 mm, a 73% chance.", "Will it rain on Sunday?", WEEK, WET_SUNDAY) == []


def test_the_day_words_are_the_asked_day_and_the_facts_labels():
    assert told("It will rain tomorrow afternoon.", "Will it rain in Berlin today?", WEEK, DRY) == [
        "it says 'It will rain tomorrow afternoon', but the facts say: no rain is expected",
        "it speaks of tomorrow, but the question asks about today: answer for the day asked"]
    assert told("Tomorrow will be mainly clear, -0.1 to 7.9°C.", "Berlin today?", WEEK, []) == [
        "it speaks of tomorrow, but the question asks about today: answer for the day asked"]
    assert told("Today partly cloudy; tomorrow mainly clear.", "Berlin today?", WEEK, []) == []
    assert told("Tokyo will be clear tomorrow.", "Tokyoの明日の天気は？", WEEK, []) == []  # another language's words
    # A day is named as the facts name it: 后天 is 周五 here.
    assert told("后天（周六）有小雨。", "北京后天天气", ZH_DAYS, []) == [
        "it labels 后天 as 周六, which the facts do not: name the days as the facts name them"]
    assert told("后天（周五）有小雨，降水概率80%。", "北京周五天气", ZH_DAYS, []) == []
    # Next week's day named by its weekday alone reads as this week's ("下周五日落几点" answered "周五日落时间是
    # 15:50"; "Thursday next week" answered "on Thursday"); with next, 下周 or its date, it is next week's.
    next_weeks = ["it names the weekday alone, which reads as this week's; the question asks about next week's: name "
                  "it as the facts do, with its date"]
    assert told("周一多云。", "北京下周一天气", "北京：下周一 多云。", []) == next_weeks
    assert told("Thursday will be mainly clear.", "Bloomington on Thursday next week?", WEEK, []) == next_weeks
    for said in ("下周一多云。", "周一（12月14日）多云。"):
        assert told(said, "北京下周一天气", "北京：下周一（12月14日 周一） 多云。", []) == [], said
    assert told("Thu 17 Dec will be mainly clear.", "Bloomington on Thursday next week?", WEEK, []) == []


def forecast(days: list[dict[str, Any]], text: str, **extra: Any) -> ToolOutcome:
    return ToolOutcome("weather", "get_forecast", {"city": "Berlin"}, text=text,
                       structured_content={"units": {"temperature": "°C"}, "days": days, **extra})


def facts_of(question: str, *outcomes: ToolOutcome) -> tuple[Turn, Facts]:
    turn = Turn.start(question, [], ASSISTANT)
    return turn, gather_facts(turn, Called(outcomes=outcomes))


def test_the_values_of_a_result_about_several_places_each_say_their_place():
    """A comparison's chance of rain had been shown as "precipitation probability: 2026-12-08 (tomorrow) 4,
    2026-12-08 (tomorrow) 9", in English in a Chinese answer, and without saying which place had which."""
    today = dt.date.today()
    content = {"places": [{"location": {"name": name}, "days": [{"date": today.isoformat(),
                                                                  "precipitation_probability": chance}]}
                          for name, chance in (("首尔", 4), ("釜山", 9))]}
    content["units"] = {"precipitation_probability": "%"}
    shown = field_values(content, lambda key: key == "precipitation_probability", today, lambda key: "下雨概率")
    assert shown == "下雨概率: 首尔 4%, 釜山 9%"  # one day: the text says which
    content["places"][1]["days"][0]["date"] = (today + dt.timedelta(days=1)).isoformat()
    shown = field_values(content, lambda key: key == "precipitation_probability", today, lambda key: "下雨概率")
    assert shown == f"下雨概率: 首尔 {today.isoformat()} (today) 4%, " \
                    f"釜山 {(today + dt.timedelta(days=1)).isoformat()} (tomorrow) 9%"


def test_the_values_of_one_day_are_shown_without_its_date():
    """"摩尔曼斯克周六白天有2026-12-12 (Saturday) 0小时": the writer copied the date and the English day word it was
    shown; values of one day need neither (the text says the day), an hour keeps its time."""
    today = dt.date(2026, 12, 7)
    content = {"days": [{"date": "2026-12-08", "cloud_cover_mean": 33}],
               "hours": [{"time": "2026-12-08T22:00", "cloud_cover": 27}],
               "units": {"cloud_cover": "%", "cloud_cover_mean": "%"}}
    assert field_values(content, lambda key: key.startswith("cloud_cover"), today, lambda key: "云量") == \
        "云量: 33%; 云量: 22:00 27%"


def test_a_quantity_may_exclude_the_fields_of_another():
    """dev42's "how much rain in Tacloban over the next week" took the chances of rain the list showed for the
    amounts: a field part marked "!" is another quantity's ("precipitation|!probability")."""
    assert field_matches("price_eur", "price|!change") and not field_matches("price_change", "price|!change")
    amount = "precipitation|!probability"
    assert field_matches("precipitation_sum", amount) and field_matches("precipitation", amount)
    assert not field_matches("precipitation_probability", amount)


def test_an_asked_quantity_a_result_holds_is_shown_to_the_writer_and_missing_only_when_none_does():
    assert [(q.word, q.field) for q in asked_quantities("明天紫外线和气压怎么样？", VOCABULARY)] == [
        ("紫外线", "uv_index"), ("气压", "pressure")]
    assert [q.field for q in asked_quantities("How cloudy is it over Bergen right now?", VOCABULARY)] == ["cloud_cover"]
    # Sunscreen asks for the UV index, and is shown under that name ("sunscreen: 5.5" was copied as it stood).
    assert [(q.word, q.field) for q in asked_quantities("Do I need sunscreen in Sydney?", VOCABULARY)] == [
        ("UV index", "uv_index")]
    assert [(q.word, q.field) for q in asked_quantities("三亚明天要涂防晒吗", VOCABULARY)] == [("紫外线指数", "uv_index")]
    today = dt.date.today()
    days = [{"date": (today + dt.timedelta(days=n)).isoformat(), "temp_max": 7.6 + n, "uv_index_max": 0.4 + n,
             "birch_pollen": None} for n in range(2)]
    text = "Berlin: today 7.6°C; tomorrow 8.6°C."
    _, facts = facts_of("What's the UV index in Berlin tomorrow?", forecast(days, text))
    # The server's text leaves the UV out; the writer reads it with each day, under the question's word for it
    # ("precipitation probability: …" had ended a Chinese answer), and nothing is missing.
    (finding,) = facts.findings
    assert finding.text == f"{text}\nUV: {today.isoformat()} (today) 0.4, " \
                           f"{(today + dt.timedelta(days=1)).isoformat()} (tomorrow) 1.4"
    assert facts.missing == () and 1.4 in facts.numbers
    # A null is no value: pollen is missing, and only pollen.
    _, facts = facts_of("Berlin pollen and UV tomorrow?", forecast(days, text))
    assert facts.missing == ("pollen",)
    assert from_facts(facts, "en").startswith("Sorry, the data I have does not include pollen. Here is what it says:")
    _, facts = facts_of("Berlin tomorrow?", forecast(days, text))
    assert facts.missing == () and facts.findings[0].text == text and not from_facts(facts, "en").startswith("Sorry")
    # The clouds asked about are the cloud cover, which a text's "overcast" does not give (dev42's "will it be
    # cloudy?" was answered "Overcast", or with the cover called a chance of rain)
    cloudy = [{**day, "cloud_cover_mean": 95.0} for day in days]
    _, facts = facts_of("Will it be cloudy in Berlin tomorrow?", forecast(cloudy, "Berlin: tomorrow overcast, 8.6°C."))
    assert "95" in facts.findings[0].text


def test_a_yes_or_no_the_data_decides_is_answered_beside_a_quantity_it_lacks():
    """"will it rain there tomorrow? might clear the smog" was told only that the data lacks smog: the rain's
    verdict answers it, and the smog is said missing before it."""
    rain = ToolOutcome("weather", "get_precipitation", {"city": "Lahore", "day": 1},
                       text="Lahore, tomorrow (Mon 7 Dec): 0 mm (5% chance). No rain is expected.",
                       structured_content={"units": {"precipitation": "mm"}, "days": [{"precipitation_sum": 0.0}],
                                           "verdicts": [rain_verdict := {"topic": "rain", "holds": False,
                                                                         "statement": "no rain is expected",
                                                                         "keywords": RAIN}]})
    _, facts = facts_of("will it rain there tomorrow? might clear the smog", rain)
    assert facts.lead.lower() == rain_verdict["statement"] and facts.missing == ("smog",)
    assert not facts.hold_nothing_asked
    _, facts = facts_of("how bad is the smog there tomorrow?", rain)  # the smog alone: the limit alone
    assert facts.hold_nothing_asked


def test_a_yes_or_no_said_of_one_of_two_places_is_held_to_that_place():
    """"moving from Chattanooga, TN to Asheville, NC on Saturday. is it going to rain in either?" was answered "Yes,
    it will rain in Asheville, NC on Saturday, but not in Chattanooga, TN", the other way round: two results that
    disagree had each clause held to neither. A clause is held to the place it names, or to the last one its
    sentence named before it."""
    def precipitation(city: str, english: str, wet: bool) -> ToolOutcome:
        statement = "rain is expected" if wet else "no rain is expected"
        return ToolOutcome("weather", "get_precipitation", {"city": city, "day": "saturday"},
                           text=f"{english}, Saturday: {statement}.",
                           structured_content={"location": {"name": english, "chinese_name": None},
                                               "verdicts": [{"topic": "rain", "holds": wet, "statement": statement,
                                                             "keywords": RAIN}]})
    question = "moving from Chattanooga, TN to Asheville, NC on Saturday. is it going to rain in either?"
    _, facts = facts_of(question, precipitation("Chattanooga, TN", "Chattanooga", True),
                        precipitation("Asheville, NC", "Asheville", False))
    assert [finding.names for finding in facts.findings] == [frozenset({"chattanooga"}), frozenset({"asheville"})]
    swapped = "Yes, it will rain in Asheville, NC on Saturday, but not in Chattanooga, TN."
    assert "it says 'it will rain in Asheville', but the facts say: no rain is expected" in [
        p.detail for p in check_reply(swapped, question, "en", facts, VOCABULARY)]
    assert "consistency" in {p.rule for p in check_reply("In Asheville, rain is likely on Saturday.", question, "en",
                                                         facts, VOCABULARY)}
    right = ("Yes, in Chattanooga: rain is expected on Saturday. In Asheville, NC no rain is expected; Asheville stays "
             "dry.")
    assert "consistency" not in {p.rule for p in check_reply(right, question, "en", facts, VOCABULARY)}
    assert "consistency" not in {p.rule for p in check_reply("Rain in Chattanooga but not in Asheville.", question,
                                                             "en", facts, VOCABULARY)}


def test_saying_a_held_quantity_is_not_available_fails_the_check():
    today = dt.date.today().isoformat()
    question = "What's the UV index in Berlin today?"
    turn, facts = facts_of(question, forecast([{"date": today, "uv_index_max": 2.3}], "Berlin today: sunny."))
    problems = check_reply("Sorry, the UV index is not available.", question, "en", facts, VOCABULARY)
    assert "it says UV is not available, but the facts give it: quote it" in [p.detail for p in problems]
    # Sorry first, then the very data: still a refusal of what is there.
    assert "refusal" in {p.rule for p in check_reply("Sorry, I can't find the specific data. The UV index today is "
                                                     "2.3.", question, "en", facts, VOCABULARY)}
    assert check_reply("The UV index in Berlin today is 2.3.", question, "en", facts, VOCABULARY) == []
    # What is really missing may be said to be.
    question = "UV and pollen in Berlin today?"
    turn, facts = facts_of(question, forecast([{"date": today, "uv_index_max": 2.3}], "Berlin today: sunny."))
    assert check_reply("UV 2.3 today; sorry, I have no pollen data.", question, "en", facts, VOCABULARY) == []


def test_an_asked_chance_of_rain_is_quoted():
    """"chance of rain in Baguio tomorrow?" and "今天下午4点临高降雨概率" were answered with a yes or a no alone."""
    tomorrow = (dt.date.today() + dt.timedelta(days=1)).isoformat()
    question = "chance of rain in Baguio tomorrow?"
    _, facts = facts_of(question, forecast([{"date": tomorrow, "precipitation_probability_max": 64,
                                             "precipitation_sum": 3.2}], "Baguio, tomorrow: light rain, 3.2 mm."))
    assert [q.field for q in facts.asked] == ["precipitation_probability|probability"] and facts.missing == ()
    assert "unquoted" in {p.rule for p in check_reply("Yes, it will rain in Baguio tomorrow (3.2 mm).", question, "en",
                                                       facts, VOCABULARY)}
    assert "unquoted" not in {p.rule for p in check_reply("Yes: a 64% chance of rain in Baguio tomorrow, 3.2 mm.",
                                                           question, "en", facts, VOCABULARY)}
    assert [q.field for q in asked_quantities("今天下午4点临高降雨概率", VOCABULARY)] == ["precipitation_probability|probability"]


def test_a_chance_asked_of_a_result_that_names_it_probability_is_not_missing():
    """"any chance of snow in Vail this weekend?" got "the data does not include chance of snow": the rain tool
    names its field `probability_max`."""
    saturday = (dt.date.today() + dt.timedelta(days=1)).isoformat()
    question = "any chance of snow in Vail this weekend?"
    _, facts = facts_of(question, forecast([{"date": saturday, "probability_max": 35, "snowfall_sum": 1.2}],
                                           "Vail, Saturday: light snow, 1.2 cm (35% chance)."))
    assert facts.missing == ()


def test_a_question_asking_how_much_is_answered_with_the_figure():
    yesterday = (dt.date.today() - dt.timedelta(days=1)).isoformat()
    question = "How much rain fell in Glasgow yesterday?"
    _, facts = facts_of(question, forecast([{"date": yesterday, "precipitation_sum": 0.0}],
                                           "Glasgow, yesterday: Overcast, 0 mm. No rain fell."))
    assert "figure" in {p.rule for p in check_reply("No rain fell in Glasgow yesterday.", question, "en", facts,
                                                     VOCABULARY)}
    assert check_reply("No rain fell in Glasgow yesterday (0 mm).", question, "en", facts, VOCABULARY) == []
    # Asked whether it fell on a past day, the no is told with what the day measured, not the date alone.
    question = "Did it rain in Glasgow yesterday?"
    assert "figure" in {p.rule for p in check_reply(f"No rain fell in Glasgow yesterday ({yesterday}).", question,
                                                     "en", facts, VOCABULARY)}
    assert check_reply("No rain fell in Glasgow yesterday (0 mm).", question, "en", facts, VOCABULARY) == []
    assert check_reply("No rain is expected in Glasgow tomorrow.", "Will it rain in Glasgow tomorrow?", "en",
                       facts_of("Will it rain in Glasgow tomorrow?", forecast([], "Glasgow, tomorrow: 0 mm."))[1],
                       VOCABULARY) == []


def test_figures_written_out_in_words_are_measurements_too():
    """An own answer "18 degrees Celsius" (no tool called) is a made-up figure like "18°C"."""
    for text in ("It is 18 degrees Celsius in Moscow.", "Hace 18 grados.", "В Москве 18 градусов.", "18°C"):
        assert states_measurements(text, VOCABULARY), text
    assert not states_measurements("I can look up 3 kinds of data.", VOCABULARY)


def test_a_reply_that_gives_what_no_result_holds_as_if_it_did_fails_the_check():
    """Asked for the sea's temperature, the facts have the air's: the reply may say it lacks it, not pass the air's
    off as the sea's. Nor may a reply say of New Year's Day 2020 what the facts say of today."""
    today = dt.date.today()
    question = "What's the water temperature at Bondi Beach today?"
    _, facts = facts_of(question, forecast([{"date": today.isoformat(), "temp_max": 19.2}], "Bondi today: 19.2°C."))
    assert facts.missing == ("water temperature",)
    problems = check_reply("The water temperature at Bondi Beach today is 19.2°C.", question, "en", facts, VOCABULARY)
    assert "lacking" in {p.rule for p in problems}
    assert check_reply("Sorry, I don't have the water temperature; the air reaches 19.2°C today.", question, "en",
                       facts, VOCABULARY) == []
    question = "How cold was Berlin on New Year's Day 2020?"
    _, facts = facts_of(question, forecast([{"date": today.isoformat(), "temp_max": 0.1}],
                                           f"Berlin now ({today:%a} {today.day} {today:%b} 09:00): 0.1°C."))
    assert facts.missing == ("New Year's Day 2020",)
    assert "lacking" in {p.rule for p in check_reply("Berlin on New Year's Day 2020 was 0.1°C.", question, "en", facts,
                                                      VOCABULARY)}


def test_a_year_no_result_is_of_is_answered_with_the_limit_alone():
    """"1954年那场大洪水武汉一共下了多少雨" was called for today, and answered that 1954 had today's 32.4 mm."""
    today = dt.date.today()
    wuhan = forecast([{"date": today.isoformat(), "precipitation_sum": 32.4}],
                     f"武汉今天（{today.month}月{today.day}日）：中雨，32.4毫米。")
    for question in ("1954年那场大洪水武汉一共下了多少雨", "How much rain fell in Wuhan back in 1954?"):
        _, facts = facts_of(question, wuhan)
        assert facts.out_of_time and facts.hold_nothing_asked and numbers_in(from_facts(facts, "zh")) == [1954], question
    for question in (f"{today.year}年武汉下了多少雨", "武汉今天下了多少雨"):
        assert not facts_of(question, wuhan)[1].hold_nothing_asked, question
    assert facts_of("武汉1954年7月下了多少雨", wuhan)[1].missing == ("1954年7月",)  # a month of a year: a date


def test_results_holding_none_of_the_asked_quantities_are_answered_with_the_limit_alone():
    """Asked for the tide, the forecast's figures answer another question: the answer says what is lacking, with
    no figure, and no writer is asked for one. Asked for that and the UV, the UV is quoted and the tide named."""
    tomorrow = (dt.date.today() + dt.timedelta(days=1)).isoformat()
    byron = forecast([{"date": tomorrow, "temp_max": 31.1, "uv_index_max": 9.7}],
                     "Byron Bay, tomorrow: 23.4 to 31.1°C.")
    turn, facts = facts_of("When's low tide at Byron Bay tomorrow?", byron)
    assert facts.missing == ("tide",) and facts.hold_nothing_asked
    answer = from_facts(facts, "en")
    assert answer.startswith("Sorry, the data I have does not include tide, so I cannot answer that.")
    assert not numbers_in(answer) and "Byron" not in answer
    assert write(turn, None, Routed(), facts) == Draft("lacking")  # the writer is never asked
    assert not numbers_in(from_facts(facts_of("三亚今天海水温度多少，适合游泳吗", byron)[1], "zh"))
    # a record, or aftershocks: no tool's data, though a forecast was called (the temperature asked is the record's)
    for question in ("What was the hottest temperature ever recorded in Byron Bay?", "拜伦湾历史最高气温是多少",
                     "拜伦湾这几天有没有余震", "拜伦湾现在堵不堵", "拜伦湾明天会不会有高潮位",  # (the traffic: "二环现在堵不堵" got "没有堵")
                     "拜伦湾明天的航班会不会延误", "will my flight be delayed at Byron Bay tomorrow?",  # "不会延误"
                     "Will my flight be on time at Byron Bay?", "拜伦湾明天的航班能准时吗"):  # "not on time: no rain"
        _, facts = facts_of(question, byron)
        assert facts.hold_nothing_asked and not numbers_in(from_facts(facts, "en")), question
    _, facts = facts_of("Low tide and UV at Byron Bay tomorrow?", byron)
    assert facts.missing == ("tide",) and not facts.hold_nothing_asked
    assert from_facts(facts, "en").startswith("Sorry, the data I have does not include tide. Here is what it says:")


def test_an_asked_hour_the_facts_give_before_a_colon_is_not_missing():
    """"at 5am" asked, the facts' "… 05:00: Mainly clear": the hour is there, and nothing is said to be lacking."""
    _, facts = facts_of("How cold will it be at 5am tomorrow there?",
                        forecast([], "San Pedro, tomorrow (Sat 5 Dec) 05:00: Mainly clear, 18°C.",
                                 hours=[{"time": "2026-12-05T05:00", "temperature": 18.0}]))
    assert facts.missing == () and not from_facts(facts, "en").startswith("Sorry")


def test_a_quantity_whose_unit_alone_a_result_gives_is_missing():
    """The air quality names a unit for each pollen (`units`), and has pollen figures only in Europe: a unit is no
    value, so asked for pollen in Seoul the answer says it is lacking; a figure is quoted where there is one."""
    def air(birch: float | None) -> ToolOutcome:
        return ToolOutcome("weather", "get_air_quality", {"city": "首尔"}, text="首尔现在空气质量良，PM2.5 59.9。",
                           structured_content={"units": {"pm2_5": "μg/m³", "birch_pollen": "grains/m³"},
                                               "current": {"pm2_5": 59.9, "birch_pollen": birch}})
    _, facts = facts_of("首尔今天花粉浓度高不高", air(None))
    assert facts.missing == ("花粉",)
    assert from_facts(facts, "zh").startswith("抱歉，我查到的数据里没有花粉，所以没法回答这个问题。")
    _, facts = facts_of("首尔今天花粉浓度高不高", air(12.5))
    assert facts.missing == () and "(birch pollen): 12.5 grains/m³" in facts.findings[0].text


@pytest.mark.parametrize("question, field", [
    ("今天普洱几点天黑", "sunset"), ("When does it get dark in Oslo?", "sunset"), ("明天几点天亮", "sunrise"),
    ("What time does it get light in Oslo tomorrow?", "sunrise"), ("Will we get light rain tomorrow?", None),
    ("and what time does it set?", "sunset"), ("Any chance of northern lights in Oulu?", "kp_index"),
])
def test_when_it_gets_dark_or_light_asks_for_the_sunset_or_the_sunrise(question, field):
    assert [q.field for q in asked_quantities(question, VOCABULARY)] == ([field] if field else [])


def test_a_reply_that_leaves_out_the_asked_quantity_the_facts_hold_fails_the_check():
    """"and sunset?" after a sunrise question, answered with the sunrise again."""
    tomorrow = (dt.date.today() + dt.timedelta(days=1)).isoformat()
    question = "and sunset?"
    _, facts = facts_of(question, forecast([{"date": tomorrow, "sunrise": f"{tomorrow}T06:39",
                                             "sunset": f"{tomorrow}T20:07"}],
                                           "San Pedro, tomorrow: sunrise 06:39, sunset 20:07."))
    problems = check_reply("The sun will rise in San Pedro at 06:39 tomorrow.", question, "en", facts, VOCABULARY)
    assert "the question asks for sunset, which the facts give, and it does not say it: quote it" in [
        p.detail for p in problems]
    for reply in ("Sunset in San Pedro tomorrow is at 20:07.", "The sun will set at 20:07 tomorrow."):
        assert check_reply(reply, question, "en", facts, VOCABULARY) == [], reply
    # Named without its value is not said: "sunset is late tomorrow".
    assert "the question asks for sunset, which the facts give, and it does not say it: quote it" in [
        p.detail for p in check_reply("Sunset in San Pedro is late tomorrow.", question, "en", facts, VOCABULARY)]


@pytest.fixture(scope="module")
def gateway(tmp_path_factory, fake_llm):
    process = GatewayProcess(tmp_path_factory.mktemp("answer_checks"), {"weather": WEATHER_SERVER}, fake_llm.url)
    yield process
    process.stop()



def test_a_contradicting_draft_is_rejected_and_the_answer_tells_one_story(gateway, fake_llm):
    fake_llm.script(call("get_forecast", city="Berlin", day=0), {"content": "Berlin today."})
    (made,) = gateway.chat("ada", {"message": "Will it rain in Berlin today?"}).json()["tool_calls"]
    (verdict,) = [v for v in made["structured_content"]["verdicts"] if v["topic"] == "rain"]
    consistent = "Rain is expected in Berlin today." if verdict["holds"] else "No rain is expected in Berlin today."
    fake_llm.script(call("get_forecast", city="Berlin", day=0),
                    {"content": "No rain in Berlin today, but rain this afternoon."}, {"content": consistent})
    reply = gateway.chat("ada", {"message": "Will it rain in Berlin today?"}).json()
    assert reply["answer_source"] == "model" and reply["response"].startswith(consistent)
    retry = fake_llm.requests()[2]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "No rain in Berlin today, but rain this afternoon."}
    assert "say one thing of each day" in retry[-1]["content"]


def test_a_uv_question_is_answered_with_the_figure_the_forecast_holds(gateway, fake_llm):
    fake_llm.script(call("get_forecast", city="Berlin", day=1),
                    {"content": "Sorry, the UV index for Berlin tomorrow is not available."},
                    {"content": "placeholder"})
    first = gateway.chat("bob", {"message": "What is the UV index in Berlin tomorrow?"}).json()
    uv = first["tool_calls"][0]["structured_content"]["days"][0]["uv_index_max"]
    retry = fake_llm.requests()[2]["messages"]
    # The forecast's text has no UV; the writer is shown the field, and told the refusal cannot be used.
    assert f"\nUV: {uv:g}" in retry[-3]["content"]  # one day: the text says which
    assert "it says UV is not available, but the facts give it: quote it" in retry[-1]["content"]
    fake_llm.script(call("get_forecast", city="Berlin", day=1),
                    {"content": f"The UV index in Berlin tomorrow is {uv:g}, low."})
    reply = gateway.chat("bob", {"message": "What is the UV index in Berlin tomorrow?"}).json()
    assert reply["answer_source"] == "model" and "Sorry" not in reply["response"]
    assert reply["response"].startswith(f"The UV index in Berlin tomorrow is {uv:g}")


def test_a_day_s_humidity_is_in_the_forecast_and_is_not_called_missing(gateway, fake_llm):
    question = {"message": "How humid will it be in Lisbon tomorrow?"}
    fake_llm.script(call("get_forecast", city="Lisbon", day=1))
    first = gateway.chat("dee", question).json()
    assert "does not include humid" not in first["response"]  # "humid" is the word the question uses
    humidity = first["tool_calls"][0]["structured_content"]["days"][0]["humidity_mean"]
    answer = f"In Lisbon tomorrow the humidity will average {humidity:g}%."
    fake_llm.script(call("get_forecast", city="Lisbon", day=1), {"content": answer})
    reply = gateway.chat("dee", question).json()
    assert reply["answer_source"] == "model" and reply["response"].startswith(answer)


def test_a_question_on_what_no_tool_holds_gets_the_limit_and_no_figures(gateway, fake_llm):
    fake_llm.script(call("get_forecast", city="Berlin", day=1))
    reply = gateway.chat("cy", {"message": "When is low tide in Berlin tomorrow?"}).json()
    assert reply["answer_source"] == "composed"
    assert not any(WRITER_RULES in (message["content"] or "") for request in fake_llm.requests()
                   for message in request["messages"])  # no writer asked
    assert reply["response"].startswith("Sorry, the data I have does not include tide, so I cannot answer that.")
    assert not numbers_in(reply["response"])


def test_a_bare_follow_up_of_a_yes_no_question_is_answered_yes_or_no_first():
    """"那下周一呢" after "周末会不会下雨啊" asks the same yes or no of Monday: the answer begins with it (the composed
    one had put "不会下雨" last, after the figures). A follow-up asking a figure of its own is no yes/no."""
    history = [{"role": "user", "content": "周末雅安会不会下雨啊"}, {"role": "assistant", "content": "不会下雨。"}]
    monday = forecast([{"date": "2026-12-07", "precipitation_sum": 0.0}], "雅安下周一：局部多云，降水概率0%。",
                      verdicts=[rain(False, "不会下雨")])
    turn = Turn.start("那下周一呢", history, ASSISTANT)
    facts = gather_facts(turn, Called(outcomes=(monday,)))
    assert facts.lead == "不会下雨"
    assert from_facts(facts, "zh").startswith("不会下雨")
    late = check_reply("雅安下周一局部多云，降水概率0%，不会下雨。", turn.question, "zh", facts, VOCABULARY,
                       turn.earlier_question)
    assert "verdict" in {p.rule for p in late}
    assert check_reply("不会下雨，雅安下周一局部多云，降水概率0%。", turn.question, "zh", facts, VOCABULARY,
                       turn.earlier_question) == []
    figure = Turn.start("那明天最高多少度呢", history, ASSISTANT)
    assert gather_facts(figure, Called(outcomes=(monday,))).lead == ""
    english = [{"role": "user", "content": "Will it rain in Galway tomorrow?"}, {"role": "assistant", "content": "No."}]
    assert gather_facts(Turn.start("What about Saturday in Cork?", english, ASSISTANT),
                        Called(outcomes=(monday,))).lead == "不会下雨"
    assert gather_facts(Turn.start("What about tomorrow's high?", english, ASSISTANT),
                        Called(outcomes=(monday,))).lead == ""


def test_a_question_for_the_whole_data_with_a_remark_on_what_none_holds_gets_the_data():
    """"特罗姆瑟今晚天气怎么样 想拍极光" was answered only that the data has no aurora: it asks the weather too. "and
    the tide times?" after "which is less windy?" got the wind verdict of the question before, with its figures."""
    tonight = forecast([{"date": "2026-12-06", "temp_min": -6.4, "cloud_cover_mean": 23.0}],
                       "特罗姆瑟今晚：大致晴朗，-6.4°C，云量23%。")
    facts = gather_facts(Turn.start("特罗姆瑟今晚天气怎么样 想拍极光", [], ASSISTANT), Called(outcomes=(tonight,)))
    assert facts.missing == ("极光",) and not facts.hold_nothing_asked
    composed = from_facts(facts, "zh")
    assert composed.startswith("抱歉，我查到的数据里没有极光") and "-6.4°C" in composed
    assert gather_facts(Turn.start("特罗姆瑟今晚极光指数多少", [], ASSISTANT),
                        Called(outcomes=(tonight,))).hold_nothing_asked
    places = [["Ericeira"], ["Nazaré"]]
    calmer = {"topic": "calmer", "winner": "Nazaré", "places": places, "statement": "Nazaré is less windy",
              "keywords": ["calmer", "less wind", "less windy"]}
    compared = ToolOutcome("weather", "compare_weather", {"cities": ["Ericeira", "Nazaré"]},
                           text="Tomorrow: Ericeira wind up to 22.7 km/h; Nazaré wind up to 21.4 km/h.",
                           structured_content={"places": [], "verdicts": [calmer]})
    history = [{"role": "user", "content": "which is less windy tomorrow, Ericeira or Nazaré?"},
               {"role": "assistant", "content": "Nazaré is less windy."}]
    tides = gather_facts(Turn.start("and the tide times?", history, ASSISTANT), Called(outcomes=(compared,)))
    assert tides.lead == "" and tides.hold_nothing_asked
    assert "22.7" not in from_facts(tides, "en")
    assert gather_facts(Turn.start("and on Saturday?", history, ASSISTANT),
                        Called(outcomes=(compared,))).lead == "Nazaré is less windy"


def test_what_it_will_be_like_asks_for_the_data_as_a_whole():
    """"What'll it be like in Reykjavik at 10pm tonight? northern lights tour" was answered only that the data has
    no northern lights: it asks what the weather will be like too. Asked alone, the sight is the limit alone."""
    tonight = forecast([{"date": "2026-12-07", "temp_min": -3.1, "cloud_cover_mean": 40.0}],
                       "Reykjavik tonight 22:00: partly cloudy, -3.1°C, cloud cover 40%.")
    facts = gather_facts(Turn.start("What'll it be like in Reykjavik at 10pm tonight? northern lights tour", [],
                                    ASSISTANT), Called(outcomes=(tonight,)))
    assert facts.missing == ("northern lights",) and not facts.hold_nothing_asked
    assert gather_facts(Turn.start("Reykjavik tonight at 10pm: northern lights?", [], ASSISTANT),
                        Called(outcomes=(tonight,))).hold_nothing_asked


def test_a_bare_follow_up_of_a_terse_yes_no_question_is_answered_yes_or_no_first():
    """"and in Dubrovnik?" after "... — any rain in Split?" asks the same yes or no: "Dubrovnik will have overcast
    skies with a 4% chance of rain. No rain is expected" reads as a yes until its second sentence."""
    history = [{"role": "user", "content": "Driving from Split to Dubrovnik tomorrow — any rain in Split?"},
               {"role": "assistant", "content": "No rain is expected in Split tomorrow."}]
    dubrovnik = forecast([{"date": "2026-12-07", "precipitation_sum": 0.0}],
                         "Dubrovnik tomorrow: overcast, 4% chance of rain.", verdicts=[rain(False, "no rain is expected")])
    turn = Turn.start("and in Dubrovnik?", history, ASSISTANT)
    facts = gather_facts(turn, Called(outcomes=(dubrovnik,)))
    assert facts.lead == "No rain is expected"
    late = check_reply("Dubrovnik will have overcast skies with a 4% chance of rain. No rain is expected.",
                       turn.question, "en", facts, VOCABULARY, turn.earlier_question)
    assert "verdict" in {p.rule for p in late}
    assert check_reply("No rain is expected: Dubrovnik will have overcast skies tomorrow, a 4% chance of rain.",
                       turn.question, "en", facts, VOCABULARY, turn.earlier_question) == []


def test_a_question_of_a_verdicts_degree_is_answered_with_the_verdict():
    """"How hot will it get?" answered "13 to 18.6°C" leaves the reader to judge: the answer says it is not hot."""
    hot = {"topic": "hot", "holds": False, "statement": "it is not hot", "keywords": ["hot", "warm", "热"]}
    question = "Merida, Mexico this Saturday: how hot will it get?"
    _, facts = facts_of(question, forecast([{"date": "2026-12-05", "temp_max": 18.6}],
                                           "Mérida, Saturday: 13 to 18.6°C.", verdicts=[hot]))
    assert facts.lead == "It is not hot"
    problems = check_reply("Mérida will be 13 to 18.6°C on Saturday.", question, "en", facts, VOCABULARY)
    assert "verdict" in {p.rule for p in problems}
    assert check_reply("Mérida will be 13 to 18.6°C on Saturday: it is not hot.", question, "en", facts,
                       VOCABULARY) == []
    assert facts_of("明天有多热", forecast([], "明天：13~18.6°C。", verdicts=[hot]))[1].lead == "it is not hot"
    # said the other way round: "迪拜明天会热成啥样" answered "会热成21.3°C"
    question = "迪拜明天会热成啥样"
    _, facts = facts_of(question, forecast([], "迪拜明天：15.2~21.3°C。", verdicts=[{**hot, "statement": "不算热"}]))
    assert "verdict" in {p.rule for p in check_reply("迪拜明天会热成21.3°C。", question, "zh", facts, VOCABULARY)}
    assert check_reply("迪拜明天不算热，最高21.3°C。", question, "zh", facts, VOCABULARY) == []


def test_a_question_of_how_much_is_answered_with_a_figure():
    """"重庆明天雨大不大" was answered "不会下雨，不会下雪，风不大。": 大不大 asks how much, as 多大 does."""
    question = "重庆明天雨大不大"
    _, facts = facts_of(question, forecast([], "重庆明天：降水0毫米，降水概率8%。", verdicts=[rain(False, "不会下雨")]))
    assert "figure" in {p.rule for p in check_reply("不会下雨，不会下雪，风不大。", question, "zh", facts, VOCABULARY)}
    assert check_reply("不会下雨，明天降水0毫米，降水概率8%。", question, "zh", facts, VOCABULARY) == []


def test_a_question_of_a_clock_time_is_answered_with_a_figure():
    """"后天下午3点南平会下雨吗" answered "不会下雨" alone gives nothing of 15:00: it quotes what the hour measures."""
    question = "后天下午3点南平会下雨吗"
    _, facts = facts_of(question, forecast([], "南平，15:00：降水0毫米，降水概率5%。", verdicts=[rain(False, "不会下雨")]))
    assert "figure" in {p.rule for p in check_reply("不会下雨，不用带伞。", question, "zh", facts, VOCABULARY)}
    assert check_reply("不会下雨，15:00降水概率5%。", question, "zh", facts, VOCABULARY) == []
    # The hour itself is no figure of it: "不会下雨，下午3点也不会" quotes nothing the hour measures.
    assert "figure" in {p.rule for p in check_reply("不会下雨，下午3点也不会。", question, "zh", facts, VOCABULARY)}


def test_a_yes_no_of_a_clock_time_quotes_the_figure_of_the_topic_asked():
    """"后天早上8点深圳会下雨吗" was answered "不会下雨，不会下雪，不用带伞，风不大，紫外线指数0.2": a figure of the hour, but
    not the one the yes or no rests on."""
    question = "后天早上8点深圳会下雨吗"
    _, facts = facts_of(question, forecast([], "深圳，08:00：14.4°C，降水概率21%，无降水，紫外线指数0.2。",
                                           verdicts=[rain(False, "不会下雨")]))
    assert "figure" in {p.rule for p in check_reply("不会下雨，不用带伞，紫外线指数0.2。", question, "zh", facts,
                                                    VOCABULARY)}
    assert check_reply("不会下雨，早上8点降水概率21%。", question, "zh", facts, VOCABULARY) == []


def test_ok_in_capitals_is_no_term_the_facts_lack():
    """"OK, what about this Friday?" was answered "Sorry, the data I have does not include OK."."""
    _, facts = facts_of("OK, what about this Friday?", forecast([], "Antalya, Friday: 2.4 to 12.6°C."))
    assert facts.missing == ()
    _, facts = facts_of("Should we move the BBQ indoors? Nashville, this Saturday",
                        forecast([], "Nashville, Saturday: 2.4 to 12.6°C."))
    assert facts.missing == ()
    # Terms still are: what no result holds is said missing, OK beside them or not.
    assert facts_of("PM2.5 and AQI in Delhi today?", forecast([], "Delhi today: 20°C."))[1].missing == ("AQI", "PM2.5")
    assert facts_of("Is the UV OK today?", forecast([], "Delhi today: 20°C."))[1].missing == ("UV",)


def test_a_term_a_call_was_made_with_is_what_its_result_is_about():
    """"weather in KL tomorrow" was answered "I do not have KL's weather information, but the facts say KL will be
    mainly clear…": the call was made for "KL", whose result names Kuala Lumpur."""
    kl = replace(forecast([], "Kuala Lumpur, tomorrow: 27.1 to 35.8°C."), arguments={"city": "KL", "day": 1})
    question = "weather in KL tomorrow"
    _, facts = facts_of(question, kl)
    assert facts.missing == ()
    assert "terms" not in {p.rule for p in check_reply("KL tomorrow: 27.1 to 35.8°C.", question, "en", facts,
                                                       VOCABULARY)}
    # a term no call was made with is still missing
    assert facts_of("AQI in KL tomorrow?", kl)[1].missing == ("AQI",)


@pytest.mark.parametrize("question, fields", [
    ("Santiago de Compostela next Wednesday, will I need a jacket?", ["temperature|temp"]),
    ("今天下午余姚热不热", ["temperature|temp"]), ("How warm will Lyon get?", ["temperature|temp"]),
    # a word inside another quantity's longer one is that one's
    ("What's the water temperature in Nice?", ["water_temperature"]), ("海水温度多少", ["water_temperature"]),
    ("Is it raining in Lyon?", []),
])
def test_a_question_asks_the_temperature_by_its_words_and_not_inside_another_quantitys(question, fields):
    assert [q.field for q in asked_quantities(question, VOCABULARY)] == fields


def test_a_forecast_day_holds_the_temperature_by_its_high_and_low_and_a_moment_by_its_reading():
    (quantity,) = asked_quantities("need a coat?", VOCABULARY)
    assert holds({"days": [{"temp_min": 1.0, "temp_max": 6.5}]}, quantity)
    assert holds({"temperature": 3.0}, quantity)
    assert not holds({"days": [{"precipitation_sum": 0.0, "rain_sum": 0.0}]}, quantity)


def test_a_keyword_inside_another_verdicts_longer_one_asks_that_verdict():
    """A raincoat asks the umbrella's verdict, not the rain's: on a day of snow they differ."""
    verdicts = [{"topic": "rain", "holds": False, "keywords": ["rain", "雨"]},
                {"topic": "snow", "holds": True, "keywords": ["snow", "雪"]},
                {"topic": "umbrella", "holds": True, "keywords": ["umbrella", "伞", "raincoat", "雨衣"]}]
    assert [v["topic"] for v in verdicts_about("Should I pack a raincoat for Monday?", verdicts)] == ["umbrella"]
    assert [v["topic"] for v in verdicts_about("要带雨衣吗", verdicts)] == ["umbrella"]
    assert [v["topic"] for v in verdicts_about("下雨要带伞吗", verdicts)] == ["rain", "umbrella"]


def test_a_keyword_inside_a_compared_places_name_asks_nothing():
    """"Which has the stronger UV tomorrow, Windhoek or Cape Town?" was answered "Cape Town is windier": the wind
    of Windhoek."""
    places = [["Windhoek", "温得和克"], ["Cape Town", "开普敦"]]
    verdicts = [{"topic": "windier", "winner": "Cape Town", "places": places, "keywords": ["wind", "风"]},
                {"topic": "uv", "winner": "Windhoek", "places": places, "keywords": ["uv", "紫外线"]}]
    question = "My kids burn easily. Which has the stronger UV tomorrow, Windhoek or Cape Town?"
    assert [v["topic"] for v in verdicts_about(question, verdicts)] == ["uv"]
    assert [v["topic"] for v in verdicts_about("Windhoek or Cape Town: where is it windier?", verdicts)] == [
        "windier"]


@pytest.mark.parametrize("question, asked", [
    ("chance of rain in Taif over the next 3 days?", True), ("明天下雨的概率大吗", True), ("降水概率多少", True),
    ("odds of rain tomorrow", True), ("how rainy is it", True), ("Will it rain?", False), ("明天天气", False),
])
def test_the_chance_of_a_verdicts_topic_is_asked_as_its_degree(question, asked):
    """Answered with the verdict first ("no rain is expected"), then its figures: "the chance of rain over the
    next 3 days" was answered "8% for tomorrow", which reads as rain."""
    verdicts = [{"topic": "rain", "holds": False, "keywords": ["rain", "雨", "降水"]}]
    assert bool(degree_asked(question, verdicts)) is asked


@pytest.mark.parametrize("question, asked", [
    ("Rain tonight in Calabar?", True), ("snow in Laramie tonight?", True), ("any rain tomorrow?", True),
    ("Rainfall totals for Lima?", False), ("rain tonight in Calabar", False),
    # after a lead of its own ("Yes, there will be snow" beside a verdict of none)
    ("and the day after that - any snow then?", True), ("Thanks. Rain in Calabar tonight?", True),
    # ending with the word, with no question word ("Sydney tomorrow, hot?" was answered "Yes, … hot" at 23.2 °C)
    ("Weather in Calabar, rain?", True), ("Laramie tonight - really snowy?", True),
    ("which day will it rain?", False), ("Calabar tomorrow, how much rain?", False),
    # in Chinese, the word with no question word ("明天呢，也这么热？" was answered "明天也会这么热" at 19.9 °C)
    ("明天会下雨？", True), ("明天呢，也这么大雪？", True), ("雨多大？", False), ("明天天气怎么样？", False),
    # with a remark after it (dev52's "any snow in Karakol over the next 3 days? going ski touring" was answered
    # "Yes, there will be snow", the data having none)
    ("any snow in Karakol over the next 3 days? going ski touring", True), ("雨多大？出门跑步", False),
])
def test_a_terse_question_that_opens_or_ends_with_a_verdicts_word_asks_it_yes_or_no(question, asked):
    """"snow in Laramie tonight?" was answered without the verdict first, and the writer listed the others."""
    verdicts = [{"topic": "rain", "holds": False, "statement": "no rain is expected", "keywords": ["rain", "雨"]},
                {"topic": "snow", "holds": False, "statement": "no snow is expected", "keywords": ["snow", "雪"]}]
    assert bool(tersely_asked(question, verdicts)) is asked
    if asked:
        _, facts = facts_of(question, forecast([], "Tonight: no precipitation.", verdicts=verdicts))
        assert facts.lead.lower().startswith("no ")  # (capitalised in English)


def test_a_comparison_answered_with_its_winner_alone_quotes_the_figures_that_make_it():
    """"which one's hotter?" was answered "Berbera is warmer than Djibouti, which gets more rain and is windier than
    Djibouti, ...": no figure the reader can check it by."""
    warmer = {"topic": "warmer", "winner": "Berbera", "statement": "Berbera is warmer than Djibouti",
              "keywords": ["warmer", "hotter", "热"]}
    compared = ToolOutcome("weather", "compare_weather", {"cities": ["Djibouti", "Berbera"]},
                           text="Today: Djibouti 21.6 to 29.8°C; Berbera 24.1 to 31.2°C. Berbera is warmer than "
                                "Djibouti.", structured_content={"places": [], "verdicts": [warmer]})
    question = "which one's hotter?"
    _, facts = facts_of(question, compared)
    assert "figure" in {p.rule for p in check_reply("Berbera is warmer than Djibouti.", question, "en", facts,
                                                    VOCABULARY)}
    assert check_reply("Berbera is warmer than Djibouti: up to 31.2°C against 29.8°C.", question, "en", facts,
                       VOCABULARY) == []
    for dated in ("Berbera is warmer than Djibouti on Saturday 12 December.",  # a date, a count of days: no figure
                  "Berbera is warmer than Djibouti over the next 3 days.", "未来3天Berbera更热。"):
        assert "figure" in {p.rule for p in check_reply(dated, question, "en", facts, VOCABULARY)}, dated


def test_a_tie_answered_with_no_figure_quotes_the_figures_that_make_it():
    """"未来三天上虞和临安哪里雨多" was answered "临安雨多，上虞雨少，两地降水一样多。": a tie, and no figure."""
    wetter = {"topic": "wetter", "winner": None, "places": ["上虞", "临安"], "statement": "两地降水一样多",
              "keywords": ["雨多", "降水", "wetter"]}
    compared = ToolOutcome("weather", "compare_weather", {"cities": ["上虞", "临安"]},
                           text="今天–后天：上虞 降水合计0毫米；临安 降水合计0毫米。两地降水一样多。",
                           structured_content={"places": [], "verdicts": [wetter]})
    question = "未来三天上虞和临安哪里雨多"
    _, facts = facts_of(question, compared)
    assert "figure" in {p.rule for p in check_reply("临安雨多，上虞雨少，两地降水一样多。", question, "zh", facts,
                                                    VOCABULARY)}
    assert "figure" not in {p.rule for p in check_reply("两地降水一样多，都是0毫米。", question, "zh", facts,
                                                        VOCABULARY)}


def test_a_comparison_asked_the_other_way_round_is_answered_with_its_own_winner():
    """"less wind tomorrow, Tarifa or Biarritz?" was answered "Biarritz is windier than Tarifa": the question asks
    the calmer place, and the compare result names it (its words, "less wind", hold the windier verdict's)."""
    places = [["Tarifa"], ["Biarritz"]]
    windier = {"topic": "windier", "winner": "Biarritz", "places": places, "statement": "Biarritz is windier",
               "keywords": ["wind", "gust", "风"]}
    calmer = {"topic": "calmer", "winner": "Tarifa", "places": places, "statement": "Tarifa is less windy",
              "keywords": ["calmer", "less wind", "风小"]}
    compared = ToolOutcome("weather", "compare_weather", {"cities": ["Tarifa", "Biarritz"]},
                           text="Tomorrow: Tarifa 7.8 to 15.7°C, wind up to 16.5 km/h; Biarritz 6.1 to 13.2°C, wind "
                                "up to 16.8 km/h. Biarritz is windier.",
                           structured_content={"places": [], "verdicts": [windier, calmer]})
    question = "less wind tomorrow, Tarifa or Biarritz?"
    assert verdicts_about(question, [windier, calmer]) == [calmer]
    assert verdicts_about("哪边风小", [windier, calmer]) == [calmer]
    _, facts = facts_of(question, compared)
    assert facts.lead == "Tarifa is less windy"
    assert check_reply("Biarritz is windier than Tarifa, 16.8 against 16.5 km/h.", question, "en", facts, VOCABULARY)
    # said either way round, the right place passes
    assert check_reply("Tarifa is less windy: 16.5 km/h against 16.8 km/h in Biarritz.", question, "en", facts,
                       VOCABULARY) == []
    assert check_reply("Tarifa has less wind than Biarritz, 16.5 against 16.8 km/h.", question, "en", facts,
                       VOCABULARY) == []


def test_a_place_said_to_have_the_most_of_a_verdicts_topic_must_be_its_winner():
    """Of three places or more the winner is said with a superlative ("Bergen is the warmest", "广州最暖和"): a
    reply's "Tromsø is the warmest" beside the data's Bergen was read as no comparison at all."""
    places = [["Oslo", "奥斯陆"], ["Bergen", "卑尔根"], ["Tromsø", "特罗姆瑟"]]
    verdicts = [{"topic": "warmer", "winner": "Bergen", "places": places, "statement": "Bergen is the warmest",
                 "keywords": ["warm", "暖"]},
                {"topic": "wetter", "winner": "Oslo", "places": places, "statement": "Oslo gets the most rain",
                 "keywords": ["rain", "雨"]},
                {"topic": "drier", "winner": "Tromsø", "places": places, "statement": "Tromsø gets the least rain",
                 "keywords": ["drier", "driest", "less rain", "least rain", "雨最少"]}]
    question = "Oslo, Bergen or Tromsø: which gets the most rain tomorrow?"
    assert contradictions("Oslo gets the most rain, and Tromsø is the warmest.", question, verdicts, VOCABULARY)
    assert contradictions("奥斯陆降水最多，特罗姆瑟最暖和。", question, verdicts, VOCABULARY)
    assert contradictions("Oslo gets the most rain; Bergen is the driest.", question, verdicts, VOCABULARY)
    for right in ("Oslo gets the most rain; Bergen is the warmest.", "奥斯陆降水最多，卑尔根最暖和。"):
        assert contradictions(right, question, verdicts, VOCABULARY) == [], right


def test_one_place_said_to_have_more_or_less_of_a_verdicts_topic_must_be_its_winner_or_loser():
    """"今晚哈尔滨和长春哪个更冻" was answered "长春更冻，哈尔滨更暖和" where the facts say 哈尔滨更冷: 冻 is a word of
    the colder verdict, and one place said to be warmer in a clause of its own is said to win the warmer one."""
    places = [["哈尔滨", "Harbin"], ["长春", "Changchun"]]
    verdicts = [{"topic": "warmer", "winner": "长春", "places": places, "statement": "长春更暖和",
                 "keywords": ["warm", "暖"]},
                {"topic": "colder", "winner": "哈尔滨", "places": places, "statement": "哈尔滨更冷",
                 "keywords": ["cold", "冷", "冻"]},
                {"topic": "windier", "winner": "哈尔滨", "places": places, "statement": "哈尔滨风更大",
                 "keywords": ["wind", "风"]}]
    question = "今晚哈尔滨和长春哪个更冻"
    assert contradictions("长春更冻，哈尔滨更暖和。", question, verdicts, VOCABULARY)
    assert contradictions("哈尔滨更冷，长春风更大。", question, verdicts, VOCABULARY)
    assert contradictions("哈尔滨风更小。", question, verdicts, VOCABULARY)  # less of it: the loser
    for right in ("哈尔滨更冷，长春更暖和，哈尔滨风更大，长春风更小。", "Harbin is colder; Changchun has less wind.",
                  "哈尔滨更冻。"):
        assert contradictions(right, question, verdicts, VOCABULARY) == [], right


def test_a_polar_night_that_says_there_is_no_sunrise_answers_when_the_sun_rises():
    """"When does the sun rise in Narvik tomorrow?" in December: the day has no sunrise (null), and the server's
    text says so by name; the answer says that, not that the data lacks the sunrise."""
    tomorrow = (dt.date.today() + dt.timedelta(days=1)).isoformat()
    narvik = forecast([{"date": tomorrow, "day": 1, "temp_max": -3.0, "sunrise": None, "sunset": None}],
                      "Narvik, tomorrow: Overcast, -8 to -3°C, polar night (no sunrise or sunset: the sun does not "
                      "rise).")
    for question in ("When does the sun rise in Narvik tomorrow?", "sunset time in Narvik tomorrow?"):
        _, facts = facts_of(question, narvik)
        assert facts.missing == () and not from_facts(facts, "en").startswith("Sorry")


def test_a_figure_in_units_the_facts_do_not_use_is_rejected():
    """"Tomorrow's high in Pittsburgh will be 30.7°F (19.8°C)": 19.8 was the low, in °F."""
    tomorrow = (dt.date.today() + dt.timedelta(days=1)).isoformat()
    question = "tomorrow's high in Pittsburgh in F"
    _, facts = facts_of(question, forecast([{"date": tomorrow, "temp_min": 19.8, "temp_max": 30.7}],
                                           "Pittsburgh, tomorrow: 19.8 to 30.7°F."))
    rules = {p.rule for p in check_reply("Tomorrow's high in Pittsburgh will be 30.7°F (19.8°C).", question, "en",
                                         facts, VOCABULARY)}
    assert "units" in rules
    assert "units" not in {p.rule for p in check_reply("Tomorrow's high in Pittsburgh will be 30.7°F.", question,
                                                       "en", facts, VOCABULARY)}


def test_verdicts_with_none_of_the_figures_behind_them_are_no_answer():
    """"Astana rn - cold out?" answered "It is cold, it is not raining now, it is not windy": verdicts the reader
    cannot check. A figure beside them answers; a yes or no asked for may stand on its verdict, and a chart shows
    its figures."""
    cold = {"topic": "cold", "holds": True, "statement": "it is cold", "keywords": ["cold", "chilly", "冷"]}
    now = ToolOutcome("weather", "get_current_weather", {"city": "Astana"}, text="Astana now: -1°C, clear sky.",
                      structured_content={"temperature": -1.0, "verdicts": [cold]})
    question = "Astana rn - cold out?"
    _, facts = facts_of(question, now)
    bare = check_reply("It is cold, it is not raining now, it is not windy.", question, "en", facts, VOCABULARY)
    assert "figure" in {p.rule for p in bare}
    assert "figure" not in {p.rule for p in check_reply("It is cold: -1°C in Astana right now.", question, "en",
                                                        facts, VOCABULARY)}
    asked = "Is it cold in Astana right now?"
    _, facts = facts_of(asked, now)
    assert "figure" not in {p.rule for p in check_reply("Yes, it is cold.", asked, "en", facts, VOCABULARY)}
    # ... but not a bare follow-up of one, which asks of a new place or time (dev50's "卡塔赫纳现在呢" was answered
    # with a verdict alone)
    _, facts = facts_of("and right now?", now)
    follow_up = {p.rule for p in check_reply("Yes, it is cold.", "and right now?", "en", facts, VOCABULARY,
                                             context=asked)}
    assert "figure" in follow_up
    # ... but not a list of the verdicts, which a model drifting along the facts writes (dev43's "It is cold, Busan
    # is going to be cold next Saturday, packing for a friend's wedding there, it is not windy, it is not raining")
    windy = {"topic": "windy", "holds": False, "statement": "it is not windy", "keywords": ["wind", "windy"]}
    rain = {"topic": "rain", "holds": False, "statement": "no rain is expected", "keywords": ["rain", "raining"]}
    three = ToolOutcome("weather", "get_current_weather", {"city": "Astana"}, text="Astana now: -1°C, clear sky.",
                        structured_content={"temperature": -1.0, "verdicts": [cold, windy, rain]})
    _, facts = facts_of(asked, three)
    listed = "It is cold, Astana is cold right now, it is not windy, it is not raining."
    assert "figure" in {p.rule for p in check_reply(listed, asked, "en", facts, VOCABULARY)}
    assert "figure" not in {p.rule for p in check_reply("Yes, it is cold.", asked, "en", facts, VOCABULARY)}
    for described in ("what's it like outside in Astana rn, is it chilly?", "阿斯塔纳现在怎么样，冷不冷？"):
        # asked what it is like as well: the yes or no alone leaves that unanswered
        _, facts = facts_of(described, now)
        reply = "It is cold outside in Astana." if described.isascii() else "很冷。"
        assert "figure" in {p.rule for p in check_reply(reply, described, "en" if described.isascii() else "zh",
                                                        facts, VOCABULARY)}, described
    chart = ToolOutcome("weather", "get_weather_chart", {"city": "Astana"}, text="Astana: -1 to 3°C.",
                        structured_content={"verdicts": [cold]}, images=[ToolImage("image/png", b"")])
    _, facts = facts_of("Chart of Astana this week, cold?", chart)
    assert "figure" not in {p.rule for p in check_reply("Here is the chart: cold all week.",
                                                        "Chart of Astana this week, cold?", "en", facts, VOCABULARY)}


def test_what_a_place_is_doing_asks_for_its_data_as_a_whole():
    """dev42's "ok then, what's Hobart doing right now" was answered "I don't have real-time access"."""
    assert VOCABULARY.asks_overview("ok then, what's Hobart doing right now")
    assert VOCABULARY.asks_overview("what's it doing in Leeds tomorrow?")
    assert not VOCABULARY.asks_overview("what are you doing?")


def test_a_figure_called_a_chance_must_be_one_of_the_facts_chances():
    """dev42's "will it be cloudy at noon?" was answered "with a 87% chance of precipitation": 87% was the cloud
    cover, and the chance was 40%."""
    facts = "Kathmandu, Wed 9 Dec 12:00: Overcast, 12°C, 40% chance of precipitation. cloud cover: 87%"
    assert unfounded_chances("Yes, it will be cloudy, with a 87% chance of precipitation.", facts) == ["87%"]
    assert unfounded_chances("Yes: cloud cover 87%, and a 40% chance of precipitation.", facts) == []
    assert unfounded_chances("降水概率30%。", "明天 阴，降水概率27%。") == ["30%"]
    assert unfounded_chances("87% of it, a 40% chance.", "cloud cover: 87%") == []  # none to compare with


def test_a_message_of_no_language_gets_the_conversations_language():
    """dev43's "thx", after three questions in English and one in Chinese (to forward to a mother), was answered in
    Chinese: the conversation's language is the one most of its messages are in, the latest on a tie."""
    def said(*questions: str) -> list[dict[str, str]]:
        return [{"role": role, "content": text} for question in questions
                for role, text in (("user", question), ("assistant", "…"))]

    english = said("Perth or Adelaide, hotter tomorrow?", "and the low?", "ok and UV?", "能用中文再说一遍吗？")
    assert Turn.start("thx", english, ASSISTANT).language == "en"
    assert Turn.start("thx", said("明天北京冷吗", "那后天呢"), ASSISTANT).language == "zh"
    assert Turn.start("ok", said("Is Oslo cold?", "那上海呢"), ASSISTANT).language == "zh"  # a tie: the latest


def test_a_bound_of_the_question_said_as_a_figure_is_made_up():
    """dev45's "Córdoba明天会不会上40度" was answered "明天最高气温40度", the high being 25.9: the question's bound is
    no figure of the facts; said as a bound ("不会上40度", "not above 40") it stands."""
    facts = "Córdoba, tomorrow: 16.7 to 25.9°C, 3% chance of precipitation."
    assert bounds_given_as_figures("会下雨，明天最高气温40度。", "Córdoba明天会不会上40度", facts) == ["40"]
    assert bounds_given_as_figures("The high is 40°C.", "will it hit 40 tomorrow?", facts) == ["40"]
    for reply, question in (("不会上40度，明天16.7~25.9°C。", "Córdoba明天会不会上40度"),
                            ("No, it will not go above 40°C: 16.7 to 25.9°C.", "will it go above 40 tomorrow?"),
                            ("明天最高16.7°C，达不到40度。", "明天会到40度吗"), ("It will reach 25.9°C.", "25.9 tomorrow?"),
                            ("echo: ticket user00-m00024", "ticket user00-m00024")):
        assert bounds_given_as_figures(reply, question, facts) == [], reply


def test_a_figure_of_one_of_two_days_said_of_the_other_is_misattributed():
    """dev51's two-day answers gave today's low to yesterday and passed: the figure stood in the span's summary
    ("Over these 2 days: -3.2 to 5.8°C"), said of no day, and in the extremes beside the other day's ("today (low
    -3.2°C, yesterday -0.3°C)"), read as one label of one day. Each stays its own day's; said of both days
    together ("over both days", "这两天") it may be either's."""
    facts = ("Denver, yesterday to today: yesterday Moderate rain, -0.3 to 5.2°C; today Mainly clear, -3.2 to 5.8°C. "
             "Over these 2 days: -3.2 to 5.8°C. Of these days: highest high today (5.8°C, yesterday 5.2°C), lowest "
             "low today (low -3.2°C, yesterday -0.3°C).")
    question = "was it colder yesterday than today in denver"
    assert misattributed("Yesterday the low was -3.2°C.", facts, question) == ["-3.2"]
    assert misattributed("昨天最低-3.2°C。", facts, question) == ["-3.2"]
    assert misattributed("Today the low was -3.2°C and yesterday -0.3°C.", facts, question) == []
    assert misattributed("Yesterday: -0.3 to 5.2°C. Over both days it ranged -3.2 to 5.8°C.", facts, question) == []
    assert misattributed("这两天-3.2~5.8°C。", facts, question) == []
