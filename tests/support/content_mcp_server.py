"""An MCP server whose tool returns audio, the one content type @modelcontextprotocol/server-everything (which
the content tests use for resource links and binary resources) no longer returns.

Run as ``python tests/support/content_mcp_server.py`` (stdio).
"""

import io
import math
import struct
import wave

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.utilities.types import Audio
from mcp_types import ToolAnnotations

server = MCPServer("content")
RATE = 8000


def chime_wav(seconds: float) -> bytes:
    """A 440 Hz tone as a mono 8 kHz WAV file."""
    frames = b"".join(struct.pack("<h", int(12000 * math.sin(2 * math.pi * 440 * n / RATE)))
                      for n in range(int(RATE * seconds)))
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(RATE)
        file.writeframes(frames)
    return buffer.getvalue()


@server.tool(annotations=ToolAnnotations(read_only_hint=True))  # called unasked (approval policy)
def play_chime(seconds: float = 0.25) -> list:
    """A short chime, as audio."""
    return [f"A {seconds:g} second chime.", Audio(data=chime_wav(seconds), format="wav")]


if __name__ == "__main__":
    server.run()
