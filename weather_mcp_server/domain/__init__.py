"""What the tools decide, independent of MCP: the asked days and hours, verdicts, units, air quality indices."""
