"""MCP server with weather tools backed by Open-Meteo (or a labelled simulation when offline)."""
