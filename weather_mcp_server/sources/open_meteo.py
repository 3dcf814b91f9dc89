"""Async Open-Meteo client (forecast and geocoding): timeouts, bounded retries with backoff, TTL cache."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import httpx

from weather_mcp_server.config import Settings
from weather_mcp_server.errors import UpstreamError, UpstreamUnreachable
from weather_mcp_server.sources.ttl_cache import TTLCache

log = logging.getLogger(__name__)

CURRENT_VARIABLES = (
    "temperature_2m,apparent_temperature,relative_humidity_2m,precipitation,snowfall,weather_code,"
    "cloud_cover,wind_speed_10m,wind_direction_10m,wind_gusts_10m,uv_index,is_day,pressure_msl,visibility,"
    "dew_point_2m"
)
DAILY_VARIABLES = (
    "weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,rain_sum,snowfall_sum,"
    "precipitation_hours,precipitation_probability_max,wind_speed_10m_max,uv_index_max,sunrise,sunset,"
    "daylight_duration,relative_humidity_2m_mean,cloud_cover_mean,pressure_msl_mean,dew_point_2m_mean"
)
HOURLY_VARIABLES = (
    "temperature_2m,apparent_temperature,relative_humidity_2m,precipitation_probability,precipitation,rain,"
    "snowfall,weather_code,cloud_cover,wind_speed_10m,is_day,uv_index,pressure_msl,visibility,dew_point_2m"
)
AIR_QUALITY_VARIABLES = (
    "pm2_5,pm10,ozone,nitrogen_dioxide,sulphur_dioxide,carbon_monoxide,european_aqi,us_aqi,"
    "alder_pollen,birch_pollen,grass_pollen,mugwort_pollen,olive_pollen,ragweed_pollen"  # pollen: Europe only
)
AIR_QUALITY_DAYS = 5  # what the CAMS global forecast covers (Europe's covers 4; the API pads with nulls)
# The multi-city query only compares daily temperatures.
MULTI_CITY_DAILY_VARIABLES = "weather_code,temperature_2m_max,temperature_2m_min"
MAX_FORECAST_DAYS = 16
RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})


class OpenMeteoClient:
    """One shared `httpx.AsyncClient`; pass `transport` (e.g. an `httpx.MockTransport` answering from recordings)
    to stay offline."""

    def __init__(self, settings: Settings, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self._settings = settings
        self._transport = transport
        self._http: httpx.AsyncClient | None = None
        self._cache = TTLCache(settings.cache_ttl_s)

    async def forecast(self, latitude: float, longitude: float, past_days: int = 0) -> dict[str, Any]:
        """Current conditions plus `past_days` and 16 days of daily and hourly data for one place (local time)."""
        params = {
            "latitude": f"{latitude:.4f}",
            "longitude": f"{longitude:.4f}",
            "current": CURRENT_VARIABLES,
            "daily": DAILY_VARIABLES,
            "hourly": HOURLY_VARIABLES,
            "timezone": "auto",
            "forecast_days": str(MAX_FORECAST_DAYS),
            **_past(past_days),
        }
        return await self._one(self._settings.forecast_url, params)

    async def air_quality(self, latitude: float, longitude: float, past_days: int) -> dict[str, Any]:
        """Current and hourly pollutant concentrations and indices for one place (local time), from `past_days`
        ago through the air-quality forecast's days."""
        params = {
            "latitude": f"{latitude:.4f}",
            "longitude": f"{longitude:.4f}",
            "current": AIR_QUALITY_VARIABLES,
            "hourly": AIR_QUALITY_VARIABLES,
            "timezone": "auto",
            "forecast_days": str(AIR_QUALITY_DAYS),
            **_past(past_days),
        }
        return await self._one(self._settings.air_quality_url, params)

    async def daily_many(self, coordinates: list[tuple[float, float]], days: int,
                         past_days: int = 0) -> list[dict[str, Any]]:
        """Daily temperatures for many places in ONE multi-location request; one payload per place, in order."""
        params = {
            "latitude": ",".join(f"{lat:.4f}" for lat, _ in coordinates),
            "longitude": ",".join(f"{lon:.4f}" for _, lon in coordinates),
            "daily": MULTI_CITY_DAILY_VARIABLES,
            "timezone": "auto",
            "forecast_days": str(days),
            **_past(past_days),
        }
        payload = await self._get_json(self._settings.forecast_url, params)
        # A single location comes back as an object, several as a list.
        payloads = [payload] if isinstance(payload, dict) else payload
        if not isinstance(payloads, list) or len(payloads) != len(coordinates):
            raise UpstreamError(
                f"Open-Meteo returned malformed JSON: expected {len(coordinates)} locations in a list"
            )
        return payloads

    async def geocode(self, name: str, language: str) -> list[dict[str, Any]]:
        """Geocoding search results (possibly empty) for a place name."""
        params = {"name": name, "count": "10", "language": language, "format": "json"}
        payload = await self._get_json(self._settings.geocoding_url, params)
        if not isinstance(payload, dict):
            raise UpstreamError("Open-Meteo geocoding returned malformed JSON: expected an object")
        results = payload.get("results", [])
        if not isinstance(results, list):
            raise UpstreamError("Open-Meteo geocoding returned malformed JSON: 'results' is not a list")
        return results

    async def _one(self, url: str, params: dict[str, str]) -> dict[str, Any]:
        payload = await self._get_json(url, params)
        if not isinstance(payload, dict):
            raise UpstreamError("Open-Meteo returned malformed JSON: expected an object for a single location")
        return payload

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    def _client(self) -> httpx.AsyncClient:
        if self._http is None:
            timeout = httpx.Timeout(self._settings.read_timeout_s, connect=self._settings.connect_timeout_s)
            self._http = httpx.AsyncClient(
                timeout=timeout, transport=self._transport, headers={"User-Agent": "weather-mcp/0.1"}
            )
        return self._http

    async def _get_json(self, url: str, params: dict[str, str]) -> Any:
        key = (url, tuple(sorted(params.items())))
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        response = await self._get_with_retries(url, params)
        try:
            payload = response.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise UpstreamError(f"Open-Meteo returned malformed JSON ({exc.__class__.__name__}: {exc})") from exc
        self._cache.put(key, payload)
        return payload

    async def _get_with_retries(self, url: str, params: dict[str, str]) -> httpx.Response:
        attempts = self._settings.max_attempts
        for attempt in range(1, attempts + 1):
            try:
                response = await self._client().get(url, params=params)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                # Not retried: an unreachable host should send `auto` mode to its fallback at once.
                raise UpstreamUnreachable(f"Open-Meteo is unreachable ({exc.__class__.__name__})") from exc
            except httpx.TimeoutException as exc:
                if attempt == attempts:
                    raise UpstreamUnreachable(
                        f"Open-Meteo did not answer within {self._settings.read_timeout_s:g} s "
                        f"({attempts} attempts)"
                    ) from exc
                await self._backoff(attempt, None)
                continue
            except httpx.TransportError as exc:
                raise UpstreamUnreachable(f"Open-Meteo request failed ({exc.__class__.__name__}: {exc})") from exc
            if response.status_code in RETRYABLE_STATUS and attempt < attempts:
                log.warning("Open-Meteo HTTP %s, retrying (attempt %d/%d)", response.status_code, attempt, attempts)
                await self._backoff(attempt, response.headers.get("Retry-After"))
                continue
            if response.status_code >= 400:
                raise UpstreamError(_status_message(response, attempt))
            return response
        raise AssertionError("unreachable: the loop returns or raises")

    async def _backoff(self, attempt: int, retry_after: str | None) -> None:
        delay = self._settings.retry_backoff_s * 2 ** (attempt - 1)
        if retry_after and retry_after.isdigit():
            delay = max(delay, min(float(retry_after), 10.0))
        await asyncio.sleep(delay)


def _past(days: int) -> dict[str, str]:
    """The `past_days` parameter, left out when none are asked (the request, and its cache key, stay as before)."""
    return {"past_days": str(days)} if days > 0 else {}


def _status_message(response: httpx.Response, attempts: int) -> str:
    """Open-Meteo explains 4xx errors as {"error": true, "reason": ...}; keep that reason."""
    reason = ""
    try:
        body = response.json()
        if isinstance(body, dict) and body.get("reason"):
            reason = f": {body['reason']}"
    except (json.JSONDecodeError, UnicodeDecodeError):
        pass
    tried = f" after {attempts} attempts" if attempts > 1 else ""
    kind = "rejected the request" if response.status_code < 500 and response.status_code != 429 else "failed"
    return f"Open-Meteo {kind} (HTTP {response.status_code}){tried}{reason}"
