"""`python -m weather_mcp_server`: the `weather-mcp` command."""

from weather_mcp_server.cli import main

if __name__ == "__main__":
    main()
