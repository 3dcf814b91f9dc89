"""Where the numbers come from: Open-Meteo, the simulator, or (`auto`) Open-Meteo with a labelled fallback."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from weather_mcp_server.config import Settings
from weather_mcp_server.errors import UpstreamUnreachable
from weather_mcp_server.models import OPEN_METEO_ATTRIBUTION, Location
from weather_mcp_server.sources.open_meteo import AIR_QUALITY_DAYS, MAX_FORECAST_DAYS, OpenMeteoClient
from weather_mcp_server.sources.payload import Payload
from weather_mcp_server.sources.simulated import simulated_forecast
from weather_mcp_server.sources.simulated_air import simulated_air_quality

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Sourced:
    """Payloads (one per requested place) and their provenance."""

    payloads: list[Payload]
    source: Literal["open-meteo", "simulated"]
    fell_back: bool = False  # simulated because Open-Meteo could not be reached (`auto` mode)

    @property
    def attribution(self) -> str | None:
        """Open-Meteo's CC BY 4.0 attribution, when the data is theirs."""
        return OPEN_METEO_ATTRIBUTION if self.source == "open-meteo" else None


class WeatherProvider:
    """Applies WEATHER_PROVIDER: `simulated`, strict `open-meteo`, or `auto` (remembers an outage for a while)."""

    def __init__(self, settings: Settings, client: OpenMeteoClient) -> None:
        self._settings = settings
        self._client = client
        self._unreachable_until = 0.0

    @property
    def online(self) -> bool:
        """Whether Open-Meteo (forecast or geocoding) is worth asking right now."""
        if self._settings.provider == "simulated":
            return False
        return self._settings.provider == "open-meteo" or time.monotonic() >= self._unreachable_until

    async def forecast(self, location: Location, past_days: int = 0) -> Sourced:
        """Current + `past_days` and 16 days daily/hourly for one place."""
        fetched = await self._upstream(lambda: self._client.forecast(location.latitude, location.longitude, past_days))
        if fetched is not None:
            return Sourced([Payload(fetched, past_days)], "open-meteo")
        return self._simulated(simulated_forecast, [location], MAX_FORECAST_DAYS, past_days)

    async def air_quality(self, location: Location, past_days: int) -> Sourced:
        """Current and hourly air quality for one place, from `past_days` ago through the forecast's days."""
        fetched = await self._upstream(
            lambda: self._client.air_quality(location.latitude, location.longitude, past_days))
        if fetched is not None:
            return Sourced([Payload(fetched, past_days)], "open-meteo")
        return self._simulated(simulated_air_quality, [location], AIR_QUALITY_DAYS, past_days)

    async def daily_many(self, locations: list[Location], days: int, past_days: int = 0) -> Sourced:
        """Daily temperatures for many places, one upstream request."""
        coordinates = [(loc.latitude, loc.longitude) for loc in locations]
        fetched = await self._upstream(lambda: self._client.daily_many(coordinates, days, past_days))
        if fetched is not None:
            return Sourced([Payload(p, past_days) for p in fetched], "open-meteo")
        return self._simulated(simulated_forecast, locations, days, past_days)

    async def _upstream(self, fetch: Callable[[], Awaitable[Any]]) -> Any:
        """Open-Meteo's answer, or None when the simulator is to answer (simulated mode, or an outage in `auto`)."""
        if not self.online:
            return None
        try:
            return await fetch()
        except UpstreamUnreachable as exc:
            self._fall_back(exc)
            return None

    def note_unreachable(self, error: UpstreamUnreachable) -> None:
        """Record an outage seen elsewhere (geocoding), or re-raise it in strict mode."""
        self._fall_back(error)

    def _fall_back(self, error: UpstreamUnreachable) -> None:
        if self._settings.provider == "open-meteo":
            raise error
        self._unreachable_until = time.monotonic() + self._settings.unreachable_ttl_s
        log.warning("%s; serving simulated weather for %.0f s", error, self._settings.unreachable_ttl_s)

    def _simulated(self, simulate: Callable[..., dict[str, Any]], locations: list[Location], days: int,
                   past_days: int) -> Sourced:
        payloads = [Payload(simulate(p.latitude, p.longitude, p.timezone, days, past_days=past_days), past_days)
                    for p in locations]
        return Sourced(payloads, "simulated", fell_back=self._settings.provider == "auto")
