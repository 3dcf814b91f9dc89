"""Incremental detokenization: UTF-8 split across tokens, stop strings never leaking."""
from __future__ import annotations

import pytest

from llm_backend.engine.detokenizer import IncrementalDetokenizer


def byte_decode(ids: list[int]) -> str:
    return bytes(ids).decode("utf-8", errors="replace")


def stream(detok: IncrementalDetokenizer, tokens: list[int]) -> tuple[list[str], str | None]:
    pieces = []
    for token in tokens:
        stop = detok.add_token(token)
        pieces.append(detok.take_new_text(finished=stop is not None))
        if stop is not None:
            return pieces, stop
    pieces.append(detok.take_new_text(finished=True))
    return pieces, None


def test_multibyte_characters_split_over_tokens_never_emit_replacement_chars():
    text = "天气晴朗 ☀️ ok"
    detok = IncrementalDetokenizer(byte_decode, list(b"prompt"), stop=[])
    pieces, _ = stream(detok, list(text.encode()))
    assert all("\ufffd" not in p for p in pieces)
    assert "".join(pieces) == text


def test_chinese_streams_with_the_real_tokenizer(smollm_checkpoint):
    tokenizer = smollm_checkpoint.tokenizer
    text = "北京今天下雨，气温十五度。"
    ids = tokenizer.encode(text, add_special_tokens=False)
    detok = IncrementalDetokenizer(tokenizer.decode, tokenizer.encode("Weather:", add_special_tokens=False), stop=[])
    pieces, _ = stream(detok, ids)
    assert all("\ufffd" not in p for p in pieces)
    assert "".join(pieces) == text


@pytest.mark.parametrize("include", [False, True])
def test_stop_string_split_across_tokens_does_not_leak(include):
    detok = IncrementalDetokenizer(byte_decode, [], stop=["END"], include_stop_str_in_output=include)
    pieces, stop = stream(detok, list(b"abc EN") + list(b"D tail"))
    assert stop == "END"
    assert "".join(pieces) == ("abc END" if include else "abc ")
    assert all("E" not in p for p in pieces[:-1])  # "EN" was held back until resolved


def test_held_back_text_is_released_when_it_is_not_a_stop():
    detok = IncrementalDetokenizer(byte_decode, [], stop=["END"])
    pieces, stop = stream(detok, list(b"a ENx"))
    assert stop is None and "".join(pieces) == "a ENx"


def test_earliest_of_several_stop_strings_wins():
    detok = IncrementalDetokenizer(byte_decode, [], stop=["world", "lo w"])
    pieces, stop = stream(detok, list(b"hello world"))
    assert stop == "lo w" and "".join(pieces) == "hel"
