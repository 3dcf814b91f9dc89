"""A small MCP server whose tools declare what they do (MCP annotations), for the approval-policy tests: one
read-only, one that writes, one destructive; each leaves a trace on disk, so a test sees whether it ran.

Run as ``python tests/support/annotated_mcp_server.py`` (stdio).
"""

from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

server = MCPServer("annotated")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def look(path: str) -> str:
    """Say whether the file at `path` exists (reads only; leaves `path`.looked as the test's trace)."""
    Path(f"{path}.looked").touch()
    return "there" if Path(path).exists() else "missing"


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
def write(path: str) -> str:
    """Create the file at `path` (a change, but nothing is lost)."""
    Path(path).touch()
    return f"wrote {path}"


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
def erase(path: str) -> str:
    """Delete the file at `path` (destructive; leaves `path`.erased as the test's trace)."""
    Path(path).unlink(missing_ok=True)
    Path(f"{path}.erased").touch()
    return f"erased {path}"


if __name__ == "__main__":
    server.run()
