"""Settings read from the environment (and an optional `.env`), with safe defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Literal

from dotenv import load_dotenv

ProviderMode = Literal["auto", "open-meteo", "simulated"]
PROVIDER_MODES: tuple[ProviderMode, ...] = ("auto", "open-meteo", "simulated")


def _float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return float(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be a number, got {raw!r}") from exc


@dataclass(frozen=True)
class Settings:
    """Every knob of the weather server; `Settings.from_env()` is the only constructor callers need."""

    provider: ProviderMode = "auto"
    forecast_url: str = "https://api.open-meteo.com/v1/forecast"
    geocoding_url: str = "https://geocoding-api.open-meteo.com/v1/search"
    air_quality_url: str = "https://air-quality-api.open-meteo.com/v1/air-quality"
    connect_timeout_s: float = 2.0
    read_timeout_s: float = 10.0
    max_attempts: int = 3
    retry_backoff_s: float = 0.5
    cache_ttl_s: float = 600.0
    # How long `auto` mode trusts a failed probe before trying Open-Meteo again.
    unreachable_ttl_s: float = 300.0
    default_cities: tuple[str, ...] = field(default_factory=tuple)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "WARNING"

    @classmethod
    def from_env(cls) -> Settings:
        """Read `WEATHER_*` variables; an unknown provider name is a startup error, not a silent default."""
        load_dotenv()
        provider = os.environ.get("WEATHER_PROVIDER", "auto").strip().lower() or "auto"
        if provider not in PROVIDER_MODES:
            raise ValueError(f"WEATHER_PROVIDER must be one of {', '.join(PROVIDER_MODES)}, got {provider!r}")
        cities = os.environ.get("WEATHER_DEFAULT_CITIES", "")
        log_level = os.environ.get("WEATHER_LOG_LEVEL", "WARNING").strip().upper()
        if log_level not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
            raise ValueError(f"WEATHER_LOG_LEVEL must be a logging level name, got {log_level!r}")
        return cls(
            log_level=log_level,  # type: ignore[arg-type]
            provider=provider,  # type: ignore[arg-type]
            connect_timeout_s=_float("WEATHER_CONNECT_TIMEOUT_S", cls.connect_timeout_s),
            read_timeout_s=_float("WEATHER_READ_TIMEOUT_S", cls.read_timeout_s),
            max_attempts=max(1, int(_float("WEATHER_MAX_ATTEMPTS", cls.max_attempts))),
            retry_backoff_s=_float("WEATHER_RETRY_BACKOFF_S", cls.retry_backoff_s),
            cache_ttl_s=_float("WEATHER_CACHE_TTL_S", cls.cache_ttl_s),
            unreachable_ttl_s=_float("WEATHER_UNREACHABLE_TTL_S", cls.unreachable_ttl_s),
            default_cities=tuple(c.strip() for c in cities.replace("，", ",").split(",") if c.strip()),
        )
