"""The weather server with Open-Meteo answered from recorded payloads (open_meteo_replay.py), for tests: `weather-mcp`
with one more option, `--replay-dir DIR`, beside its own (`--transport http --port N`, ...):

    python -m tests.support.weather_server_replaying --replay-dir tests/fixtures/open_meteo [weather-mcp options]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tests.support.open_meteo_replay import replay_transport
from weather_mcp_server import cli


def main(argv: list[str] | None = None) -> None:
    """`weather-mcp [options]`, its Open-Meteo client answered from `--replay-dir`."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--replay-dir", type=Path, required=True)
    replay, weather_mcp_options = parser.parse_known_args(argv)
    cli.main(weather_mcp_options, http_transport=replay_transport(replay.replay_dir))


if __name__ == "__main__":
    main()
