"""Model weights: the model store, GGUF and safetensors loaders, and the tokenizer.

``load_checkpoint(model, dtype)`` is the entry point the engine uses.
"""
from llm_backend.weights.checkpoint import Checkpoint, load_checkpoint
from llm_backend.weights.model_config import ModelConfig
from llm_backend.weights.model_store import ModelStoreError, pull, pull_main, resolve_model
from llm_backend.weights.tokenizer import Tokenizer

__all__ = ["Checkpoint", "ModelConfig", "ModelStoreError", "Tokenizer", "load_checkpoint", "pull", "pull_main",
           "resolve_model"]
