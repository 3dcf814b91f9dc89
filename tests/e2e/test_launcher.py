"""`mcp-chat up` as a user runs it: everything starts, answers, and Ctrl-C leaves no process or port behind."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil
import pytest

from tests.support.gateway_processes import REPO, TINY_SERVER, WEATHER_SERVER
from tests.support.processes import free_port

TINY_MODEL = "smollm2-135m-instruct"


class UpProcess:
    """`python -m mcp_chat_app.cli up ...` with its own registry and data dir, output captured to a file."""

    def __init__(self, work_dir: Path, *flags: str, port: int | None = None,
                 servers: dict | None = None) -> None:
        registry = work_dir / "mcp_servers.json"
        registry.write_text(json.dumps({"mcpServers": servers or {"weather": WEATHER_SERVER}}))
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.output = work_dir / "up.out"
        inherited = {key: value for key, value in os.environ.items() if not key.startswith("MCP_CHAT_")}
        env = {**inherited, "MCP_CHAT_SERVERS_CONFIG": str(registry),
               "MCP_CHAT_DATA_DIR": str(work_dir / "data"), "OMP_WAIT_POLICY": "PASSIVE"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mcp_chat_app.cli", "up", "--port", str(self.port), *flags],
            cwd=REPO, env=env, stdout=self.output.open("w"), stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while "ready." not in self.text():
            assert self.process.poll() is None, f"mcp-chat up exited early:\n{self.text()}"
            assert time.monotonic() < deadline, f"mcp-chat up not ready in {timeout} s:\n{self.text()}"
            time.sleep(0.5)

    def text(self) -> str:
        return self.output.read_text()

    def descendants(self) -> list[psutil.Process]:
        return psutil.Process(self.process.pid).children(recursive=True)

    def interrupt(self, timeout: float = 60) -> int:
        """Ctrl-C, as a terminal sends it, and the exit status."""
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=timeout)

    def kill(self) -> None:
        if self.process.poll() is None:
            for process in self.descendants():
                process.kill()
            self.process.kill()
            self.process.wait()


def _command_lines(processes: list[psutil.Process]) -> list[str]:
    return [" ".join(process.cmdline()) for process in processes]


def _port_is_free(port: int) -> bool:
    """Nothing listens there: connections the server closed may linger in TIME_WAIT, which a restarted server
    (binding with SO_REUSEADDR, as ours do) does not mind, so neither does the probe."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _assert_all_gone(processes: list[psutil.Process], ports: list[int]) -> None:
    _, alive = psutil.wait_procs(processes, timeout=10)
    assert not alive, f"orphans left: {_command_lines(alive)}"
    assert all(_port_is_free(port) for port in ports), f"a port is still bound: {ports}"


@pytest.fixture()
def launch(tmp_path: Path):
    started: list[UpProcess] = []

    def start(*flags: str, port: int | None = None, servers: dict | None = None) -> UpProcess:
        started.append(UpProcess(tmp_path, *flags, port=port, servers=servers))
        return started[-1]

    yield start
    for up in started:
        up.kill()


def test_up_with_a_local_model_serves_and_ctrl_c_stops_everything(launch):
    llm_port = free_port()
    # The tiny MCP server: with the weather tools the router's prompt is thousands of SmolLM2's tokens, and the
    # warm-up would spend minutes on a prompt this test does not need.
    up = launch("--model", TINY_MODEL, "--llm-port", str(llm_port), "--threads", "1", servers={"tiny": TINY_SERVER})
    up.wait_ready(timeout=420)
    children = up.descendants()
    commands = _command_lines(children)
    assert any("llm_backend.cli serve" in line and TINY_MODEL in line for line in commands), commands
    assert any("tiny_mcp_server.py" in line for line in commands), commands
    health = httpx.get(f"{up.url}/health", timeout=30).json()
    assert health["status"] == "ok", health
    assert health["llm"][0]["base_url"] == f"http://127.0.0.1:{llm_port}/v1"
    assert f"Chat page:  {up.url}/" in up.text()
    # "ready" only after the model has read the router's prompt, reporting as it went.
    assert health["warm_up"]["state"] == "ready" and health["warm_up"]["done"] == health["warm_up"]["total"] > 300
    warming = re.findall(r"^warming the model \(tools\): ([\d,]+)/([\d,]+) tokens$", up.text(), re.MULTILINE)
    assert warming and up.text().index("warming the model") < up.text().index("ready."), up.text()
    assert all(int(done.replace(",", "")) <= int(total.replace(",", "")) for done, total in warming)
    # The backend wants the key the launcher made for this run, and the gateway sends it.
    assert httpx.get(f"http://127.0.0.1:{llm_port}/v1/models", timeout=30).status_code == 401
    reply = httpx.post(f"{up.url}/chat/launcher_test", json={"message": "Hi", "use_tools": False}, timeout=300)
    assert reply.status_code == 200 and reply.json()["response"], reply.text

    assert up.interrupt() == 0
    _assert_all_gone(children, [up.port, llm_port])
    assert "stopped." in up.text()


def test_up_with_a_remote_model_starts_no_backend_and_answers(launch, fake_llm):
    up = launch("--llm-base-url", f"{fake_llm.url}/v1", "--model", "fake-model")
    up.wait_ready(timeout=300)
    children = up.descendants()
    assert not any("llm_backend" in line for line in _command_lines(children))
    fake_llm.script({"tool_calls": [{"name": "weather__get_current_weather", "arguments": {"city": "Beijing"}}]},
                    {"content": "Beijing is fine today."})
    reply = httpx.post(f"{up.url}/chat/launcher_test", json={"message": "Weather in Beijing?"},
                       timeout=180).json()
    assert reply["response"] == "Beijing is fine today.\n\nNote: these figures are simulated (demo data), not real weather."
    assert reply["tool_calls"][0]["structured_content"]["location"]["english_name"] == "Beijing"

    up.process.send_signal(signal.SIGTERM)
    assert up.process.wait(timeout=60) == 0
    _assert_all_gone(children, [up.port])


def test_up_waits_for_a_warm_up_longer_than_its_timeout_while_it_progresses(launch, fake_llm):
    # 7.5 s of reading in all, never 5 s without a report.
    fake_llm.script({"prefill": {"total": 3000, "chunk_s": [1.25] * 6}, "content": "x"}, {"content": "x"})
    up = launch("--llm-base-url", f"{fake_llm.url}/v1", "--model", "fake-model", "--warm-up-timeout", "5",
                servers={"tiny": TINY_SERVER})
    up.wait_ready(timeout=180)
    assert "warming the model (tools): 2,500/3,000 tokens" in up.text()
    assert up.text().index("2,500/3,000") < up.text().index("ready.")
    assert up.interrupt() == 0


def test_up_gives_up_on_a_warm_up_without_progress(launch, fake_llm):
    fake_llm.script({"prefill": {"total": 3000, "chunk_s": [0.5, 120]}, "content": "x"})
    up = launch("--llm-base-url", f"{fake_llm.url}/v1", "--model", "fake-model", "--warm-up-timeout", "5",
                servers={"tiny": TINY_SERVER})
    assert up.process.wait(timeout=180) == 1
    assert "warming the model (tools): 1,500/3,000 tokens" in up.text()
    assert "warm-up made no progress for 5 s" in up.text() and "ready." not in up.text()


def test_up_refuses_a_port_that_is_taken(launch, fake_llm):
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        up = launch("--llm-base-url", f"{fake_llm.url}/v1", port=holder.getsockname()[1])
        assert up.process.wait(timeout=60) == 1
    assert f"port {up.port} on 127.0.0.1 is in use" in up.text()
    assert "starting the gateway" not in up.text()


def test_a_backend_that_cannot_start_ends_up_with_its_log(launch, tmp_path: Path):
    up = launch("--model", str(tmp_path / "missing.gguf"), "--llm-port", str(free_port()))
    assert up.process.wait(timeout=300) == 1
    assert "llm-backend exited with status" in up.text() and "missing.gguf" in up.text()
    assert "starting the gateway" not in up.text()


def test_no_module_of_the_gateway_or_the_launcher_imports_the_backend():
    """The backend is a process to them: importing every one of their modules loads no llm_backend module."""
    script = ("import importlib, pkgutil, sys\n"
              "import assistant_launcher, mcp_chat_app\n"
              "for package in (assistant_launcher, mcp_chat_app):\n"
              "    for module in pkgutil.walk_packages(package.__path__, package.__name__ + '.'):\n"
              "        importlib.import_module(module.name)\n"
              "print(sorted(name for name in sys.modules if name.split('.')[0] == 'llm_backend'))\n")
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]", result.stdout
