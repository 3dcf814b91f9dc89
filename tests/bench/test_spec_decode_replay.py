"""`bench.spec_decode_bench --requests`: captured chat completions replayed on SmolLM2, with and without drafts.

A hand-made capture file in bench/capture_proxy.py's format holds a writer request (a regex, a cache salt, a
temperature that the replay turns greedy), a router request (tools, a call required), the gateway's warm-up
(max_tokens 1), one the server would refuse, and one the backend failed (status 500)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from tests.support.gateway_processes import REPO

REPORTS = ("Weather in Paris: 12°C, light rain, wind 14 km/h NW, humidity 81%. Weather in Lyon: 15°C, sunny, wind "
           "6 km/h S, humidity 55%.")
WRITER = {"model": "smollm2-135m-instruct", "max_tokens": 40, "temperature": 0.7, "stream": True,
          "stream_options": {"include_progress": True}, "cache_salt": "user-1", "cache_shared_messages": 1,
          "structured_outputs": {"regex": r"Copied: Weather in Paris: 12°C[\s\S]*"},  # no reply starts so unasked
          "messages": [{"role": "system", "content": "Quote the reports exactly."},
                       {"role": "user", "content": f"{REPORTS}\nRepeat the two reports exactly."}]}
TOOLS = [{"type": "function", "function": {
    "name": "get_current_weather", "description": "Current conditions in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
ROUTER = {"model": "smollm2-135m-instruct", "max_tokens": 48, "temperature": 0, "tools": TOOLS,
          "tool_choice": "required", "messages": [{"role": "user", "content": "Weather in Paris and Lyon right now?"}]}
WARM_UP = {"model": "smollm2-135m-instruct", "max_tokens": 1, "messages": [{"role": "user", "content": "ping"}]}
REFUSED = {**ROUTER, "tool_choice": {"type": "function", "function": {"name": "no_such_tool"}}}


def capture_line(request: dict, status: int = 200) -> str:
    return json.dumps({"at": "2026-12-02T19:40:00.000+00:00", "request": request, "status": status,
                       "stream": bool(request.get("stream")), "usage": None, "first_byte_s": 0.5, "total_s": 1.0,
                       "complete": True}, ensure_ascii=False)


def table_rows(output: str) -> dict[str, list[str]]:
    """The summary table's rows with drafts on, by kind of pass."""
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in output.splitlines()
            if line.startswith("| writer") or line.startswith("| router")]
    return {row[0]: row for row in rows if row[2] != "0"}


def test_replay_keeps_each_request_constraint_and_reports_identical_tokens_with_drafts(tmp_path):
    capture = tmp_path / "prompts.jsonl"
    lines = [capture_line(WRITER), capture_line(ROUTER), capture_line(WARM_UP), capture_line(REFUSED),
             capture_line(WRITER, status=500)]
    capture.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "bench.spec_decode_bench", "--model", "smollm2-135m-instruct",
                          "--requests", str(capture), "--num-speculative-tokens", "2", "--rounds", "1"],
                         cwd=REPO, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    output = run.stdout
    assert "request 3 skipped: max_tokens 1" in output
    assert re.search(r"request 4 skipped: refused: .*no_such_tool", output)
    assert "request 5" not in output  # the backend's failures are not replayed
    # The regex the writer request carried holds its reply; the router's grammar makes it call the tool.
    assert re.search(r"^\[1/2\] writer, \d+ prompt tokens: ['\"]Copied: Weather in Paris: 12°C", output, re.M)
    assert re.search(r"^\[2/2\] router, \d+ prompt tokens: .*get_current_weather", output, re.M)
    assert "NOT IDENTICAL" not in output
    rows = table_rows(output)
    assert set(rows) == {"writer", "router"}
    for row in rows.values():
        assert row[1:3] == ["1", "2"] and row[4] == "1/1"
    accepted, drafted = map(int, re.match(r"(\d+)/(\d+) ", rows["writer"][5]).groups())
    assert 0 < accepted <= drafted  # a copying writer drafts, and some drafts stand
