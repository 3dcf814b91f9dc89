"""The resources: the default city set, and a city's 7-day forecast, as JSON."""

from __future__ import annotations

import json

from mcp.server.mcpserver import MCPServer

from weather_mcp_server.domain.service import DayQuery, WeatherService
from weather_mcp_server.places.default_cities import MAJOR_CITIES
from weather_mcp_server.places.gazetteer import Gazetteer


def add_resources(server: MCPServer, gazetteer: Gazetteer, service: WeatherService) -> None:
    """Register the resources on `server`."""

    @server.resource("weather://cities", title="Known cities", mime_type="application/json")
    def known_cities() -> str:
        """The default city set of find_cities_by_temperature, with Chinese and English names."""
        cities = [gazetteer.lookup(english) for _, english in MAJOR_CITIES]
        return json.dumps([c.model_dump() for c in cities if c is not None], ensure_ascii=False)

    @server.resource("weather://forecast/{city}", title="City forecast", mime_type="application/json")
    async def city_forecast(city: str) -> str:
        """A 7-day forecast for the city as JSON."""
        return (await service.forecast(city, DayQuery(days=7))).model_dump_json()
