"""GET /openapi.json: the server's OpenAPI 3.1 description.

Request bodies are generated from the pydantic models in `protocol.py`, so the document
cannot drift from what the parser accepts, and a fuzzer driven by it (schemathesis)
exercises exactly the validation the server runs. `model` is pinned to the served name,
because any other value is, by design, a 404.
"""
from __future__ import annotations

from typing import Any

from pydantic.json_schema import models_json_schema

from llm_backend.server.lifetime import TIMEOUT_HEADER
from llm_backend.server.protocol import ChatCompletionRequest, CompletionRequest, TokenizeRequest

_JSON = "application/json"
_ERROR_STATUSES = {"400": "The request is invalid (the body says which field and why).",
                   "401": "The server has an API key and the request did not send it.",
                   "404": "The model does not exist.",
                   "413": "The request body, or the prompt in tokens, is larger than the server's limit."}
_TIMEOUT_PARAMETER = {
    "name": TIMEOUT_HEADER, "in": "header", "required": False,
    "description": "Seconds after which the server aborts the request (a 504, or an error event in a stream).",
    "schema": {"type": "number", "exclusiveMinimum": 0}}

_ERROR_SCHEMA = {
    "type": "object", "required": ["error"],
    "properties": {"error": {
        "type": "object", "required": ["message", "type", "param", "code"],
        "properties": {"message": {"type": "string"}, "type": {"type": "string"},
                       "param": {"type": ["string", "null"]}, "code": {"type": ["string", "null"]}}}}}

# One server-sent event: `data` is a JSON chunk (or an error object, or `[DONE]`).
_SSE_EVENT_SCHEMA = {"type": "object", "required": ["data"], "properties": {"data": {"type": "string"}}}

_COMPLETION_SCHEMA = {
    "type": "object", "required": ["id", "object", "created", "model", "choices", "usage"],
    "properties": {"id": {"type": "string"}, "object": {"type": "string"},
                   "created": {"type": "integer"}, "model": {"type": "string"},
                   "choices": {"type": "array", "items": {"type": "object"}},
                   "usage": {"type": "object", "required": ["prompt_tokens", "completion_tokens",
                                                            "total_tokens"]}}}


def openapi_spec(served_model_name: str, debug_endpoints: bool = False) -> dict[str, Any]:
    """The whole document for a server that serves `served_model_name`."""
    refs, definitions = models_json_schema(
        [(model, "validation") for model in (ChatCompletionRequest, CompletionRequest, TokenizeRequest)],
        ref_template="#/components/schemas/{model}")
    schemas = definitions["$defs"]
    for name in ("ChatCompletionRequest", "CompletionRequest"):
        schemas[name]["properties"]["model"] = {"type": "string", "enum": [served_model_name]}
    schemas["TokenizeRequest"]["properties"]["model"] = {
        "anyOf": [{"type": "string", "enum": [served_model_name]}, {"type": "null"}]}
    schemas["Error"] = _ERROR_SCHEMA
    schemas["Completion"] = _COMPLETION_SCHEMA

    def body(model: type) -> dict:
        return {"required": True, "content": {_JSON: {"schema": refs[(model, "validation")]}}}

    generation_ok = {"description": "The completion; a server-sent event stream when `stream` is true.",
                     "content": {_JSON: {"schema": {"$ref": "#/components/schemas/Completion"}},
                                 "text/event-stream": {"schema": _SSE_EVENT_SCHEMA}}}
    generation_errors = {**_errors(), "504": _json_ok("The request's X-Request-Timeout passed.",
                                                      {"$ref": "#/components/schemas/Error"})}
    paths = {
        "/v1/chat/completions": {"post": {
            "operationId": "createChatCompletion", "requestBody": body(ChatCompletionRequest),
            "parameters": [_TIMEOUT_PARAMETER], "responses": {"200": generation_ok, **generation_errors}}},
        "/v1/completions": {"post": {
            "operationId": "createCompletion", "requestBody": body(CompletionRequest),
            "parameters": [_TIMEOUT_PARAMETER], "responses": {"200": generation_ok, **generation_errors}}},
        "/tokenize": {"post": {
            "operationId": "tokenize", "requestBody": body(TokenizeRequest),
            "responses": {"200": _json_ok("The token ids.", {
                "type": "object", "required": ["tokens", "count", "max_model_len"],
                "properties": {"tokens": {"type": "array", "items": {"type": "integer"}},
                               "count": {"type": "integer"},
                               "max_model_len": {"type": "integer"}}}), **_errors()}}},
        "/v1/models": {"get": {"operationId": "listModels", "responses": {"200": _json_ok(
            "The served model.", {"type": "object", "required": ["object", "data"]})}}},
        "/health": {"get": {"operationId": "health", "responses": {"200": _json_ok(
            "The server is up.", {"type": "object", "required": ["status"]})}}},
        "/metrics": {"get": {"operationId": "metrics", "responses": {"200": {
            "description": "Prometheus text exposition (loopback clients, or with the API key).",
            "content": {"text/plain": {"schema": {"type": "string"}}}}}}},
    }
    if debug_endpoints:
        paths["/debug/kv_cache"] = {"get": {"operationId": "kvCacheReport", "responses": {"200": _json_ok(
            "The KV pool audited between two engine steps (with --debug-endpoints).", {
                "type": "object",
                "required": ["total", "free", "cached", "in_use", "peak_in_use", "problems"],
                "properties": {"problems": {"type": "array", "items": {"type": "string"}}}})}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "llm_backend", "version": "1.0",
                 "description": "OpenAI-compatible local inference server."},
        "paths": paths,
        "components": {"schemas": schemas},
    }


def _json_ok(description: str, schema: dict) -> dict:
    return {"description": description, "content": {_JSON: {"schema": schema}}}


def _errors() -> dict:
    return {status: _json_ok(description, {"$ref": "#/components/schemas/Error"})
            for status, description in _ERROR_STATUSES.items()}
