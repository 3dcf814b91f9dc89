"""An OAuth-protected MCP server that tells each caller who it acts for: `whoami` returns the access token's
subject (the person who consented at oauth_authorization_server.py). The resource-server side is the weather
server's (`weather_mcp_server.http_auth`: protected-resource metadata, RFC 7662 introspection, RFC 8707 audience).

Run: python tests/gateway/oauth_identity_server.py PORT AUTHORIZATION_SERVER_URL
"""

import sys

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

from weather_mcp_server.http_auth import HttpAuthSettings, server_auth_options

if __name__ == "__main__":
    port, issuer = int(sys.argv[1]), sys.argv[2]
    settings = HttpAuthSettings(oauth_issuer=issuer, introspection_url=f"{issuer}/introspect",
                                resource_url=f"http://127.0.0.1:{port}/mcp", required_scopes=("weather",),
                                client_id="weather-rs", client_secret="rs-secret")
    server = MCPServer("identity", **server_auth_options(settings))

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def whoami() -> str:
        """Who the caller's access token was issued to."""
        token = get_access_token()
        return f"subject={token.subject if token else None}"

    server.run("streamable-http", host="127.0.0.1", port=port)
