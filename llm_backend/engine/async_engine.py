"""An asyncio front for `LLMEngine`: the step loop runs on its own thread.

That thread also builds the engine (loads the model), so it is the only thread that runs OpenMP
regions: libgomp keeps a thread pool per thread that starts regions, and once it manages more
threads than there are CPUs it stops spinning between regions, so every matmul wakes a sleeping
thread (on 2 cores, a model loaded on the main thread and stepped on this one decoded ~25% slower).

Coroutines never touch the engine directly; they post "add"/"abort" commands that the
loop thread applies between steps, and the loop thread hands each `RequestOutput` back
to the requesting coroutine's event loop. Closing or cancelling a `generate` iterator
posts an abort, so the request's KV blocks are freed before the next step.
"""
from __future__ import annotations

import asyncio
import logging
import threading
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from llm_backend.config import EngineConfig
from llm_backend.engine.llm_engine import ConstraintFactory, LLMEngine
from llm_backend.engine.outputs import EngineStats, RequestOutput
from llm_backend.engine.sampling_params import SamplingParams
from llm_backend.engine.sequence import CacheScope

log = logging.getLogger(__name__)


@dataclass
class _Stream:
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue


class _Aborted:
    """Marks the end of a stream whose request was aborted through `abort`."""


class AsyncLLMEngine:
    def __init__(self, config: EngineConfig, checkpoint: Any = None) -> None:
        """Build the engine on the loop thread (see the module docstring); it steps once `start`ed."""
        self._commands: deque[tuple] = deque()
        self._wakeup = threading.Event()
        self._started = threading.Event()
        self._streams: dict[str, _Stream] = {}
        self._stopping = False
        built: list[LLMEngine | BaseException] = []
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(config, checkpoint, built, ready),
                                        name="llm-engine-loop", daemon=True)
        self._thread.start()
        ready.wait()
        if isinstance(built[0], BaseException):
            self._thread.join()
            raise built[0]
        self.engine = built[0]
        self.tokenizer = self.engine.tokenizer
        self.model_config = self.engine.model_config
        self.max_model_len = self.engine.max_model_len

    def start(self) -> None:
        self._started.set()

    def shutdown(self) -> None:
        self._stopping = True
        self._started.set()
        self._wakeup.set()
        self._thread.join()

    def stats(self) -> EngineStats:
        return self.engine.stats()

    def check_request(self, prompt_token_ids: list[int], params: SamplingParams) -> None:
        """Validate up front (e.g. before an HTTP stream starts); raises ValueError."""
        self.engine.check_request(prompt_token_ids, params)

    async def generate(self, request_id: str, prompt_token_ids: list[int], params: SamplingParams,
                       constraint_factory: ConstraintFactory | None = None,
                       cache_scope: CacheScope = CacheScope()) -> AsyncIterator[RequestOutput]:
        """Stream the request's outputs until all `n` choices finish. Bad input raises ValueError."""
        if request_id in self._streams:
            raise ValueError(f"request id {request_id!r} is already in use")
        self.engine.check_request(prompt_token_ids, params)
        stream = _Stream(asyncio.get_running_loop(), asyncio.Queue())
        self._streams[request_id] = stream
        self._post(("add", request_id, prompt_token_ids, params, constraint_factory, cache_scope))
        num_finished = 0
        try:
            while num_finished < params.n:
                item = await stream.queue.get()
                if isinstance(item, Exception):
                    raise item
                if isinstance(item, _Aborted):
                    return
                num_finished += item.finished
                yield item
        finally:
            if num_finished < params.n:
                self._post(("abort", request_id))
            self._streams.pop(request_id, None)

    async def abort(self, request_id: str) -> None:
        """Abort a request; its `generate` iterator ends without further outputs."""
        self._post(("abort", request_id))
        self._deliver(request_id, _Aborted())

    async def kv_cache_report(self) -> dict:
        """The KV pool's audit, taken on the loop thread between two steps, so never mid-step."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future = loop.create_future()
        self._post(("report", loop, future))
        return await future

    # ---- loop thread ------------------------------------------------------------------
    def _post(self, command: tuple) -> None:
        self._commands.append(command)
        self._wakeup.set()

    def _deliver(self, request_id: str, item: object) -> None:
        stream = self._streams.get(request_id)
        if stream is not None:
            stream.loop.call_soon_threadsafe(stream.queue.put_nowait, item)

    def _run(self, config: EngineConfig, checkpoint: Any, built: list, ready: threading.Event) -> None:
        try:
            built.append(LLMEngine(config, checkpoint))
        except BaseException as error:  # raised again by __init__, on the caller's thread
            built.append(error)
            return
        finally:
            ready.set()
        self._started.wait()
        while not self._stopping:
            self._apply_commands()
            if not self.engine.has_unfinished_requests():
                self._wakeup.wait()
                self._wakeup.clear()
                continue
            try:
                outputs = self.engine.step()
            except Exception as error:  # a failed step must not leave clients hanging
                log.exception("engine step failed; aborting its requests")
                self._fail_all(error)
                continue
            for output in outputs:
                self._deliver(output.request_id, output)

    def _apply_commands(self) -> None:
        while self._commands:
            command = self._commands.popleft()
            if command[0] == "abort":
                self.engine.abort_request(command[1])
                continue
            if command[0] == "report":
                _, loop, future = command
                loop.call_soon_threadsafe(_resolve, future, self.engine.kv_cache_report())
                continue
            _, request_id, prompt_token_ids, params, constraint_factory, cache_scope = command
            try:
                self.engine.add_request(request_id, prompt_token_ids, params, constraint_factory, cache_scope)
            except Exception as error:
                self._deliver(request_id, error)

    def _fail_all(self, error: Exception) -> None:
        for request_id in self.engine.unfinished_request_ids():
            self.engine.abort_request(request_id)
            self._deliver(request_id, RuntimeError(f"engine step failed: {error}"))


def _resolve(future: asyncio.Future, value: object) -> None:
    if not future.done():  # the asking request may have gone away meanwhile
        future.set_result(value)
