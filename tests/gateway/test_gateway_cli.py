"""`mcp-chat ask`: one question from the terminal, through the real servers and the scripted LLM; its tool calls
follow the user's approval policy, asked on a terminal (a pty here) and not made without one."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import httpx

from tests.support.gateway_processes import ANNOTATED_SERVER, REPO, TINY_SERVER, GatewayProcess, scripted_models
from tests.support.processes import free_port


def _command(tmp_path: Path, llm_url: str, *args: str) -> tuple[list[str], dict[str, str]]:
    registry = tmp_path / "servers.json"
    registry.write_text(json.dumps({"mcpServers": {"tiny": TINY_SERVER, "notes": ANNOTATED_SERVER}}))
    env = {**os.environ, "MCP_CHAT_SERVERS_CONFIG": str(registry), "MCP_CHAT_DATA_DIR": str(tmp_path / "data"),
           "MCP_CHAT_MODELS_CONFIG": str(scripted_models(tmp_path, llm_url)), "MCP_CHAT_PROFILE": "scripted"}
    return [sys.executable, "-m", "mcp_chat_app.cli", "ask", *args], env


def ask(tmp_path, llm_url: str, *args: str) -> subprocess.CompletedProcess:
    """`mcp-chat ask` without a terminal (stdin is not a TTY)."""
    command, env = _command(tmp_path, llm_url, *args)
    return subprocess.run(command, cwd=REPO, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120)


def ask_at_a_terminal(tmp_path, llm_url: str, answer: str, *args: str) -> tuple[str, str]:
    """`mcp-chat ask` with a pty as its terminal (stdin and stderr), a person typing `answer` at the approval
    prompt: (stdout, what the terminal showed)."""
    command, env = _command(tmp_path, llm_url, *args)
    terminal, their_end = pty.openpty()
    process = subprocess.Popen(command, cwd=REPO, env=env, stdin=their_end, stderr=their_end,
                               stdout=subprocess.PIPE, text=True)
    os.close(their_end)
    shown = b""
    try:
        while b"[n]o " not in shown:
            shown += os.read(terminal, 4096)  # OSError once the process ends without asking
        os.write(terminal, f"{answer}\n".encode())
        stdout, _ = process.communicate(timeout=120)
        try:
            while chunk := os.read(terminal, 4096):
                shown += chunk
        except OSError:  # the terminal's other end is closed: everything was read
            pass
    finally:
        process.kill()
        os.close(terminal)
    return stdout, shown.decode()


def _write_and_look(fake_llm, path: Path) -> str:
    """The next turn calls the annotated server's `look` (read-only) and `write` (not) on `path`: the question."""
    fake_llm.script({"tool_calls": [{"name": "notes__look", "arguments": {"path": str(path)}},
                                    {"name": "notes__write", "arguments": {"path": str(path)}}]},
                    {"content": "Done."})
    return f"Look at and write {path}"  # the router's arguments must come from the question


def test_ask_prints_the_answer_or_the_json(tmp_path, fake_llm):
    fake_llm.script({"tool_calls": [{"name": "tiny__add", "arguments": {"a": 40, "b": 2}}]}, {"content": "42"})
    done = ask(tmp_path, fake_llm.url, "--json", "--allow", "tiny/add", "What is 40 + 2?")  # not read-only
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    assert body["response"] == "42" and body["tool_calls"][0]["tool"] == "add"
    fake_llm.script({"content": "Hello!"})
    done = ask(tmp_path, fake_llm.url, "--no-tools", "Hi")
    assert done.returncode == 0 and done.stdout.strip() == "Hello!"


def test_ask_with_the_llm_down_exits_1_with_a_message(tmp_path):
    done = ask(tmp_path, f"http://127.0.0.1:{free_port()}", "Hi")
    assert done.returncode == 1 and "unavailable" in done.stderr and done.stdout == ""


def test_ask_without_a_terminal_runs_read_only_tools_and_says_how_to_allow_the_others(tmp_path, fake_llm):
    target = tmp_path / "note.txt"
    question = _write_and_look(fake_llm, target)
    done = ask(tmp_path, fake_llm.url, "--json", question)
    assert done.returncode == 0, done.stderr
    assert Path(f"{target}.looked").exists() and not target.exists()  # look ran; write did not
    calls = {call["tool"]: call for call in json.loads(done.stdout)["tool_calls"]}
    assert not calls["look"]["is_error"] and calls["write"]["reason"] == "needs_approval"
    assert (f'mcp-chat: not run: notes.write(path="{target}") needs web_user\'s approval. Run it this once with '
            "--allow notes/write; keep it allowed by answering [a]lways at a terminal, or with PUT "
            '/chat/web_user/approvals/policy/notes/write {"decision": "allow", "scope": "always"} to the gateway.'
            ) in done.stderr


def test_ask_with_allow_runs_the_tool_this_time_only(tmp_path, fake_llm):
    first, second = tmp_path / "first", tmp_path / "second"
    question = _write_and_look(fake_llm, first)
    done = ask(tmp_path, fake_llm.url, "--allow", "notes/write", question)
    assert done.returncode == 0, done.stderr
    assert first.exists() and "not run" not in done.stderr
    question = _write_and_look(fake_llm, second)
    done = ask(tmp_path, fake_llm.url, question)
    assert not second.exists() and "not run: notes.write" in done.stderr  # nothing was kept
    bad = ask(tmp_path, fake_llm.url, "--allow", "notes", "Hi")
    assert bad.returncode == 2 and "'notes' is not server/tool" in bad.stderr


def test_ask_at_a_terminal_asks_and_always_keeps_the_rule_the_gateway_lists(tmp_path, fake_llm):
    denied, kept, later = tmp_path / "denied", tmp_path / "kept", tmp_path / "later"
    question = _write_and_look(fake_llm, denied)
    stdout, shown = ask_at_a_terminal(tmp_path, fake_llm.url, "n", "--json", question)
    assert f'run notes.write(path="{denied}")? [y]es once / [a]lways / [n]o ' in shown
    assert not denied.exists() and Path(f"{denied}.looked").exists()  # only the write was asked about
    assert [call["reason"] for call in json.loads(stdout)["tool_calls"]] == ["", "denied"]
    question = _write_and_look(fake_llm, kept)
    stdout, shown = ask_at_a_terminal(tmp_path, fake_llm.url, "a", "--user", "ada", question)
    assert kept.exists() and "not run" not in shown
    # Kept as the PUT endpoint keeps it: a gateway on the same data lists it, and the next ask needs no terminal.
    gateway = GatewayProcess(tmp_path / "gateway", {"notes": ANNOTATED_SERVER}, fake_llm.url,
                             MCP_CHAT_DATA_DIR=str(tmp_path / "data"))
    try:
        rules = httpx.get(f"{gateway.url}/chat/ada/approvals/policy", timeout=30).json()["rules"]
    finally:
        gateway.stop()
    assert [(rule["server"], rule["tool"], rule["decision"], rule["scope"]) for rule in rules] == [
        ("notes", "write", "allow", "always")]
    question = _write_and_look(fake_llm, later)
    done = ask(tmp_path, fake_llm.url, "--user", "ada", question)
    assert later.exists() and "not run" not in done.stderr, done.stderr
