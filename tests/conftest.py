"""Fixtures for every test folder: the scripted LLM (tests/support/fake_llm.py) in its own process."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.support.gateway_processes import FakeLlm

# Inherited by every server a test starts: idle OpenMP threads then sleep instead of spinning on a shared CPU.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A node id for each test its name names. Under pytest 9's structured ids, schemathesis' `schema.parametrize()`
    gives every operation's test the function's id (only the name says `[POST /v1/completions]`); pytest-xdist
    schedules by id, and would run one operation of the seven."""
    for item in items:
        if item.parent is not None and item.nodeid.rpartition("::")[2] != item.name:
            item._id = type(item.id).parse(f"{item.parent.nodeid}::{item.name}")  # no public setter


@pytest.fixture(scope="module")
def fake_llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeLlm]:
    """One scripted LLM per test module; each test scripts its replies with `fake_llm.script(...)`."""
    llm = FakeLlm(tmp_path_factory.mktemp("fake_llm"))
    yield llm
    llm.stop()


@pytest.fixture(scope="module")
def second_fake_llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeLlm]:
    """Another scripted LLM, for tests with two endpoints (a conversation's model profile)."""
    llm = FakeLlm(tmp_path_factory.mktemp("second_fake_llm"))
    yield llm
    llm.stop()
