"""The MCP side: the server registry, one session per server, the manager over them, OAuth, elicitation."""
