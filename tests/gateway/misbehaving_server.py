"""Stdio "MCP servers" that break the protocol, for the gateway's fault tests.

Run: python tests/gateway/misbehaving_server.py mute|garbage
- mute: reads every request and never answers;
- garbage: answers every line with a line that is not JSON-RPC.
"""

import sys


def main(mode: str) -> None:
    for _ in sys.stdin:
        if mode == "garbage":
            sys.stdout.write("<html>502 Bad Gateway</html> \x00\x01 not json\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1])
