"""The MCP side of the gateway: the servers, their connections, and what their tools return."""
