"""`mcp-chat up`: the whole assistant (llm-backend, gateway, MCP servers) from one command, as processes."""
