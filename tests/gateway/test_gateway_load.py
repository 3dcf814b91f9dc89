"""A short run of bench/gateway_load.py (concurrent users, every history verified afterwards), and
steady resources: connections that come and go leave no file descriptors behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import httpx
import pytest

from tests.support.gateway_processes import REPO, GatewayProcess


def test_concurrent_users_get_their_own_answers_and_intact_histories():
    # RSS is not judged here: ten seconds never leave the warm-up (the 5-minute run judges it).
    run = subprocess.run([sys.executable, "-m", "bench.gateway_load", "--users", "8", "--duration", "10",
                          "--warmup", "3", "--max-rss-growth", "10", "--json"],
                         cwd=REPO, capture_output=True, text=True, timeout=240)
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert report["statuses"] == {"200": report["requests"]} and report["requests"] >= 40
    assert report["failure_count"] == 0 and report["history_messages_checked"] == 2 * report["requests"]


@pytest.fixture()
def gateway(fake_llm, tmp_path):
    process = GatewayProcess(tmp_path / "gateway", {}, fake_llm.url)
    yield process
    process.stop()


def test_fresh_connections_leave_no_file_descriptors_behind(gateway, fake_llm):
    def open_files() -> int:
        return len(os.listdir(f"/proc/{gateway.process.pid}/fd"))

    fake_llm.script(auto=True)
    gateway.chat("warm", {"message": "hello", "use_tools": False})
    before = open_files()
    for index in range(100):  # a new connection, hence a new server thread, each time
        assert httpx.post(f"{gateway.url}/chat/fd{index % 7}", json={"message": f"hi {index}", "use_tools": False},
                          timeout=30).status_code == 200
        assert httpx.get(f"{gateway.url}/chat/fd{index % 7}/history", timeout=30).status_code == 200
    assert open_files() <= before + 4
