"""The one build step pyproject.toml cannot declare: the wheel carries the repository's configs/ (the gateway's
defaults) as mcp_chat_app/default_configs/, so configs/ stays their single source (see mcp_chat_app/config.py)."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

# What the gateway reads; the *.example.json files are for other MCP hosts, user_tokens.json is per install.
DEFAULT_CONFIGS = ("mcp_servers.json", "models.json", "assistant.json")


class BuildPyWithDefaultConfigs(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "mcp_chat_app" / "default_configs"
        self.mkpath(str(target))
        for name in DEFAULT_CONFIGS:
            self.copy_file(str(Path("configs") / name), str(target / name))


setup(cmdclass={"build_py": BuildPyWithDefaultConfigs})
