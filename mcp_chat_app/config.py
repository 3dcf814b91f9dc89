"""Gateway configuration: environment (.env via python-dotenv) over safe defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from dotenv import load_dotenv

# configs/ sits next to the package in the repository (an editable install keeps it there).
CONFIG_DIR = Path(__file__).resolve().parent.parent / "configs"
# A wheel carries copies of the repository's configs/ here (setup.py's build step); there is no checkout then.
PACKAGED_CONFIG_DIR = Path(__file__).resolve().parent / "default_configs"


def config_file(name: str) -> Path:
    """Config file `name` from ./configs/ of the working directory, else the checkout's configs/, else the
    wheel's defaults. One found nowhere (user_tokens.json before the first token) is to be written in the first
    of ./configs/ and the checkout's configs/ that exists (else ./configs/), never among the packaged defaults."""
    user_dirs = (Path.cwd() / "configs", CONFIG_DIR)
    for directory in (*user_dirs, PACKAGED_CONFIG_DIR):
        if (directory / name).is_file():
            return directory / name
    return next((directory for directory in user_dirs if directory.is_dir()), user_dirs[0]) / name


def _config_path(env_name: str, file_name: str) -> Path:
    return Path(os.environ[env_name]) if os.environ.get(env_name) else config_file(file_name)


@dataclass(frozen=True)
class GatewayConfig:
    """Everything `create_app` needs; build it with `from_env()` or by hand in tests."""

    servers_config: Path = field(default_factory=lambda: config_file("mcp_servers.json"))
    models_config: Path = field(default_factory=lambda: config_file("models.json"))
    # the assistant's name, purpose, writer examples
    assistant_config: Path = field(default_factory=lambda: config_file("assistant.json"))
    profile: str = "local"
    base_url_override: str | None = None
    model_override: str | None = None
    data_dir: Path = Path("data")
    admin_token: str | None = None
    auth: str = "auto"  # user tokens: on, off, or auto = on when `host` is beyond loopback
    tokens_file: Path = field(default_factory=lambda: config_file("user_tokens.json"))
    max_body_bytes: int = 256 * 1024  # an 8000-character message, even \u-escaped, fits
    max_tool_rounds: int = 5
    history_token_budget: int = 1200
    health_interval_s: float = 10.0
    llm_hung_after_s: float = 120.0  # /health calls the LLM hung after this long waiting without a byte back
    elicitation_timeout_s: float = 300.0  # a tool's question to the user is cancelled after this long unanswered
    token_key: str | None = None  # Fernet key for the OAuth tokens at rest; None: they stay in memory
    oauth_idle_s: float = 1800.0  # a user's session to an OAuth server closes after this long without calls
    public_url: str | None = None  # how browsers reach the gateway (OAuth callbacks); default http://127.0.0.1:PORT
    host: str = "127.0.0.1"
    port: int = 8081
    # Fill the LLM's prefix cache with the fixed prompts at start and when the tools change (warm_up.py);
    # None: when the router's endpoint is on loopback.
    warm_up: bool | None = None

    @classmethod
    def from_env(cls, **overrides: object) -> "GatewayConfig":
        """Read `MCP_CHAT_*` variables (after loading `.env` from the working directory)."""
        load_dotenv()
        env = os.environ
        config = cls(
            servers_config=_config_path("MCP_CHAT_SERVERS_CONFIG", "mcp_servers.json"),
            models_config=_config_path("MCP_CHAT_MODELS_CONFIG", "models.json"),
            assistant_config=_config_path("MCP_CHAT_ASSISTANT_CONFIG", "assistant.json"),
            profile=env.get("MCP_CHAT_PROFILE", cls.profile),
            base_url_override=env.get("MCP_CHAT_BASE_URL") or None,
            model_override=env.get("MCP_CHAT_MODEL") or None,
            data_dir=Path(env.get("MCP_CHAT_DATA_DIR", cls.data_dir)),
            admin_token=env.get("MCP_CHAT_ADMIN_TOKEN") or None,
            auth=env.get("MCP_CHAT_AUTH", cls.auth),
            tokens_file=_config_path("MCP_CHAT_TOKENS_FILE", "user_tokens.json"),
            max_body_bytes=int(env.get("MCP_CHAT_MAX_BODY_BYTES", cls.max_body_bytes)),
            max_tool_rounds=int(env.get("MCP_CHAT_MAX_TOOL_ROUNDS", cls.max_tool_rounds)),
            history_token_budget=int(env.get("MCP_CHAT_HISTORY_TOKENS", cls.history_token_budget)),
            health_interval_s=float(env.get("MCP_CHAT_HEALTH_INTERVAL", cls.health_interval_s)),
            llm_hung_after_s=float(env.get("MCP_CHAT_LLM_HUNG_AFTER", cls.llm_hung_after_s)),
            elicitation_timeout_s=float(env.get("MCP_CHAT_ELICITATION_TIMEOUT", cls.elicitation_timeout_s)),
            token_key=env.get("MCP_CHAT_TOKEN_KEY") or None,
            oauth_idle_s=float(env.get("MCP_CHAT_OAUTH_IDLE", cls.oauth_idle_s)),
            public_url=env.get("MCP_CHAT_PUBLIC_URL") or None,
            host=env.get("MCP_CHAT_HOST", cls.host),
            port=int(env.get("MCP_CHAT_PORT", cls.port)),
            warm_up=_switch(env.get("MCP_CHAT_WARM_UP", "")),
        )
        return replace(config, **overrides)  # type: ignore[arg-type]

    @property
    def oauth_callback_url(self) -> str:
        """Where authorization servers send the browser back to (`GET /oauth/callback`)."""
        base = self.public_url or f"http://127.0.0.1:{self.port}"
        return f"{base.rstrip('/')}/oauth/callback"


def _switch(value: str) -> bool | None:
    """An on/off variable: None when unset (the default applies)."""
    if not value:
        return None
    return value.lower() in ("1", "true", "yes", "on")
