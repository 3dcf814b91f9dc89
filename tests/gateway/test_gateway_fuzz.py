"""Hostile input over HTTP: schemathesis fuzzes the running gateway from its own /openapi.json,
hypothesis throws arbitrary bytes and JSON at the request parsers, and hand-picked nasty bodies
(huge, invalid UTF-8, control characters, deep nesting) each get a precise 4xx, never a 500."""

from __future__ import annotations

import json

import httpx
import pytest
import schemathesis
from schemathesis import GenerationMode
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_chat_app.web.errors import GatewayError
from mcp_chat_app.web.requests import MAX_MESSAGE_CHARS, chat_request, checked_user, json_object

from tests.support.gateway_processes import TINY_SERVER, GatewayProcess

MAX_BODY_BYTES = 64 * 1024


@pytest.fixture(scope="module")
def gateway(fake_llm, tmp_path_factory):
    process = GatewayProcess(tmp_path_factory.mktemp("gateway_fuzz"), {"tiny": TINY_SERVER}, fake_llm.url,
                             MCP_CHAT_ADMIN_TOKEN="fuzz-admin-token", MCP_CHAT_MAX_BODY_BYTES=str(MAX_BODY_BYTES))
    yield process
    process.stop()


def test_every_operation_conforms_to_the_spec_and_never_fails_with_5xx(gateway):
    # Schemathesis' pytest plugin does not run under pytest 9, so its strategies drive a plain hypothesis test.
    schema = schemathesis.openapi.from_url(f"{gateway.url}/openapi.json")
    cases = st.one_of(schema.as_strategy(GenerationMode.POSITIVE), schema.as_strategy(GenerationMode.NEGATIVE))
    seen: set[str] = set()

    @given(case=cases)
    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def fuzz(case):
        seen.add(f"{case.method} {case.operation.path}")
        # The scripted LLM is up, so no 5xx is legitimate; conformance covers statuses and bodies.
        response = case.call_and_validate(base_url=gateway.url, timeout=30)
        assert response.status_code < 500

    fuzz()
    assert len(seen) >= 8  # every operation got some traffic


# --- hand-picked hostile bodies over HTTP ----------------------------------------------------------

def _post(gateway, body: bytes, content_type: str = "application/json", **headers: str) -> httpx.Response:
    return httpx.post(f"{gateway.url}/chat/mallory", content=body, timeout=30,
                      headers={"Content-Type": content_type, **headers})


@pytest.mark.parametrize("body, status, code", [
    (b'{"message": "caf\xe9"}', 400, "bad_encoding"),            # Latin-1, not UTF-8
    (b'{"message": "\xff\xfe"}', 400, "bad_encoding"),
    (b'{"message": "hi"', 400, "bad_json"),
    (b'{"message": NaN}', 400, "bad_request"),
    (b"[" * 30_000 + b"]" * 30_000, 400, "bad_json"),            # deeper than the parser's recursion
    (b'{"message": "\\ud800"}', 400, "bad_request"),             # a lone surrogate cannot be stored
    (b'{"message": "hi\\u0000there"}', 400, "bad_request"),
    (b'{"message": "bell \\u0007"}', 400, "bad_request"),
    (b'{"message": "hi", "use_tools": null}', 400, "bad_request"),
    (json.dumps({"message": "x" * (MAX_MESSAGE_CHARS + 1)}).encode(), 400, "bad_request"),
    (json.dumps({"message": "x" * MAX_BODY_BYTES}).encode(), 413, "request_entity_too_large"),
])
def test_hostile_bodies_get_a_precise_4xx(gateway, body, status, code):
    reply = _post(gateway, body)
    assert reply.status_code == status, reply.text
    error = reply.json()["error"]
    assert error["code"] == code and error["message"]


def test_a_huge_chunked_body_without_length_is_413(gateway):
    chunks = (b'{"message": "' + b"x" * 1024 * 1024 + b'"}' for _ in range(1))
    reply = httpx.post(f"{gateway.url}/chat/mallory", content=chunks, timeout=30,
                       headers={"Content-Type": "application/json"})
    assert reply.status_code == 413


def test_a_body_that_is_not_json_typed_is_415(gateway):
    reply = _post(gateway, b"message=hi", content_type="application/x-www-form-urlencoded")
    assert reply.status_code == 415 and reply.json()["error"]["code"] == "unsupported_media_type"


def test_allowed_whitespace_and_unicode_pass(gateway, fake_llm):
    fake_llm.script({"content": "ok"})
    reply = _post(gateway, json.dumps({"message": "第一行\n\tsecond line 🌧", "use_tools": False}).encode())
    assert reply.status_code == 200 and reply.json()["response"] == "ok"
    assert gateway.get("/chat/mallory/history").json()["messages"][0]["content"] == "第一行\n\tsecond line 🌧"


def test_nothing_was_stored_by_the_rejected_requests_and_the_gateway_still_serves(gateway):
    messages = gateway.get("/chat/mallory/history").json()["messages"]
    assert len(messages) <= 2  # only the one accepted exchange above, if it ran
    assert gateway.get("/health").status_code == 200


# --- property tests on the parsers -------------------------------------------------------------------

_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                     lambda children: st.lists(children) | st.dictionaries(st.text(), children), max_leaves=20)


def _outcome(parse, raw):
    try:
        return parse(raw)
    except GatewayError as error:
        assert 400 <= error.status < 500 and error.message
        return None


@given(st.binary(max_size=2000))
def test_any_bytes_parse_or_give_a_4xx(raw):
    _outcome(chat_request, raw)
    _outcome(json_object, raw)


@given(st.dictionaries(st.sampled_from(["message", "use_tools", "stream", "other"]), _JSON))
def test_any_json_object_parses_or_gives_a_4xx(body):
    parsed = _outcome(chat_request, json.dumps(body).encode())
    if parsed is not None:
        assert parsed.message == body["message"].strip() and parsed.message
        assert parsed.message.encode("utf-8") and isinstance(parsed.use_tools, bool)


@given(st.text(min_size=1, max_size=100).filter(lambda text: text.strip()))
def test_accepted_messages_are_storable_text(message):
    parsed = _outcome(chat_request, json.dumps({"message": message}).encode())
    if parsed is not None:
        parsed.message.encode("utf-8")  # no lone surrogate reaches the history store
        assert all(ch in "\t\n\r" or ord(ch) >= 0x20 and ord(ch) != 0x7F for ch in parsed.message)


@given(st.text(max_size=80))
def test_user_ids_are_a_safe_alphabet_or_rejected(user):
    accepted = _outcome(checked_user, user)
    if accepted is not None:
        assert accepted == user and 1 <= len(user) <= 64
        assert all(ch.isascii() and (ch.isalnum() or ch in "_.@-") for ch in user)
