"""The file `mcp dev weather_mcp_server/inspector.py` (and `mcp run`) loads: the SDK's CLI takes an MCPServer object
from a file, not a factory. Nothing else imports this module."""

from weather_mcp_server.server import create_server

server = create_server()
