"""Start the engine and serve the app with uvicorn (what `llm-backend serve` runs)."""
from __future__ import annotations

import logging

import uvicorn

from llm_backend.config import EngineConfig
from llm_backend.engine.async_engine import AsyncLLMEngine
from llm_backend.server.app import build_app
from llm_backend.server.options import ServeOptions

log = logging.getLogger(__name__)


def serve(config: EngineConfig, options: ServeOptions) -> None:
    """Load the model, then serve until interrupted; the app's lifespan runs the engine loop."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    engine = AsyncLLMEngine(config)
    served_name = config.served_model_name or config.model
    app = build_app(engine, engine.tokenizer, served_name, engine.max_model_len,
                    engine.model_config.vocab_size, options)
    log.info("serving %s on http://%s:%d/v1 (max_model_len %d, %s)", served_name, options.host, options.port,
             engine.max_model_len, "API key required" if options.api_key else "no API key")
    uvicorn.run(app, host=options.host, port=options.port, log_level="warning", timeout_graceful_shutdown=5)
