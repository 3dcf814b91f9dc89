"""A C kernel that cannot be built (its source missing, gcc refusing) leaves its torch path, with a one-line
warning, instead of an error (llm_backend/layers/native.py)."""
from __future__ import annotations

import logging
import shutil

import pytest

from llm_backend.layers.native import EXTRA_FLAGS_ENV, load_library

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc: nothing is compiled")
build_uncached = load_library.__wrapped__  # load_library remembers each name's library for the process


def test_a_missing_source_warns_and_gives_no_kernel(caplog):
    with caplog.at_level(logging.WARNING):
        assert build_uncached("no_such_kernel") is None
    (record,) = caplog.records
    assert "could not build the no_such_kernel kernel" in record.getMessage() and "\n" not in record.getMessage()


def test_a_failing_compile_warns_on_one_line_and_gives_no_kernel(caplog, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # no cached library to fall back on
    monkeypatch.setenv(EXTRA_FLAGS_ENV, "-fno-such-option")
    with caplog.at_level(logging.WARNING):
        assert build_uncached("pointwise") is None
    (record,) = caplog.records
    assert "could not build the pointwise kernel" in record.getMessage() and "\n" not in record.getMessage()
    assert "-fno-such-option" in record.getMessage()  # gcc's complaint, on the same line
