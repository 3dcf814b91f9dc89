"""Pydantic output models: each tool's `outputSchema` and `structuredContent` come from these."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

OPEN_METEO_ATTRIBUTION = "Weather data by Open-Meteo.com, licensed CC BY 4.0 (https://open-meteo.com/)"


class Location(BaseModel):
    """A resolved place. `name` is the name as the user wrote it when that was Chinese, else the English name
    (with the name asked by beside it where that is another: "George Town (Penang)")."""

    name: str
    english_name: str
    chinese_name: str | None = None
    country: str
    country_code: str
    latitude: float
    longitude: float
    timezone: str


class Verdict(BaseModel):
    """A conclusion the data decides for the covered days, so a host can check an answer against it."""

    topic: Literal["rain", "snow", "umbrella", "hot", "cold", "warmer", "colder", "wetter", "windier", "drier", "calmer",
                   "likelier", "unlikelier", "uv", "windy", "polluted", "sunrise"]
    holds: bool | None = Field(None, description="Yes/no verdicts: whether it holds")
    winner: str | None = Field(None, description="Comparisons: the place that wins (its `name`); null on a tie")
    places: list[list[str]] | None = Field(None, description="Comparisons: every compared place's names")
    statement: str = Field(description="The verdict as a sentence, in the call's language")
    keywords: list[str] = Field(description="Words of a question this verdict answers (English and Chinese)")


class PlaceResult(BaseModel):
    """Fields every single-place result carries."""

    location: Location
    source: Literal["open-meteo", "simulated"]
    units: dict[str, str] = Field(description="Unit of each numeric field, e.g. temperature: °C")
    attribution: str | None = None
    notice: str | None = Field(None, description="Present when the data is simulated: say so to the user")
    verdicts: list[Verdict] = Field(default_factory=list)


class Day(BaseModel):
    """Which day a record is for."""

    date: str = Field(description="Local date at the place (YYYY-MM-DD)")
    weekday: str = Field(description="English weekday of `date`")
    day: int = Field(description="Days from today at the place: 0 today, 1 tomorrow")


class CurrentWeather(PlaceResult):
    time: str = Field(description="Local observation time (ISO 8601)")
    weekday: str
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
    pressure: float | None = Field(None, description="Sea-level pressure")
    visibility: float | None = None
    dew_point: float | None = None
    is_day: bool
    today_min: float = Field(description="Today's low at the place")
    today_max: float = Field(description="Today's high at the place")


class WeatherDay(Day):
    """A day's weather record with the day's means of the air's state, named after the current record's fields
    ("how humid tomorrow" asks a day, not an hour)."""

    humidity_mean: float | None = None
    cloud_cover_mean: float | None = None
    pressure_mean: float | None = Field(None, description="Sea-level pressure")
    dew_point_mean: float | None = None


class ForecastDay(WeatherDay):
    weather_code: int
    description: str
    temp_min: float
    temp_max: float
    precipitation_sum: float
    rain_sum: float | None = Field(None, description="The part of precipitation_sum that falls as rain")
    snowfall_sum: float | None = Field(None, description="Snow that falls, in the unit of units.snowfall")
    precipitation_probability: float | None = None
    wind_speed_max: float
    uv_index_max: float | None = None
    sunrise: str | None = Field(None, description="Local time (ISO 8601); null in polar night or polar day")
    sunset: str | None = Field(None, description="Local time (ISO 8601); null in polar night or polar day")
    daylight_duration: float | None = Field(None, description="Seconds of daylight")


class HourRecord(Day):
    """One hour at the place; `date`, `weekday` and `day` are the hour's own (a night runs into the next day)."""

    time: str = Field(description="Local time (ISO 8601)")
    hour: int
    weather_code: int
    description: str
    temperature: float
    feels_like: float | None = None
    humidity: float | None = None
    precipitation: float
    rain: float | None = None
    snowfall: float | None = None
    precipitation_probability: float | None = None
    cloud_cover: float | None = None
    wind_speed: float | None = None
    uv_index: float | None = None
    pressure: float | None = Field(None, description="Sea-level pressure")
    visibility: float | None = None
    dew_point: float | None = None
    is_day: bool | None = None


class Forecast(PlaceResult):
    days: list[ForecastDay] = Field(description="Exactly the days asked for")
    part: str | None = Field(None, description="The part of the day asked for, if any")
    hours: list[HourRecord] = Field(default_factory=list, description="The hours asked for (by hour or part)")


class PrecipitationDay(WeatherDay):
    description: str
    precipitation_sum: float
    rain_sum: float
    snowfall_sum: float
    probability_max: float | None = None
    precipitation_hours: float | None = None
    rain_expected: bool
    snow_expected: bool


class PrecipitationOutlook(PlaceResult):
    umbrella_advised: bool = Field(description="True when any covered day (or asked hour) is likely to be wet")
    rain_expected: bool = Field(description="True when rain is likely on any covered day (or asked hour)")
    snow_expected: bool = Field(description="True when snow is likely on any covered day (or asked hour)")
    days: list[PrecipitationDay] = Field(description="Exactly the days asked for")
    part: str | None = Field(None, description="The part of the day asked for, if any")
    hours: list[HourRecord] = Field(default_factory=list, description="The hours asked for (by hour or part)")


class ComparedPlace(BaseModel):
    location: Location
    temperature: float | None = Field(None, description="Current temperature, when the span is today")
    days: list[ForecastDay]


class Comparison(BaseModel):
    places: list[ComparedPlace]
    verdicts: list[Verdict] = Field(description="warmer, colder and wetter over the covered days")
    source: Literal["open-meteo", "simulated"]
    units: dict[str, str]
    attribution: str | None = None
    notice: str | None = None


class CityTemperature(BaseModel):
    rank: int
    location: Location
    temperature: float = Field(description="The compared value (see `measure`)")
    temp_min: float
    temp_max: float
    description: str


class TemperatureSearch(Day):
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


class ChartPoint(Day):
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


class Pollutants(BaseModel):
    """Concentrations in μg/m³ (CO too, as Open-Meteo gives it)."""

    pm2_5: float | None = None
    pm10: float | None = None
    ozone: float | None = None
    nitrogen_dioxide: float | None = None
    sulphur_dioxide: float | None = None
    carbon_monoxide: float | None = None


class Pollen(BaseModel):
    """Pollen in grains/m³: Europe only (the air-quality API's CAMS European model), null elsewhere."""

    alder_pollen: float | None = None
    birch_pollen: float | None = None
    grass_pollen: float | None = None
    mugwort_pollen: float | None = None
    olive_pollen: float | None = None
    ragweed_pollen: float | None = None


class ChinaAqi(BaseModel):
    """China's AQI, computed by this server from the concentrations with HJ 633-2012's breakpoints."""

    aqi: int
    level: int = Field(description="1 优 ... 6 严重污染")
    category: str = Field(description="The standard's category: 优, 良, 轻度污染, 中度污染, 重度污染, 严重污染")
    category_en: str
    primary_pollutants: list[str] = Field(description="The pollutants setting the index (none at 50 or less)")
    basis: Literal["hourly", "daily"] = Field(description="hourly (实时报: 1-hour means) or daily (日报: 24-hour "
                                                          "means, O3's highest 8-hour mean)")


class AirReading(Pollen, Pollutants):
    """The air at one time: now, or an hour of the forecast."""

    time: str = Field(description="Local time (ISO 8601)")
    european_aqi: float | None = None
    us_aqi: float | None = None
    china_aqi: ChinaAqi | None = None


class AirQualityDay(Day, Pollen, Pollutants):
    """A day's air: 24-hour mean concentrations and pollen (ozone: the highest 8-hour mean), the indices' daily
    highs."""

    european_aqi_max: float | None = None
    us_aqi_max: float | None = None
    china_aqi: ChinaAqi | None = None


class AirQuality(PlaceResult):
    current: AirReading | None = Field(None, description="Now, when the asked days include today")
    days: list[AirQualityDay] = Field(description="Exactly the days asked for")
    part: str | None = None
    hours: list[AirReading] = Field(default_factory=list, description="The hours asked for (by hour or part)")
