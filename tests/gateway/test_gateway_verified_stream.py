"""Verified streaming (issue 23, item 5): a streaming client is shown an answer only as far as the check has passed
it. The sentence cut and the held text on their own, then over HTTP with the weather server (simulated) and the
scripted LLM, for the router's draft (an `auto` profile) and the writer's (a `required` one, as shipped): a draft
with a figure the data lacks is never shown past its good first sentence, and a passing one streams in pieces."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_chat_app.chat.release import Shown, sentences_end

from tests.support.gateway_processes import WEATHER_SERVER, GatewayProcess

INVENTED = "4321"  # a figure no weather result holds


@pytest.mark.parametrize(("text", "complete"), [
    ("It is 3.5 °C now. Tomorrow", "It is 3.5 °C now."),
    ("It is 3.", ""),  # "3." may still become "3.5"
    ("It is 3.5", ""),
    ("Rain at 3 p.m. today, e.g. in Lyon. Then", "Rain at 3 p.m. today, e.g. in Lyon."),
    ("Yes! Will it rain? No", "Yes! Will it rain?"),
    ('He said "no." Then', 'He said "no."'),
    ("今天有雨。明天", "今天有雨。"),
    ("气温3.5°C！会下雨吗？不会", "气温3.5°C！会下雨吗？"),
    ("first line\nsecond", "first line\n"),
    ("no end yet", ""),
])
def test_a_sentence_ends_at_its_mark_but_not_inside_a_figure_or_an_abbreviation(text, complete):
    assert text[:sentences_end(text)] == complete


def shown(passes) -> tuple[Shown, Any, list[tuple[str, dict[str, Any]]]]:
    events: list[tuple[str, dict[str, Any]]] = []
    release = Shown(lambda event, data: events.append((event, data)))
    return release, release.start(passes), events


def test_text_is_shown_a_sentence_at_a_time_and_held_from_the_first_that_fails():
    release, write, events = shown(lambda text: "9" not in text)
    for token in ["It is ", "cold. It ", "is 9 °C. ", "It is dry."]:
        write(token)
    assert events == [("token", {"text": "It is cold."})]  # " It is 9 °C." failed: neither it nor what follows
    release.discard(["numbers"])
    assert events[-1] == ("rewrite", {"problems": ["numbers"]})


def test_a_whole_text_that_passes_shows_what_was_held():
    release, write, events = shown(lambda text: not text.startswith("Sorry"))
    for token in ["Sorry, no UV data. ", "It is 7 °C", "."]:
        write(token)
    assert events == []  # mended only by what follows: held until the whole check
    release.accept()
    assert events == [("token", {"text": "Sorry, no UV data. It is 7 °C."})]
    release.discard()
    assert len(events) == 1  # nothing shown of the next text: nothing to withdraw


def test_a_new_text_withdraws_what_an_earlier_one_showed():
    release, write, events = shown(lambda text: True)
    write("Hello there. ")
    release.start(lambda text: True)("Bye.")
    assert [event for event, _ in events] == ["token", "rewrite"]


# The router's draft (`auto`), and the writer's (`required`, as the shipped profiles are).
PROFILES = {"auto": {}, "required": {"tool_choice": "required", "max_tool_rounds": 1}}


@pytest.fixture(scope="module", params=list(PROFILES))
def gateway(request, tmp_path_factory, fake_llm):
    process = GatewayProcess(tmp_path_factory.mktemp(f"stream_{request.param}"), {"weather": WEATHER_SERVER},
                             fake_llm.url, PROFILES[request.param])
    yield process
    process.stop()


CALL = {"tool_calls": [{"name": "weather__get_current_weather", "arguments": {"city": "Tokyo"}}]}
QUESTION = {"message": "What is it like in Tokyo?"}


def temperature(gateway: GatewayProcess, fake_llm) -> str:
    fake_llm.script(CALL, {"content": "Tokyo now."})
    (made,) = gateway.chat("probe", QUESTION).json()["tool_calls"]
    assert INVENTED not in json.dumps(made)  # else the test's "invented" figure would be the data's
    return f"{made['structured_content']['temperature']:g}"


def test_a_draft_with_a_figure_the_data_lacks_is_never_shown(gateway, fake_llm):
    good = f"Tokyo is at {temperature(gateway, fake_llm)} °C right now."
    bad = f"Tokyo is mild right now. It is {INVENTED} °C there, so wear a coat."
    fake_llm.script(CALL, {"content": bad}, {"content": good})
    events = gateway.stream_chat("kim", QUESTION)
    assert fake_llm.requests()[2]["messages"][-2] == {"role": "assistant", "content": bad}  # written, rejected
    names = [event for event, _ in events]
    assert INVENTED not in json.dumps([data for event, data in events if event != "done"])
    # Its good first sentence was shown, and withdrawn before the corrected answer.
    assert events[names.index("token")] == ("token", {"text": "Tokyo is mild right now."})
    assert names.count("rewrite") == 1 and names.index("rewrite") < names.index("done") - 1
    after = [data["text"] for event, data in events[names.index("rewrite"):] if event == "token"]
    assert "".join(after) == good
    assert events[-1][0] == "done" and events[-1][1]["response"].startswith(good)
    assert events[-1][1]["answer_source"] == "model"


def test_a_draft_failing_twice_is_replaced_by_the_facts_unseen(gateway, fake_llm):
    fake_llm.script(CALL, {"content": f"It is {INVENTED} °C in Tokyo."}, {"content": f"Tokyo: {INVENTED} °C."})
    events = gateway.stream_chat("kim", QUESTION)
    assert len(fake_llm.requests()) == 3  # two drafts written
    assert INVENTED not in json.dumps(events)
    assert "rewrite" not in [event for event, _ in events]  # neither showed anything: nothing to withdraw
    done = events[-1][1]
    assert done["answer_source"] == "composed"
    assert done["response"].startswith("".join(data["text"] for event, data in events if event == "token"))


def test_a_passing_draft_streams_in_pieces_before_done(gateway, fake_llm):
    answer = f"It is {temperature(gateway, fake_llm)} °C in Tokyo right now. That is the current reading."
    fake_llm.script(CALL, {"content": answer})
    events = gateway.stream_chat("kim", QUESTION)
    tokens = [data["text"] for event, data in events if event == "token"]
    assert len(tokens) >= 2 and "".join(tokens) == answer
    assert [event for event, _ in events][-1] == "done" and events[-1][1]["response"].startswith(answer)
