"""Fixtures: one scripted LLM per test module; gateway processes are started by each module."""

from __future__ import annotations

import os

import pytest

from .gateway_processes import FakeLlm

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


@pytest.fixture(scope="module")
def fake_llm(tmp_path_factory: pytest.TempPathFactory):
    llm = FakeLlm(tmp_path_factory.mktemp("fake_llm"))
    yield llm
    llm.stop()
