"""Flask gateway: discovers MCP servers, lets an LLM pick tools, calls them, and answers."""

from mcp_chat_app.app import create_app

__all__ = ["create_app"]
