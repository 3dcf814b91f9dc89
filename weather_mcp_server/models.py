"""Pydantic output models: each tool's `outputSchema` and `structuredContent` come from these."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

OPEN_METEO_ATTRIBUTION = "Weather data by Open-Meteo.com, licensed CC BY 4.0 (https://open-meteo.com/)"


class Location(BaseModel):
    """A resolved place. `name` is the name as the user wrote it when that was Chinese, else the English name."""

    name: str
    english_name: str
    chinese_name: str | None = None
    country: str
    country_code: str
    latitude: float
    longitude: float
    timezone: str


class PlaceResult(BaseModel):
    """Fields every single-place result carries."""

    location: Location
    source: Literal["open-meteo", "simulated"]
    units: dict[str, str] = Field(description="Unit of each numeric field, e.g. temperature: °C")
    attribution: str | None = None
    notice: str | None = Field(None, description="Present when the data is simulated in auto mode")


class CurrentWeather(PlaceResult):
    time: str = Field(description="Local observation time (ISO 8601)")
    temperature: float
    feels_like: float
    humidity: float
    wind_speed: float
    wind_direction: float
    wind_gusts: float | None = None
    weather_code: int
    description: str
    precipitation: float
    snowfall: float
    cloud_cover: float | None = None
    uv_index: float | None = None
    is_day: bool


class ForecastDay(BaseModel):
    date: str
    weather_code: int
    description: str
    temp_min: float
    temp_max: float
    precipitation_sum: float
    precipitation_probability: float | None = None
    wind_speed_max: float
    uv_index_max: float | None = None


class Forecast(PlaceResult):
    days: list[ForecastDay]


class PrecipitationDay(BaseModel):
    date: str
    description: str
    precipitation_sum: float
    rain_sum: float
    snowfall_sum: float
    probability_max: float | None = None
    precipitation_hours: float | None = None
    rain_expected: bool
    snow_expected: bool


class PrecipitationHour(BaseModel):
    time: str
    precipitation: float
    rain: float
    snowfall: float
    probability: float | None = None
    description: str


class PrecipitationOutlook(PlaceResult):
    umbrella_advised: bool = Field(description="True when any covered day is likely to be wet")
    days: list[PrecipitationDay]
    hours: list[PrecipitationHour] | None = Field(None, description="Only when hourly=true; at most 48 hours")


class CityTemperature(BaseModel):
    rank: int
    location: Location
    temperature: float = Field(description="The compared value (see `measure`)")
    temp_min: float
    temp_max: float
    description: str


class TemperatureSearch(BaseModel):
    date: str = Field(description="The compared day, local to the first city")
    days_ahead: int
    measure: Literal["max", "min", "mean"]
    min_temp: float | None
    max_temp: float | None
    matches: list[CityTemperature] = Field(description="Cities within the bounds (inclusive), best first")
    nearest_outside: list[CityTemperature] = Field(description="Up to 3 closest cities outside the bounds")
    cities_checked: int
    source: Literal["open-meteo", "simulated"]
    units: dict[str, str]
    attribution: str | None = None
    notice: str | None = None


class ChartPoint(BaseModel):
    date: str
    temp_min: float | None = None
    temp_max: float | None = None
    precipitation_sum: float | None = None
    precipitation_probability: float | None = None


class WeatherChart(PlaceResult):
    kind: Literal["temperature", "precipitation"]
    mime_type: str = "image/png"
    width: int
    height: int
    font: str = Field(description="Font family used for the chart's text")
    alt_text: str
    points: list[ChartPoint]
