"""The gateway holds no domain: no weather word, unit or field name in its code (they are the weather assistant's
configs/assistant.json), and the answer path works for a server of another domain, the third-party
mcp-server-time, with an assistant configuration that holds no weather text either."""

from __future__ import annotations

import json
import re

import pytest

from mcp_chat_app.chat.assistant import load_assistant

from tests.support.gateway_processes import REPO, GatewayProcess

GATEWAY = REPO / "mcp_chat_app"
# Weather words (English, Chinese and the other languages the gateway tells apart), units and field names.
WEATHER_TERMS = re.compile(
    r"weather|\brain|\bsnow|precipitation|humidity|\bwind\b|forecast|umbrella|celsius|fahrenheit|temperature"
    r"|°[CF]|℃|℉|km/h|(?-i:\bmm\b)|天气|雨|雪|温度|气温|降水|湿度|风速|华氏|摄氏|带伞|预报"
    r"|wetter|regnet|pleuvoir|llover|piove|chover|latitude|longitude|weather_code|is_day",
    re.IGNORECASE,
)
# "temperature" is also the LLM's sampling setting: as a name of that, it is no weather word.
SAMPLING_TEMPERATURE = re.compile(r"\.temperature\b|\"temperature\"|\btemperature(?=\s*[:=])")

CLOCK_ASSISTANT = {
    "name": {"en": "Clock Assistant", "zh": "时钟助手"},
    "purpose": {"en": "a private assistant that tells the time anywhere from the tools it has",
                "zh": "一个用工具查询各地时间的私人助手"},
    "writer_examples": [],
    "no_tools": {"rules": "No tools are connected right now, so you cannot look up anything live.",
                 "answer": {"en": "Sorry, no service is connected right now.", "zh": "抱歉，现在没有连接任何服务。"}},
    "not_looked_up": {"en": "Sorry, I could not look that up.", "zh": "抱歉，我没能查到。"},
}


def test_no_gateway_module_holds_a_weather_term():
    found = []
    for path in sorted(GATEWAY.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            match = WEATHER_TERMS.search(SAMPLING_TEMPERATURE.sub("", line))
            if match:
                found.append(f"{path.relative_to(REPO)}:{number}: {match[0]!r} in {line.strip()}")
    assert len(list(GATEWAY.rglob("*.py"))) > 40  # the scan saw the gateway
    assert not found, "\n".join(found)


def test_the_weather_words_are_the_weather_assistants_configuration():
    # Where the words went: the shipped assistant's vocabulary (so the scan above has something to miss).
    vocabulary = load_assistant(REPO / "configs" / "assistant.json").vocabulary
    assert {"km/h", "℃", "毫米"} <= set(vocabulary.units) and "drier" in vocabulary.lesser_comparatives
    assert {"weather_code", "latitude"} <= vocabulary.hidden_fields and "fahrenheit" in vocabulary.plain_words
    assert "weather" in vocabulary.language_words["en"] and "wetter" in vocabulary.language_words["de"]


@pytest.fixture(scope="module")
def clock_gateway(tmp_path_factory, fake_llm):
    work = tmp_path_factory.mktemp("clock_gateway")
    assistant = work / "assistant.json"
    assistant.write_text(json.dumps(CLOCK_ASSISTANT, ensure_ascii=False), encoding="utf-8")
    gateway = GatewayProcess(work, {"time": {"command": "mcp-server-time"}}, fake_llm.url,
                             MCP_CHAT_ASSISTANT_CONFIG=str(assistant))
    yield gateway
    gateway.stop()


def test_a_question_is_routed_called_and_answered_with_only_a_clock_server(clock_gateway, fake_llm):
    tools = clock_gateway.get("/tools").json()["tools"]
    assert {tool["name"] for tool in tools} >= {"time__get_current_time"}
    fake_llm.script({"tool_calls": [{"name": "time__get_current_time", "arguments": {"timezone": "Europe/Paris"}}]},
                    {"content": "Here is the current time in Europe/Paris."})
    response = clock_gateway.chat("ada", {"message": "What time is it in Paris?"})
    assert response.status_code == 200, response.text
    reply = response.json()
    (made,) = reply["tool_calls"]
    assert (made["server"], made["tool"], made["is_error"]) == ("time", "get_current_time", False)
    assert made["structured_content"]["timezone"] == "Europe/Paris"
    assert reply["response"] == "Here is the current time in Europe/Paris."
    assert reply["answer_source"] == "model" and reply["language"] == "en" and reply["notices"] == []
    first, second = fake_llm.requests()
    assert first["messages"][0]["content"].startswith("You are Clock Assistant (in Chinese: 时钟助手)")
    assert "time__get_current_time" in {tool["function"]["name"] for tool in first["tools"]}
    # The router read the server's real result before it answered.
    (result,) = [m for m in second["messages"] if m["role"] == "tool"]
    assert "Europe/Paris" in result["content"] and made["structured_content"]["datetime"][:10] in result["content"]
    # Nothing of weather reached the model: not from the gateway, nor from a configuration.
    assert not WEATHER_TERMS.search(SAMPLING_TEMPERATURE.sub("", json.dumps([first, second], ensure_ascii=False)))


def test_a_question_no_tool_answers_gets_the_assistants_own_answer(clock_gateway, fake_llm):
    fake_llm.script({"content": "Hello! I am Clock Assistant: I can tell you the time anywhere."})
    reply = clock_gateway.chat("ada", {"message": "Hello, who are you?"}).json()
    assert reply["response"] == "Hello! I am Clock Assistant: I can tell you the time anywhere."
    assert reply["tool_calls"] == [] and reply["answer_source"] == "model"
    # Asked who it is, an answer without its name gives way to its introduction, from its configuration.
    fake_llm.script({"content": "Hello! I can tell you the time anywhere."})
    reply = clock_gateway.chat("bea", {"message": "Hello, who are you?"}).json()
    assert reply["response"].startswith("I am Clock Assistant, ") and reply["answer_source"] == "composed"


def test_made_up_figures_are_not_held_to_weather_units(clock_gateway, fake_llm):
    # With no units in the vocabulary, "12 °C" is no measurement to this assistant: the router's answer stands.
    fake_llm.script({"content": "It was 12 °C in a story I read."})
    reply = clock_gateway.chat("bob", {"message": "Tell me a story"}).json()
    assert reply["response"] == "It was 12 °C in a story I read." and reply["answer_source"] == "model"
