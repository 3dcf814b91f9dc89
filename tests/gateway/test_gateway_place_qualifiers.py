"""A place's qualifier the question writes beside it ("Moscow, Idaho", "浙江丽水") and the router dropped: the call
gets the place as the user wrote it, and the router's own value when the tool does not know the longer form. The
text rule first, then the gateway process over HTTP with the real weather server (simulated data) and the
scripted LLM."""

from __future__ import annotations

import pytest

from mcp_chat_app.chat.assistant import load_assistant
from mcp_chat_app.chat.route_arguments.place_names import (
    chinese_name_said,
    cut_before_a_word,
    qualified,
    whole_written,
    with_qualifiers,
    without_leading_words,
    without_question_words,
)
from mcp_chat_app.config import CONFIG_DIR

from tests.support.gateway_processes import weather_call as call

VOCABULARY = load_assistant(CONFIG_DIR / "assistant.json").vocabulary
CITY = {"description": "City name in any language, e.g. 'Beijing', '北京', 'Paris, FR'", "type": "string"}


@pytest.mark.parametrize(("value", "question", "written"), [
    ("Córdoba", "Córdoba, Spain this Saturday: how hot will it be?", "Córdoba, Spain"),
    ("Keswick", "can the kids play outside this afternoon in Keswick (Lake District) or is it going to be grim",
     "Keswick (Lake District)"),  # Keswick, Ontario had been called
    ("Moscow", "Moscow, Idaho - any snow tomorrow?", "Moscow, Idaho"),
    ("Kingston", "Kingston Jamaica weather tomorrow", "Kingston Jamaica"),
    ("Paris", "Paris, TX Saturday?", "Paris, TX"),
    ("Kochi", "Kochi, Kerala, India tomorrow", "Kochi, Kerala, India"),
    ("springfield", "is springfield, IL cold?", "springfield, IL"),
    ("Córdoba", "Warmest: Montevideo, Asunción or Córdoba, Argentina?", "Córdoba, Argentina"),
    ("丽水", "下周三浙江丽水下不下雨", "浙江丽水"),
    ("丽水", "浙江的丽水明天热吗", "浙江的丽水"),
    ("纽卡斯尔", "澳大利亚的纽卡斯尔明天热吗", "澳大利亚的纽卡斯尔"),
    ("皇后镇", "新西兰皇后镇周末", "新西兰皇后镇"),
    ("多伦", "明天早上7点多伦多多少度", "多伦多"),  # dev50: 多伦, in Inner Mongolia, was called; "多少" is no name
    ("卡塔赫纳", "后天到哥伦比亚的卡塔赫纳", "哥伦比亚的卡塔赫纳"),  # 比 ends words ("比较") but not here, before 的
    ("金斯敦", "邮轮明天停靠牙买加的金斯敦", "牙买加的金斯敦"),  # 停靠 ("calls at") is the question's own word
    # a day word the router wrote into the place is no part of it
    ("周五十堰", "周五十堰天气好吗，打算去武当山", "十堰"),
    ("Paris tomorrow", "Paris tomorrow?", "Paris"),
    ("Gao Rn", "is it boiling in Gao rn", "Gao"),  # "right now"
    # "on" a place: its qualifier
    ("Hana", "what about Hana on Maui", "Hana, Maui"),
    # ... or "in" one ("what about Hyderabad in India?" after Hyderabad, Pakistan was called for Pakistan's again)
    ("Hyderabad, Pakistan", "what about Hyderabad in India?", "Hyderabad, India"),
    ("Kampala", "weather for Kampala in Uganda tomorrow", "Kampala, Uganda"),
    # the router's qualifier where the question writes it, for a namesake written twice
    ("Cambridge, England", "Cambridge MA or Cambridge in England?", "Cambridge, England"),
    # the question's qualifier over the one the router wrote
    ("Paris, FR", "Paris, Kentucky - what's it like outside right now?", "Paris, Kentucky"),
    ("Portland, OR", "Portland Maine tonight, cold?", "Portland Maine"),
    # two letters after a name in lower case: a code, unless a word
    ("Manchester", "manchester nh forcast for tmrw", "Manchester, NH"),
    # ... and words after it, in a question typed all in lowercase (dev35's "going fishing off portland maine tmrw
    # morning" was called for Portland, Oregon), up to a day word or the end
    ("Portland", "going fishing off portland maine tmrw morning, how windy will it be", "Portland, maine"),
    ("Halifax", "halifax nova scotia, any snow?", "Halifax, nova scotia"),
    # said apart from the name, as "the one in": dev27's Hyderabad was India's, and so were the follow-ups
    ("Hyderabad", "Hyderabad weather today? the one in Pakistan, Sindh", "Hyderabad, Pakistan, Sindh"),
    ("Alexandria, VA", "and the one in Egypt?", "Alexandria, Egypt"),
    # ... with "the" before it (dev50's Bethlehem "the one in the West Bank not Pennsylvania" was Pennsylvania's)
    ("Bethlehem", "Visiting Bethlehem on Sunday, the one in the West Bank not Pennsylvania. Forecast?",
     "Bethlehem, West Bank"),
    # names the question lists, written as one by the router, are places of their own (dev27: Dubai's alone)
    ("Dubai, Abu Dhabi, Muscat", "Dubai, Abu Dhabi, Muscat - windiest tomorrow?", "Dubai"),
    # ... but a name written twice is two namesakes, each with its own (dev52's Springfield, Illinois was made
    # Springfield, and compared with Springfield, Missouri as Missouri's)
    ("Springfield, Illinois", "Springfield, Illinois or Springfield, Missouri - which is colder tomorrow morning?",
     "Springfield, Illinois"),
])
def test_a_qualifier_beside_the_place_is_taken_as_written(value, question, written):
    assert qualified(value, question, VOCABULARY) == written


@pytest.mark.parametrize(("value", "question"), [
    ("Paris", "Paris, Saturday?"),  # a day is no qualifier
    ("Paris", "Is it hot in Paris Today?"),
    ("Paris", "Paris this weekend"),
    ("Paris", "Paris in French please"), ("Paris", "Paris in December?"),
    ("Oslo", "oslo rn?"), ("Portland", "is it cold in portland me"),  # two letters that are a word
    ("Boston", "boston weather"), ("Austin", "will austin get rain this week"),  # words of the domain, or none
    ("Seattle", "seattle rain tmrw?"), ("Lyon", "lyon vs nice which is warmer"),
    ("Portland", "Portland and Salem?"),  # a joined name
    ("Hội An", "Hội An vs Huế tomorrow, which one is cloudier?"),
    ("Oslo", "Oslo, Bergen and Tromsø tomorrow?"),  # names joined to it are places of their own
    ("Montevideo", "Warmest: Montevideo, Asunción or Córdoba, Argentina?"),
    ("Moscow, Idaho", "Moscow, Idaho - any snow tomorrow?"),  # written in full already
    ("北京", "明天北京下雨吗"),  # a day word before it
    ("北京", "下周三的北京"),
    ("上海", "北京和上海哪个冷"),  # a joined name
    ("杭州", "帮我查一下杭州明天的天气"),  # the question's own words
    ("杭州", "去杭州"),  # one character is no qualifier
    ("Rome", "Romeo in Verona"),  # not the value at all
    ("Paris, FR", "Paris tomorrow?"),  # the router's qualifier stays where the question writes none
    ("Oslo", "Oslo in December?"), ("Paris", "weather in Paris on Sunday"), ("Rome", "Rome in F please"),
    ("Paris", "Write a short weather report for Paris in French."),  # "in" a language
    ("Paris", "Paris or London, and the one in Texas?"),  # of which of the places named?
    ("yelowknife", "yelowknife wed forecast? got an aurora tour booked"),  # a day shortened ("wed") is no qualifier
])
def test_no_qualifier_where_the_question_writes_none(value, question):
    assert qualified(value, question, VOCABULARY) == value


def test_a_day_the_router_wrote_into_the_name_is_taken_out():
    """dev42's "yelowknife wed forecast?" was called for "yelowknife, wed": the question's "wed" is its day."""
    assert qualified("yelowknife, wed", "yelowknife wed forecast? got an aurora tour booked", VOCABULARY) == \
        "yelowknife"


def test_the_qualifiers_go_to_the_place_arguments_only():
    schema = {"properties": {"city": CITY, "cities": {"items": CITY, "type": "array"},
                             "note": {"type": "string"}}, "required": ["city"]}
    question = "Moscow, Idaho: Note Well"
    assert with_qualifiers({"city": "Moscow", "note": "Note"}, schema, question, VOCABULARY) == {
        "city": "Moscow, Idaho", "note": "Note"}
    assert with_qualifiers({"cities": ["丽水", "纽卡斯尔"]}, schema, "浙江丽水和澳大利亚的纽卡斯尔哪个冷", VOCABULARY) == {
        "cities": ["浙江丽水", "澳大利亚的纽卡斯尔"]}
    # In a list, another item of it is no qualifier ("Oslo, Bergen": two places).
    assert with_qualifiers({"cities": ["Oslo", "Bergen"]}, schema, "Oslo, Bergen: which is colder?",
                           VOCABULARY) == {"cities": ["Oslo", "Bergen"]}


@pytest.mark.parametrize(("question", "tool", "router", "written", "country"), [
    ("Córdoba, Spain this Saturday: how hot will it be?", "get_forecast", {"city": "Córdoba", "day": "saturday"},
     "Córdoba, Spain", "ES"),
    ("Moscow, Idaho - any snow tomorrow?", "get_precipitation", {"city": "Moscow", "day": 1}, "Moscow, Idaho", "US"),
    # 通州 alone is two places (Beijing's, Jiangsu's): the one the question writes
    ("下周三江苏通州下不下雨", "get_precipitation", {"city": "通州"}, "江苏通州", "CN"),
    ("Kingston Jamaica weather tomorrow", "get_forecast", {"city": "Kingston", "day": 1}, "Kingston Jamaica", "JM"),
    ("周五十堰天气好吗，打算去武当山", "get_forecast", {"city": "周五十堰", "day": "friday"}, "十堰", "CN"),
    # the router wrote a qualifier of its own
    ("Paris, Kentucky - what's it like outside right now?", "get_current_weather", {"city": "Paris, FR"},
     "Paris, Kentucky", "US"),
])
def test_over_http_the_place_is_called_with_the_qualifier_the_question_writes(forced_gateway, fake_llm, question, tool,
                                                                               router, written, country):
    fake_llm.script(call(tool, **router), {"content": "As above."})
    (made,) = forced_gateway.chat("ann", {"message": question}).json()["tool_calls"]
    assert (made["tool"], made["arguments"]["city"], made["is_error"]) == (tool, written, False)
    assert made["structured_content"]["location"]["country_code"] == country


def test_over_http_a_longer_form_the_tool_does_not_know_falls_back_to_the_routers_place(forced_gateway, fake_llm):
    """"Berlin Weather Report" names no place: the call the router made, for Berlin, is the one kept."""
    fake_llm.script(call("get_forecast", city="Berlin", day=1), {"content": "As above."})
    body = forced_gateway.chat("bob", {"message": "Berlin Weather Report for tomorrow please"}).json()
    (made,) = body["tool_calls"]
    assert (made["arguments"]["city"], made["is_error"]) == ("Berlin", False)
    assert made["structured_content"]["location"]["country_code"] == "DE"
    log = (forced_gateway.work_dir / "gateway.log").read_text(encoding="utf-8")
    assert "'Berlin Weather Report'" in log  # the longer form was tried first


def test_over_http_characters_run_on_before_a_chinese_place_are_tried_only_when_the_place_fails(forced_gateway,
                                                                                               fake_llm):
    """"画出北京…": 北京 is called, and 画出北京 never is (as "江苏通州" follows "通州", two places alone)."""
    fake_llm.script(call("get_weather_chart", city="北京", days=5), {"content": "如图。"})
    body = forced_gateway.chat("cat", {"message": "画出北京未来五天的温度曲线"}).json()
    (made,) = body["tool_calls"]
    assert (made["arguments"]["city"], made["is_error"]) == ("北京", False)
    log = (forced_gateway.work_dir / "gateway.log").read_text(encoding="utf-8")
    assert "'画出北京'" not in log  # not tried first, as a qualified place would be


@pytest.mark.parametrize(("value", "question", "cut"), [
    ("龙会", "明天和龙会下雪不", "和龙"),  # 和 taken for "and", 会 ("will") for the name's
    ("大连接", "大连接下来一周降水量有多少", "大连"),  # 接 of 接下来
    ("新宾会", "新宾会不会下雨", "新宾"),
    ("新会", "新会明天下雨吗", "新会"),  # ends in no word of the question's own there: 会 begins no word after it
    ("龙会", "龙会下雪吗", "龙会"),  # nothing before it to join
    ("新会", "明天新会下雨吗", "新会"),  # nor a day word
    ("Rome", "Rome tomorrow?", "Rome"),
    ("冲绳那霸大", "冲绳那霸大后天适合出海浮潜吗", "冲绳那霸"),  # 大 of 大后天
    ("那霸大", "那霸大后天热吗", "那霸"), ("正大", "正大后天热吗", "正大"),  # two characters are left as they are
])
def test_a_chinese_place_cut_before_a_word_of_the_questions_own(value, question, cut):
    assert cut_before_a_word({"city": value}, {"properties": {"city": CITY}}, question, VOCABULARY) == {"city": cut}


def test_a_question_word_run_into_a_place_is_no_part_of_it():
    """"後天台北和高雄哪裡比較熱" was compared for 台北, 高雄 and "高雄哪裡"."""
    schema = {"properties": {"cities": {"type": "array", "items": CITY}, "city": CITY}}
    assert without_question_words({"cities": ["台北", "高雄哪裡"]}, schema, VOCABULARY) == {"cities": ["台北", "高雄"]}
    assert without_question_words({"cities": ["台北", "高雄", "高雄哪裡"]}, schema, VOCABULARY) == {
        "cities": ["台北", "高雄"]}  # the router's third place was the second run into the question word
    assert without_question_words({"city": "北京谁更冷"}, schema, VOCABULARY) == {"city": "北京"}
    assert without_question_words({"city": "哪里"}, schema, VOCABULARY) == {"city": "哪里"}  # no name before it


def test_over_http_a_place_the_tool_does_not_know_is_tried_cut_before_a_word(forced_gateway, fake_llm):
    fake_llm.script(call("get_precipitation", city="龙会", day=1), {"content": "如上。"})
    (made,) = forced_gateway.chat("dee", {"message": "明天和龙会下雪不"}).json()["tool_calls"]
    assert (made["arguments"]["city"], made["is_error"]) == ("和龙", False)
    assert made["structured_content"]["location"]["country_code"] == "CN"


@pytest.mark.parametrize(("value", "question", "whole"), [
    ("比利斯", "今晚第比利斯、埃里温和巴库哪个最冷", "第比利斯"),  # 第 is also "-th"
    ("埃里", "今晚第比利斯、埃里温和巴库哪个最冷", "埃里温"),  # 温 begins 温度
    ("北京", "帮我查一下北京", "北京"), ("北京", "明天北京会下雪吗", "北京"),  # a word of the question's own, a day's
    ("北京", "北京和上海哪个冷", "北京"), ("Rome", "Rome tomorrow?", "Rome"),
])
def test_a_chinese_place_the_router_cut_is_written_whole(value, question, whole):
    assert whole_written({"city": value}, {"properties": {"city": CITY}}, question, VOCABULARY) == {"city": whole}


def test_over_http_a_place_the_tool_does_not_know_is_tried_as_the_question_writes_it_whole(forced_gateway,
                                                                                           fake_llm):
    fake_llm.script(call("compare_weather", cities=["比利斯", "埃里温"], day=0), {"content": "如上。"})
    (made,) = forced_gateway.chat("tbi", {"message": "今天第比利斯和埃里温哪个冷"}).json()["tool_calls"]
    assert (made["arguments"]["cities"], made["is_error"]) == (["第比利斯", "埃里温"], False)


@pytest.mark.parametrize(("value", "bare"), [
    ("早上八点大帽山", "大帽山"), ("下午3点半深圳", "深圳"), ("飞黄刀镇", "黄刀镇"), ("人在玛瑙斯", "玛瑙斯"),
    ("旁边的尚志", "尚志"), ("隔壁的阿城", "阿城"),  # "跟旁边的尚志比": the town next door
    ("Will Leh", "Leh"), ("Is Paris", "Paris"),
    ("Willemstad", "Willemstad"), ("Isle of Man", "Isle of Man"), ("到", "到"), ("去", "去"),  # no word to cut
])
def test_a_word_of_the_sentence_run_onto_a_places_start_is_cut(value, bare):
    assert without_leading_words({"city": value}, {"properties": {"city": CITY}}, VOCABULARY) == {"city": bare}


def test_over_http_a_place_the_tool_does_not_know_is_tried_without_the_verb_run_onto_it(forced_gateway, fake_llm):
    """"周五飞黄刀镇看极光" was called for "飞黄刀镇" (飞, "fly to"), which no gazetteer has; 回龙观 still goes first."""
    fake_llm.script(call("get_forecast", city="飞黄刀镇", day="friday"), {"content": "如上。"})
    (made,) = forced_gateway.chat("yk", {"message": "周五飞黄刀镇看极光，那天晚上多云吗"}).json()["tool_calls"]
    assert (made["arguments"]["city"], made["is_error"]) == ("黄刀镇", False)


@pytest.mark.parametrize(("question", "name"), [
    ("周末三都会下雨吗", "三都"), ("成都明天下雨吗", "成都"), ("帮我查一下杭州明天的天气", "杭州"), ("周末上思热不热", "上思"),
    ("那边会下雨不？", ""), ("明天冷吗", ""), ("Rome tomorrow?", ""),
])
def test_the_chinese_name_a_question_begins_with(question, name):
    assert chinese_name_said(question, VOCABULARY) == name


def test_over_http_a_place_nobody_named_gives_way_to_the_name_the_question_begins_with(forced_gateway, fake_llm):
    """"周末三都会下雨吗" was called for 北京, and for 北京 again when told the question names no 北京."""
    fake_llm.script(call("get_precipitation", city="北京", day="weekend"),
                    call("get_precipitation", city="北京", day="weekend"), {"content": "如上。"}, auto=True)
    (made,) = forced_gateway.chat("eve", {"message": "周末三都会下雨吗"}).json()["tool_calls"]
    assert (made["arguments"]["city"], made["is_error"]) == ("三都", False)
    # Small talk that begins with no place gets no call for one.
    fake_llm.script(call("get_forecast", city="北京"), call("get_forecast", city="北京"), {"content": "好呀，聊聊吧。"})
    assert forced_gateway.chat("eve", {"message": "今天心情不错，跟你聊两句"}).json()["tool_calls"] == []
