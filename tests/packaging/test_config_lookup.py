"""Where the gateway finds its config files (mcp_chat_app/config.py): ./configs/ of the working directory, else the
checkout's configs/, else the defaults a wheel carries; MCP_CHAT_* variables over all three."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_chat_app import config
from mcp_chat_app.config import GatewayConfig, config_file


@pytest.fixture()
def places(tmp_path, monkeypatch) -> dict[str, Path]:
    """A working directory, a checkout and a wheel's defaults, each with its own configs folder."""
    dirs = {name: tmp_path / name / "configs" for name in ("cwd", "checkout", "packaged")}
    for directory in dirs.values():
        directory.mkdir(parents=True)
    monkeypatch.chdir(dirs["cwd"].parent)
    monkeypatch.setattr(config, "CONFIG_DIR", dirs["checkout"])
    monkeypatch.setattr(config, "PACKAGED_CONFIG_DIR", dirs["packaged"])
    for name in ("mcp_servers.json", "models.json", "assistant.json"):
        (dirs["packaged"] / name).write_text("{}")
    return dirs


def test_each_file_comes_from_the_first_place_that_has_it(places):
    (places["cwd"] / "mcp_servers.json").write_text("{}")
    (places["checkout"] / "mcp_servers.json").write_text("{}")
    (places["checkout"] / "models.json").write_text("{}")
    loaded = GatewayConfig()
    assert loaded.servers_config == places["cwd"] / "mcp_servers.json"
    assert loaded.models_config == places["checkout"] / "models.json"
    assert loaded.assistant_config == places["packaged"] / "assistant.json"


def test_a_file_found_nowhere_is_written_beside_the_users_configs_never_the_packaged_ones(places):
    assert config_file("user_tokens.json") == places["cwd"] / "user_tokens.json"
    places["cwd"].rmdir()
    assert config_file("user_tokens.json") == places["checkout"] / "user_tokens.json"
    places["checkout"].rmdir()
    assert config_file("user_tokens.json") == Path.cwd() / "configs" / "user_tokens.json"


def test_the_environment_names_a_file_anywhere(places, monkeypatch, tmp_path):
    monkeypatch.setenv("MCP_CHAT_MODELS_CONFIG", str(tmp_path / "mine.json"))
    monkeypatch.delenv("MCP_CHAT_SERVERS_CONFIG", raising=False)
    loaded = GatewayConfig.from_env()
    assert loaded.models_config == tmp_path / "mine.json"
    assert loaded.servers_config == places["packaged"] / "mcp_servers.json"
