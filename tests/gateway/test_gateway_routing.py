"""Routing and the tool loop (forced and auto rounds, repairs, escapes, hybrid writers) against scripted tools
(MockMcpManager) and the scripted LLM over real HTTP. The checks on the answer, against the real weather server,
are in test_gateway_answers.py."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from mcp_chat_app.chat.assistant import load_assistant
from mcp_chat_app.chat.own_answer import own_answer_messages
from mcp_chat_app.chat.pipeline import ChatPipeline
from mcp_chat_app.chat.turn import Turn
from mcp_chat_app.chat.write_prompt import CITES_A_FIGURE
from mcp_chat_app.config import CONFIG_DIR
from mcp_chat_app.llm.client import LlmClient
from mcp_chat_app.mcp_client.results import ToolImage
from mcp_chat_app.media_store import MediaStore
from mcp_chat_app.llm.profiles import Endpoint

from .mock_mcp_manager import MockMcpManager, ScriptedTool, ScriptedToolError

ASSISTANT = load_assistant(CONFIG_DIR / "assistant.json")

CITY_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
               "required": ["city"]}
PNG = b"\x89PNG\r\n\x1a\n fake chart"


def _current(arguments):
    if arguments["city"] == "Atlantis":
        raise ScriptedToolError("unknown city: Atlantis")
    return {"city": arguments["city"], "temperature_c": 12.3, "condition": "cloudy"}


TOOLS = [
    ScriptedTool("weather", "get_current_weather", _current, CITY_SCHEMA, "Current weather for a city."),
    ScriptedTool("weather", "get_weather_chart", lambda a: [ToolImage("image/png", PNG, "chart")], CITY_SCHEMA,
                 "A chart."),
]


@pytest.fixture()
def make(fake_llm, tmp_path: Path):
    def build(tool_mode: str = "native", writer_model: str | None = None, max_rounds: int = 5,
              tool_choice: str = "auto", structured_outputs: bool = False):
        endpoint = Endpoint("test", f"{fake_llm.url}/v1", "fake-model", "k", tool_mode=tool_mode,
                            tool_choice=tool_choice, structured_outputs=structured_outputs)
        router = LlmClient(endpoint)
        writer = LlmClient(Endpoint("writer", f"{fake_llm.url}/v1", writer_model, "k")) if writer_model else router
        manager = MockMcpManager(TOOLS)
        return ChatPipeline(manager, router, writer, MediaStore(tmp_path / "media"), ASSISTANT, max_rounds), manager
    return build


def call(name, **arguments):
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_native_single_tool_answer_quotes_the_data(make, fake_llm):
    orchestrator, manager = make()
    fake_llm.script(call("weather__get_current_weather", city="Beijing"), {"content": "北京现在12.3°C，多云。"})
    result = orchestrator.run("北京今天天气怎么样？", [])
    assert result.response == "北京现在12.3°C，多云。" and result.answer_source == "model"
    assert [(c.tool, c.arguments) for c in manager.calls] == [("get_current_weather", {"city": "Beijing"})]
    sent = fake_llm.requests()
    assert sent[0]["tools"][0]["function"]["name"] == "weather__get_current_weather"
    tool_message = sent[1]["messages"][-1]
    assert tool_message["role"] == "tool" and json.loads(tool_message["content"])["temperature_c"] == 12.3
    assert result.timings["rounds"] == 2


def test_prompt_json_mode_puts_tools_in_the_prompt_and_parses_leniently(make, fake_llm):
    orchestrator, manager = make(tool_mode="prompt_json")
    fake_llm.script({"content": '```json\n{"tool": "get_current_weather", "args": {"city": "Oslo"}}\n```'},
                    {"content": "Oslo: 12.3 °C and cloudy."})
    result = orchestrator.run("Weather in Oslo?", [])
    assert result.response == "Oslo: 12.3 °C and cloudy."
    assert manager.calls[0].arguments == {"city": "Oslo"}
    first, second = fake_llm.requests()
    assert "tools" not in first and "weather__get_current_weather(city: string, days?: integer)" in \
        first["messages"][0]["content"]
    assert second["messages"][-1]["role"] == "user" and "12.3" in second["messages"][-1]["content"]


def test_invalid_arguments_get_one_repair_round(make, fake_llm):
    orchestrator, manager = make()
    fake_llm.script(call("weather__get_current_weather", town="Oslo"),
                    call("weather__get_current_weather", city="Oslo"),
                    {"content": "Oslo: 12.3 °C."})
    result = orchestrator.run("Weather in Oslo?", [])
    assert [c.arguments for c in manager.calls] == [{"city": "Oslo"}]
    feedback = fake_llm.requests()[1]["messages"][-1]
    assert feedback["role"] == "tool" and "'city' is a required property" in feedback["content"]
    assert result.response == "Oslo: 12.3 °C." and not result.tool_calls[0].is_error


def test_a_second_invalid_call_is_reported_as_a_failed_tool(make, fake_llm):
    orchestrator, manager = make()
    fake_llm.script(call("weather__get_current_weather", days=2), call("weather__get_current_weather", days=2),
                    {"content": "It is 25 °C and sunny."})
    result = orchestrator.run("Weather?", [])
    assert manager.calls == []
    assert len(result.tool_calls) == 1 and result.tool_calls[0].is_error
    assert "required property" in result.tool_calls[0].text and result.tool_calls[0].reason == "invalid_call"
    assert result.answer_source == "composed"
    assert result.response == "Sorry, I could not get that data from the weather service."


def test_tool_error_reaches_the_model_which_may_retry(make, fake_llm):
    orchestrator, _ = make()
    fake_llm.script(call("weather__get_current_weather", city="Atlantis"),
                    call("weather__get_current_weather", city="Athens"), {"content": "Athens: 12.3 °C, cloudy."})
    result = orchestrator.run("Weather in Atlantis?", [])
    assert [c.is_error for c in result.tool_calls] == [True, False] and "unknown city" in result.tool_calls[0].text
    assert json.loads(fake_llm.requests()[1]["messages"][-1]["content"]) == {"error": "unknown city: Atlantis"}
    assert result.response == "Athens: 12.3 °C, cloudy." and result.answer_source == "model"


def test_when_every_tool_failed_the_answer_says_so_whatever_the_model_wrote(make, fake_llm):
    orchestrator, _ = make()
    fake_llm.script(call("weather__get_current_weather", city="Atlantis"), {"content": "Atlantis is sunny, 25 °C."},
                    call("weather__get_current_weather", city="Atlantis"), {"content": "Atlantis is sunny, 25 °C."})
    result = orchestrator.run("亚特兰蒂斯天气？", [])
    # The server's words are English, the question Chinese: the user gets a sentence in Chinese, not them.
    assert result.answer_source == "composed" and result.response == "抱歉，没能从 weather 服务取得这项数据。"
    result = orchestrator.run("Weather in Atlantis?", [])
    assert result.response == "Sorry, I could not get that: unknown city: Atlantis"


def test_wrong_language_answer_is_rewritten_then_falls_back(make, fake_llm):
    orchestrator, _ = make()
    fake_llm.script(call("weather__get_current_weather", city="Beijing"), {"content": "It is 12.3 °C."},
                    {"content": "北京12.3°C。"})
    result = orchestrator.run("北京天气？", [])
    assert result.response == "北京12.3°C。"
    rewrite = fake_llm.requests()[2]
    assert "tools" not in rewrite and "Answer in Chinese." in rewrite["messages"][-3]["content"]
    assert rewrite["messages"][-2]["content"] == "It is 12.3 °C."
    assert "it is not written in Chinese" in rewrite["messages"][-1]["content"]

    fake_llm.script(call("weather__get_current_weather", city="Beijing"), {"content": ""}, {"content": ""})
    result = orchestrator.run("北京天气？", [])
    # No usable answer at all: the facts themselves, readable even from a server without prose.
    assert result.answer_source == "composed"
    assert result.response == "city Beijing, temperature c 12.3, condition cloudy."


def test_rounds_are_bounded(make, fake_llm):
    orchestrator, manager = make(max_rounds=2)
    fake_llm.script(call("weather__get_current_weather", city="Oslo"), call("weather__get_current_weather", city="Bergen"),
                    {"content": "Oslo and Bergen: 12.3 °C."})
    result = orchestrator.run("Weather in Oslo and Bergen?", [])
    assert len(manager.calls) == 2 and result.timings["rounds"] == 2
    assert result.response == "Oslo and Bergen: 12.3 °C."  # written by the final (writer) pass
    assert "tools" not in fake_llm.requests()[-1]


def test_a_repeated_call_ends_the_loop_and_the_writer_answers(make, fake_llm):
    orchestrator, manager = make()
    fake_llm.script(call("weather__get_current_weather", city="Oslo"), call("weather__get_current_weather", city="Oslo"),
                    {"content": "Oslo: 12.3 °C."})
    result = orchestrator.run("Weather in Oslo?", [])
    assert len(manager.calls) == 1 and len(result.tool_calls) == 1 and result.timings["rounds"] == 2
    assert result.response == "Oslo: 12.3 °C." and "Facts:" in fake_llm.requests()[-1]["messages"][-1]["content"]


def test_hybrid_writer_writes_the_answer_without_tools(make, fake_llm):
    orchestrator, _ = make(writer_model="writer-model")
    fake_llm.script(call("weather__get_current_weather", city="Oslo"), {"content": "router text"},
                    {"content": "Oslo is at 12.3 °C."})
    result = orchestrator.run("Weather in Oslo?", [])
    assert result.response == "Oslo is at 12.3 °C." and result.model == "writer-model"
    writer_request = fake_llm.requests()[2]
    assert writer_request["model"] == "writer-model" and "tools" not in writer_request


def test_images_are_stored_and_returned_as_urls(make, fake_llm, tmp_path: Path):
    orchestrator, _ = make()
    fake_llm.script(call("weather__get_weather_chart", city="Oslo"), {"content": "Here is the chart for Oslo."})
    result = orchestrator.run("Chart for Oslo", [])
    (image,) = result.images
    assert image["mime"] == "image/png" and image["url"].startswith("/media/")
    assert (tmp_path / "media" / image["url"].removeprefix("/media/")).read_bytes() == PNG


def test_plain_chat_sends_no_tools_and_history_comes_before_the_question(make, fake_llm):
    orchestrator, manager = make()
    fake_llm.script({"content": "Hello Ann!"})
    history = [{"role": "user", "content": "I am Ann"}, {"role": "assistant", "content": "Hi Ann"}]
    result = orchestrator.run("Say hello", history, use_tools=False)
    assert result.response == "Hello Ann!" and manager.calls == []
    (sent,) = fake_llm.requests()
    assert "tools" not in sent and [m["content"] for m in sent["messages"][1:]] == ["I am Ann", "Hi Ann", "Say hello"]


def test_streaming_emits_events_in_order(make, fake_llm):
    orchestrator, _ = make()
    events = []
    fake_llm.script(call("weather__get_current_weather", city="Oslo"), {"content": "Oslo: 12.3 °C."})
    result = orchestrator.run("Weather in Oslo?", [], emit=lambda event, data: events.append((event, data)))
    names = [event for event, _ in events]
    assert names[:2] == ["tool_call", "tool_result"] and set(names[2:]) == {"token"}
    assert "".join(data["text"] for event, data in events if event == "token") == result.response


def test_unusable_answer_without_tools_gets_a_plain_chat_retry(make, fake_llm):
    orchestrator, manager = make()
    fake_llm.script({"content": '{"name": "write_poem", "arguments": {}}'}, {"content": ""},
                    {"content": "春风吹绿了江南岸。"})
    result = orchestrator.run("写一首关于春天的诗", [])
    assert result.response == "春风吹绿了江南岸。" and manager.calls == []
    retry = fake_llm.requests()[2]
    expected = own_answer_messages(Turn.start("写一首关于春天的诗", [], ASSISTANT), tools_connected=True)
    assert "tools" not in retry and retry["messages"] == expected


def test_hybrid_writer_answers_questions_that_need_no_tool(make, fake_llm):
    orchestrator, _ = make(writer_model="writer-model")
    fake_llm.script({"content": "Shakespeare."}, {"content": "Hamlet was written by Shakespeare."})
    result = orchestrator.run("Who wrote Hamlet?", [])
    assert result.response == "Hamlet was written by Shakespeare." and result.model == "writer-model"


def test_garbage_instead_of_a_call_gets_one_forced_call(make, fake_llm):
    orchestrator, manager = make()
    forced = {"tool_calls": [{"name": "weather__get_current_weather", "arguments": {"city": "广州"}},
                             {"name": "weather__get_weather_chart", "arguments": {"city": "广州"}}]}
    fake_llm.script({"content": "<tools></tools>"}, forced, {"content": "广州现在12.3°C，多云。"})
    result = orchestrator.run("广州今天会下雨吗？", [])
    assert [c.arguments for c in manager.calls] == [{"city": "广州"}] and result.response == "广州现在12.3°C，多云。"
    forced = fake_llm.requests()[1]
    assert forced["tool_choice"] == "required" and forced["tools"][-1]["function"]["name"] == "answer_directly"
    assert forced["parallel_tool_calls"] is True and forced["stream"] is True


def test_a_forced_call_may_choose_to_answer_directly(make, fake_llm):
    orchestrator, manager = make()
    fake_llm.script({"content": "<tools></tools>"}, call("answer_directly"), {"content": "春风吹绿了江南岸。"})
    result = orchestrator.run("写一首关于春天的诗", [])
    assert manager.calls == [] and result.response == "春风吹绿了江南岸。"
    assert "tools" not in fake_llm.requests()[2]


def test_a_required_profile_forces_one_call_in_the_first_round(make, fake_llm):
    orchestrator, manager = make(tool_choice="required")
    fake_llm.script(call("weather__get_current_weather", city="北京"), {"content": "北京现在12.3°C。"})
    result = orchestrator.run("北京今天天气怎么样？", [])
    assert [c.arguments for c in manager.calls] == [{"city": "北京"}] and result.response == "北京现在12.3°C。"
    first, second = fake_llm.requests()
    assert first["tool_choice"] == "required" and first["parallel_tool_calls"] is True
    assert first["tools"][-1]["function"]["name"] == "answer_directly"
    assert "tools" not in second  # the writer answers from the facts
    assert manager.locales == ["zh-CN"]  # the call asked for the user's language


def test_a_forced_round_keeps_the_calls_of_its_first_tool(make, fake_llm):
    """One tool for each place asked about is kept; a repeat is made once; the round ends at another tool."""
    orchestrator, manager = make(tool_choice="required")
    forced = {"tool_calls": [{"name": "weather__get_current_weather", "arguments": {"city": "东京"}},
                             {"name": "weather__get_current_weather", "arguments": {"city": "首尔"}},
                             {"name": "weather__get_current_weather", "arguments": {"city": "首尔"}},
                             {"name": "weather__get_weather_chart", "arguments": {"city": "东京"}},
                             {"name": "weather__get_current_weather", "arguments": {"city": "大阪"}}],
              "call_gap": 1.0}
    fake_llm.script(forced, {"content": "东京现在比首尔暖和。"})
    started = time.perf_counter()
    result = orchestrator.run("东京和首尔现在哪个更暖和？", [])
    elapsed = time.perf_counter() - started
    assert [c.arguments["city"] for c in manager.calls] == ["东京", "首尔"]
    assert result.response == "东京现在比首尔暖和。"
    # The tool round's stream was closed at the chart call, not read to its end (five calls, a 1 s pause in
    # each); the one stream read to its end is the writer's.
    assert len(fake_llm.closed_streams()) == 1 and fake_llm.finished_streams() == 1 and elapsed < 4.5


def test_a_forced_call_may_take_the_escape_after_all(make, fake_llm):
    orchestrator, manager = make(tool_choice="required")
    fake_llm.script({"tool_calls": [{"name": "answer_directly", "arguments": {}},
                                    {"name": "weather__get_current_weather", "arguments": {"city": "巴黎"}}]},
                    {"content": "《哈姆雷特》是莎士比亚写的。"})
    result = orchestrator.run("《哈姆雷特》是谁写的？", [])
    assert manager.calls == [] and result.response == "《哈姆雷特》是莎士比亚写的。"


def test_a_required_profile_answers_chit_chat_through_the_escape(make, fake_llm):
    orchestrator, manager = make(tool_choice="required")
    fake_llm.script(call("answer_directly"), {"content": "你好！有什么可以帮你？"})
    result = orchestrator.run("你好", [])
    assert manager.calls == [] and result.response == "你好！有什么可以帮你？"
    assert "tools" not in fake_llm.requests()[1]


def test_a_streamed_call_cut_off_by_max_tokens_is_dropped(make, fake_llm):
    orchestrator, manager = make()
    fake_llm.script({"tool_calls": [{"name": "weather__get_current_weather", "arguments": {"city": "北京"}},
                                    {"name": "weather__get_current_weather", "arguments": '{"city": "广'}],
                     "finish_reason": "length"},
                    {"content": "北京现在12.3°C。"})
    result = orchestrator.run("北京和广州现在多少度？", [], emit=lambda event, data: None)
    assert [c.arguments for c in manager.calls] == [{"city": "北京"}] and result.response == "北京现在12.3°C。"
    fed_back = fake_llm.requests()[1]["messages"]
    assert [m["tool_call_id"] for m in fed_back if m["role"] == "tool"] == [fed_back[-2]["tool_calls"][0]["id"]]
    assert len(fed_back[-2]["tool_calls"]) == 1  # the cut call is neither run nor sent back for repair


def test_invented_measurements_before_any_tool_force_a_call(make, fake_llm):
    orchestrator, manager = make()
    fake_llm.script({"content": "北京今天22°C，晴朗。"}, call("weather__get_current_weather", city="北京"),
                    {"content": "北京现在12.3°C，多云。"})
    result = orchestrator.run("北京今天天气怎么样？", [])
    assert [c.arguments for c in manager.calls] == [{"city": "北京"}] and result.response == "北京现在12.3°C，多云。"



def test_a_streaming_client_sees_neither_the_made_up_figures_nor_the_wrong_language(make, fake_llm):
    orchestrator, _ = make()
    fake_llm.script({"content": "北京今天22°C，晴朗。"}, call("weather__get_current_weather", city="北京"),
                    {"content": "It is 12.3 °C. It is cloudy."}, {"content": "北京现在12.3°C，多云。"})
    events = []
    result = orchestrator.run("北京今天天气怎么样？", [], emit=lambda event, data: events.append((event, data)))
    assert result.response == "北京现在12.3°C，多云。" and len(fake_llm.requests()) == 4  # both drafts were written
    # Each rejected text was held from its first sentence on: nothing to withdraw, only the answer shown.
    assert [event for event, _ in events] == ["tool_call", "tool_result", "token"]
    assert "".join(data["text"] for event, data in events if event == "token") == result.response


@pytest.mark.parametrize("bad_call, complaint", [
    ({"name": "weather__launch_rockets", "arguments": {"city": "Oslo"}}, "unknown tool 'weather__launch_rockets'"),
    ({"name": "weather__get_current_weather", "arguments": '{"city": "Oslo"'}, "not valid JSON"),
])
def test_an_unknown_tool_or_broken_json_is_fed_back_once_then_the_user_gets_an_honest_reply(
        make, fake_llm, bad_call, complaint):
    orchestrator, manager = make()
    fake_llm.script({"tool_calls": [bad_call]}, {"tool_calls": [bad_call]}, {"content": "Oslo is sunny, 30 °C."})
    result = orchestrator.run("Weather in Oslo?", [])
    assert manager.calls == []
    feedback = [m for m in fake_llm.requests()[1]["messages"] if m["role"] == "tool"]
    assert len(feedback) == 1 and complaint in feedback[0]["content"]
    (failed,) = result.tool_calls
    assert failed.is_error and complaint in failed.text
    # Nothing was fetched, so the invented weather is not passed on: the reply says what failed.
    assert result.answer_source == "composed" and "30" not in result.response
    assert result.response == "Sorry, I could not get that data from the weather service."


def test_a_writer_looping_is_stopped_and_its_retry_need_not_cite_a_figure_first(make, fake_llm):
    """A small writer held to cite a figure in its first sentence, with none it wants to write, listed the facts'
    clauses round and round until max_tokens (a minute on a CPU, twice): the stream is closed once a clause comes
    a third time, and the retry is held only to the verdict, if any."""
    orchestrator, _ = make(tool_choice="required", max_rounds=1, structured_outputs=True)
    loop = "It is cloudy, it is grey, " * 40
    fake_llm.script(call("weather__get_current_weather", city="Beijing"), {"content": loop, "token_gap": 0.01},
                    {"content": "It is 12.3 °C and cloudy in Beijing."})
    result = orchestrator.run("Weather in Beijing?", [])
    assert result.response.startswith("It is 12.3 °C and cloudy in Beijing.")
    _, first, retry = fake_llm.requests()
    assert len(fake_llm.closed_streams()) == 1 and fake_llm.finished_streams() == 2  # router, retry: the loop cut short
    assert first["structured_outputs"] == {"regex": CITES_A_FIGURE} and "structured_outputs" not in retry
    shown_draft = next(m["content"] for m in retry["messages"] if m["role"] == "assistant" and "grey" in m["content"])
    assert shown_draft.count("It is cloudy") == 3 and len(shown_draft) < 80  # up to the third time, not forty


def test_warm_up_sends_the_fixed_prompt_starts_a_turn_reuses(make, fake_llm):
    """One token each for the router's and the writer's fixed prompts, byte-identical to a real turn's, so the
    backend's prefix cache holds them before the first user asks, and the writer's constraint is compiled."""
    orchestrator, _ = make(tool_choice="required", max_rounds=1, structured_outputs=True)  # forced round, writer
    fake_llm.script({"content": "x"}, {"content": "x"},
                    call("weather__get_current_weather", city="北京"), {"content": "北京现在12.3°C。"})
    orchestrator.warm_up()
    orchestrator.run("北京今天天气怎么样？", [])
    warm_router, warm_writer, router, writer = fake_llm.requests()
    assert warm_router["max_tokens"] == warm_writer["max_tokens"] == 1
    assert warm_writer["structured_outputs"] == writer["structured_outputs"] == {"regex": CITES_A_FIGURE}
    assert warm_router["messages"][0] == router["messages"][0] and warm_router["tools"] == router["tools"]
    examples = len(writer["messages"]) - 1  # all but the question
    assert warm_writer["messages"][:examples] == writer["messages"][:examples] and examples > 2
