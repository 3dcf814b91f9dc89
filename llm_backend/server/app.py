"""The Starlette application: routes and error handlers of the OpenAI-compatible server."""
from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any, AsyncIterator

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from llm_backend.server import errors
from llm_backend.server.access import AccessControl
from llm_backend.server.chat import create_chat_completion
from llm_backend.server.chat_render import render_chat
from llm_backend.server.completions import create_completion
from llm_backend.server.metrics import ServerMetrics, render_prometheus
from llm_backend.server.openapi import openapi_spec
from llm_backend.server.options import ServeOptions
from llm_backend.server.protocol import TokenizeRequest
from llm_backend.server.state import ServerState
from llm_backend.structured.grammars import GrammarCache

_STARTED = int(time.time())


def build_app(engine: Any, tokenizer: Any, served_model_name: str, max_model_len: int,
              vocab_size: int, options: ServeOptions) -> Starlette:
    """The ASGI app around an AsyncLLMEngine; the app starts and stops the engine's loop."""
    state = ServerState(
        engine=engine, tokenizer=tokenizer, served_model_name=served_model_name,
        max_model_len=max_model_len,
        grammars=GrammarCache(tokenizer.hf_tokenizer, vocab_size, list(tokenizer.eos_token_ids)),
        metrics=ServerMetrics(), debug_endpoints=options.debug_endpoints,
        max_prompt_tokens=options.max_prompt_tokens)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        engine.start()
        try:
            yield
        finally:
            engine.shutdown()

    routes = [
        Route("/health", health, methods=["GET"]),
        Route("/v1/models", list_models, methods=["GET"]),
        Route("/v1/chat/completions", create_chat_completion, methods=["POST"]),
        Route("/v1/completions", create_completion, methods=["POST"]),
        Route("/tokenize", tokenize, methods=["POST"]),
        Route("/metrics", metrics, methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
    ]
    if options.debug_endpoints:  # the pool's layout is nobody's business in production
        routes.append(Route("/debug/kv_cache", kv_cache, methods=["GET"]))
    app = Starlette(
        routes=routes,
        middleware=[Middleware(AccessControl, api_key=options.api_key)],
        exception_handlers={
            errors.OpenAIError: errors.handle_openai_error,
            HTTPException: errors.handle_http_exception,
            ClientDisconnect: errors.handle_client_disconnect,
            Exception: errors.handle_unexpected,
        },
        lifespan=lifespan)
    app.state.server = state
    return app


async def health(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def list_models(request: Request) -> Response:
    state: ServerState = request.app.state.server
    return JSONResponse({"object": "list", "data": [
        {"id": state.served_model_name, "object": "model", "created": _STARTED,
         "owned_by": "llm_backend", "max_model_len": state.max_model_len}]})


async def metrics(request: Request) -> Response:
    state: ServerState = request.app.state.server
    text = render_prometheus(state.metrics, state.engine.stats(), state.served_model_name)
    return PlainTextResponse(text, media_type="text/plain; version=0.0.4")


async def kv_cache(request: Request) -> Response:
    """The KV pool audited between two engine steps: free, cached and in-use blocks, and problems."""
    state: ServerState = request.app.state.server
    return JSONResponse(await state.engine.kv_cache_report())


async def openapi(request: Request) -> Response:
    state: ServerState = request.app.state.server
    return JSONResponse(openapi_spec(state.served_model_name, state.debug_endpoints))


async def tokenize(request: Request) -> Response:
    """Token ids of a raw `prompt`, or of `messages` rendered through the chat template."""
    state: ServerState = request.app.state.server
    req = await errors.parse_request_model(request, TokenizeRequest)
    state.check_model(req.model)
    if (req.prompt is None) == (req.messages is None):
        raise errors.bad_request("Send exactly one of 'prompt' or 'messages'.")
    text = req.prompt if req.prompt is not None else render_chat(
        state.tokenizer, req.messages, None, req.add_generation_prompt)
    tokens = await asyncio.to_thread(state.tokenizer.encode, text, add_special_tokens=req.prompt is not None)
    return JSONResponse({"tokens": tokens, "count": len(tokens),
                         "max_model_len": state.max_model_len})
