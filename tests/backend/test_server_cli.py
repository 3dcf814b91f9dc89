"""`llm-backend serve` flags: mapping onto EngineConfig, and the `--engine vllm` command line."""
from __future__ import annotations

import sys

import pytest

from llm_backend import cli
from llm_backend.config import EngineConfig
from llm_backend.server.vllm_command import vllm_argv


def test_serve_flags_map_onto_the_engine_config():
    args = cli.build_parser().parse_args([
        "serve", "--model", "qwen2.5-coder-0.5b-instruct", "--dtype", "float32", "--threads", "2",
        "--kv-cache-memory", "256MiB", "--block-size", "32", "--max-num-seqs", "8",
        "--max-num-batched-tokens", "1024", "--max-model-len", "4096", "--no-prefix-caching"])
    config = cli.engine_config(args)
    assert config == EngineConfig(
        model="qwen2.5-coder-0.5b-instruct", dtype="float32", threads=2, kv_cache_memory="256MiB",
        block_size=32, max_num_seqs=8, max_num_batched_tokens=1024, max_model_len=4096,
        enable_prefix_caching=False, served_model_name="qwen2.5-coder-0.5b-instruct")


def test_serve_defaults_follow_engine_config_and_fixed_port():
    args = cli.build_parser().parse_args(["serve"])
    config = cli.engine_config(args)
    assert (args.host, args.port) == ("127.0.0.1", 8000)
    assert config.kv_cache_memory == EngineConfig.kv_cache_memory
    assert config.served_model_name == config.model == EngineConfig.model


def test_vllm_argv_carries_every_flag():
    argv = vllm_argv(model_path="/m/model.gguf", served_model_name="qwen", host="0.0.0.0", port=8000,
                     dtype="bfloat16", block_size=16, max_num_seqs=64, max_num_batched_tokens=2048,
                     max_model_len=8192, kv_cache_memory="2GiB", tokenizer="Qwen/Qwen2.5-0.5B-Instruct",
                     python="/py")
    assert argv[:3] == ["/py", "-m", "vllm.entrypoints.openai.api_server"]
    flags = _flag_values(argv[3:])
    assert flags == {"--model": "/m/model.gguf", "--served-model-name": "qwen", "--host": "0.0.0.0",
                     "--port": "8000", "--dtype": "bfloat16", "--block-size": "16",
                     "--max-num-seqs": "64", "--max-num-batched-tokens": "2048",
                     "--max-model-len": "8192", "--kv-cache-memory-bytes": str(2 * 1024**3),
                     "--tokenizer": "Qwen/Qwen2.5-0.5B-Instruct", "--enable-prefix-caching": None,
                     "--enable-auto-tool-choice": None, "--tool-call-parser": "hermes"}


def test_vllm_argv_leaves_out_unset_options():
    argv = vllm_argv(model_path="m", served_model_name="m", host="h", port=1, dtype="auto",
                     block_size=16, max_num_seqs=1, max_num_batched_tokens=1, max_model_len=None,
                     kv_cache_memory=None, tokenizer=None)
    assert argv[0] == sys.executable
    assert not {"--max-model-len", "--kv-cache-memory-bytes", "--tokenizer"} & set(argv)


def test_engine_vllm_execs_the_built_command(monkeypatch, tmp_path):
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    executed = []
    monkeypatch.setattr(cli.os, "execve", lambda path, argv, env: executed.append((path, argv)))
    cli.main(["serve", "--engine", "vllm", "--model", str(model), "--port", "9001",
              "--served-model-name", "local"])
    path, argv = executed[0]
    assert path == argv[0] == sys.executable
    flags = _flag_values(argv[3:])
    assert flags["--model"] == str(model) and flags["--port"] == "9001"
    assert flags["--served-model-name"] == "local"


def test_engine_vllm_gets_the_api_key_through_its_environment(monkeypatch, tmp_path):
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    executed = []
    monkeypatch.setattr(cli.os, "execve", lambda path, argv, env: executed.append((argv, env)))
    monkeypatch.setenv("LLM_BACKEND_API_KEY", "vllm-key")
    cli.main(["serve", "--engine", "vllm", "--model", str(model), "--host", "0.0.0.0"])
    argv, env = executed[0]
    assert env["VLLM_API_KEY"] == "vllm-key" and "vllm-key" not in " ".join(argv)


def test_unknown_engine_is_refused():
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["serve", "--engine", "tgi"])


def _flag_values(argv: list[str]) -> dict[str, str | None]:
    """{'--flag': value or None for a switch}."""
    flags: dict[str, str | None] = {}
    for i, item in enumerate(argv):
        if item.startswith("--"):
            following = argv[i + 1] if i + 1 < len(argv) else None
            flags[item] = None if following is None or following.startswith("--") else following
    return flags
