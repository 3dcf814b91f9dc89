"""The warm-up: the LLM's prefix cache filled with the fixed start of the router's and the writer's prompts (system
prompt and tool list) before the first question, and again in the background whenever the tool list changes.

On a slow CPU the router's prompt takes minutes to read the first time; warmed, a question pays only for its own
tokens. The prompts are the pipeline's own (`ChatPipeline.warm_up`), so they stay byte-identical to a real turn's.
`/health` shows the state and the tokens read so far; `mcp-chat up` waits for it before it says "ready".
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Literal

from mcp_chat_app.chat.pipeline import ChatPipeline
from mcp_chat_app.llm.client import LlmUnreachable, PrefillProgress, set_progress_listener
from mcp_chat_app.mcp_client.manager import McpManager

State = Literal["idle", "warming", "ready", "failed"]

log = logging.getLogger(__name__)


class WarmUp:
    """idle (not started) → warming → ready, or failed (the first question then pays the prefill); back to warming
    when the tools change, and, while the LLM cannot be reached (a backend started after the gateway, or still
    loading), again and again with a growing pause. Thread-safe: one thread warms, /health reads."""

    def __init__(self, manager: McpManager, pipeline: ChatPipeline, poll_s: float = 2.0,
                 tools_wait_s: float = 60.0, retry_s: tuple[float, float] = (2.0, 60.0)) -> None:
        """`poll_s`: how often the tool list is compared with the warmed one; `tools_wait_s`: how long the first
        warm-up waits for the servers to list their tools (the router's prompt includes them); `retry_s`: the first
        and the longest pause before warming again after the LLM could not be reached."""
        self._manager = manager
        self._pipeline = pipeline
        self._poll_s = poll_s
        self._tools_wait_s = tools_wait_s
        self._retry_s = retry_s
        self._lock = threading.Lock()
        self._state: State = "idle"
        self._error: str | None = None
        self._calls: dict[str, tuple[int, int]] = {}  # each warm-up call's (done, total) prompt tokens
        self._closed = threading.Event()

    def start(self) -> None:
        """Warm now, and after every change of the tool list, on a background thread, until `close`."""
        with self._lock:
            self._state = "warming"
        threading.Thread(target=self._run, name="warm-up", daemon=True).start()

    def close(self) -> None:
        self._closed.set()

    def status(self) -> dict[str, Any]:
        """`state`, the prompt tokens the backend has read of the warm-up's calls (`done` of `total`, 0 without
        progress reports) and, once failed, the `error`."""
        with self._lock:
            return {"state": self._state, "done": sum(done for done, _ in self._calls.values()),
                    "total": sum(total for _, total in self._calls.values()), "error": self._error}

    def _run(self) -> None:
        set_progress_listener(self._heard)  # this thread's context: the warm-up's calls only
        deadline = time.monotonic() + self._tools_wait_s
        while not self._manager.tools() and time.monotonic() < deadline and not self._closed.wait(0.5):
            pass
        warmed, retry_at, pause = None, None, self._retry_s[0]
        while not self._closed.is_set():
            prompt_inputs = (self._manager.tools(), self._manager.instructions())
            if prompt_inputs != warmed or (retry_at is not None and time.monotonic() >= retry_at):
                unreachable = self._warm()
                warmed = prompt_inputs  # any other failure is not retried until the tools change again
                retry_at = time.monotonic() + pause if unreachable else None
                pause = min(2 * pause, self._retry_s[1]) if unreachable else self._retry_s[0]
            self._closed.wait(self._poll_s)  # a retry is due at most one poll late

    def _warm(self) -> bool:
        """Warm once; True if it failed because the LLM could not be reached (worth trying again unchanged)."""
        with self._lock:
            self._state, self._error, self._calls = "warming", None, {}
        try:
            self._pipeline.warm_up()
        except Exception as error:  # boundary: a thread of its own; the first question pays the prefill instead
            log.warning("warm-up failed: %s", error)
            with self._lock:
                self._state, self._error = "failed", f"{type(error).__name__}: {error}"
            return isinstance(error, LlmUnreachable)  # a refusal, a timeout or garbage would come again
        with self._lock:
            self._state = "ready"
        return False

    def _heard(self, progress: PrefillProgress) -> None:
        with self._lock:
            self._calls[progress.call] = (progress.done, progress.total)
