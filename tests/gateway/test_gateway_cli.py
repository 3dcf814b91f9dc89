"""`mcp-chat ask`: one question from the terminal, through the real servers and the scripted LLM."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.support.gateway_processes import REPO, TINY_SERVER
from tests.support.processes import free_port


def ask(tmp_path, llm_url: str, *args: str) -> subprocess.CompletedProcess:
    registry = tmp_path / "servers.json"
    registry.write_text(json.dumps({"mcpServers": {"tiny": TINY_SERVER}}))
    env = {**os.environ, "MCP_CHAT_SERVERS_CONFIG": str(registry), "MCP_CHAT_DATA_DIR": str(tmp_path / "data"),
           "MCP_CHAT_BASE_URL": f"{llm_url}/v1", "MCP_CHAT_MODEL": "fake-model"}
    return subprocess.run([sys.executable, "-m", "mcp_chat_app.cli", "ask", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)


def test_ask_prints_the_answer_or_the_json(tmp_path, fake_llm):
    fake_llm.script({"tool_calls": [{"name": "tiny__add", "arguments": {"a": 40, "b": 2}}]}, {"content": "42"})
    done = ask(tmp_path, fake_llm.url, "--json", "What is 40 + 2?")
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    assert body["response"] == "42" and body["tool_calls"][0]["tool"] == "add"
    fake_llm.script({"content": "Hello!"})
    done = ask(tmp_path, fake_llm.url, "--no-tools", "Hi")
    assert done.returncode == 0 and done.stdout.strip() == "Hello!"


def test_ask_with_the_llm_down_exits_1_with_a_message(tmp_path):
    done = ask(tmp_path, f"http://127.0.0.1:{free_port()}", "Hi")
    assert done.returncode == 1 and "unavailable" in done.stderr and done.stdout == ""
