"""Where the sun is: sunrise, sunset and its elevation for a place and a local date (NOAA's solar equations,
good to about a minute between the polar circles), so simulated days get the real sky."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

# The sun's centre 0.833° below the horizon: refraction plus its radius, as almanacs count sunrise.
_HORIZON_DEG = -0.833


@dataclass(frozen=True)
class SunDay:
    """One local day's sun: rise and set as local wall-clock times (None in polar night or polar day)."""

    sunrise: datetime | None
    sunset: datetime | None
    daylight_s: float  # 0 in polar night, 86400 in polar day


def _solar(julian_century: float) -> tuple[float, float]:
    """The sun's declination and the equation of time (minutes) at a moment, per NOAA's spreadsheet."""
    t = julian_century
    mean_longitude = (280.46646 + t * (36000.76983 + 0.0003032 * t)) % 360
    anomaly = 357.52911 + t * (35999.05029 - 0.0001537 * t)
    eccentricity = 0.016708634 - t * (0.000042037 + 0.0000001267 * t)
    m = math.radians(anomaly)
    centre = (math.sin(m) * (1.914602 - t * (0.004817 + 0.000014 * t)) + math.sin(2 * m) * (0.019993 - 0.000101 * t)
              + math.sin(3 * m) * 0.000289)
    apparent = mean_longitude + centre - 0.00569 - 0.00478 * math.sin(math.radians(125.04 - 1934.136 * t))
    obliquity = (23 + (26 + (21.448 - t * (46.815 + t * (0.00059 - t * 0.001813))) / 60) / 60
                 + 0.00256 * math.cos(math.radians(125.04 - 1934.136 * t)))
    declination = math.asin(math.sin(math.radians(obliquity)) * math.sin(math.radians(apparent)))
    y = math.tan(math.radians(obliquity / 2)) ** 2
    l0 = math.radians(mean_longitude)
    equation = 4 * math.degrees(y * math.sin(2 * l0) - 2 * eccentricity * math.sin(m)
                                + 4 * eccentricity * y * math.sin(m) * math.cos(2 * l0)
                                - 0.5 * y * y * math.sin(4 * l0) - 1.25 * eccentricity ** 2 * math.sin(2 * m))
    return declination, equation


def _century(moment_utc: datetime) -> float:
    julian_day = moment_utc.timestamp() / 86400 + 2440587.5
    return (julian_day - 2451545) / 36525


def sun_day(latitude: float, longitude: float, day: date, zone: ZoneInfo) -> SunDay:
    """Sunrise and sunset of `day` at the place, in its local time (with its daylight-saving rules)."""
    noon_utc = datetime.combine(day, time(12), zone).astimezone(ZoneInfo("UTC"))
    events = []
    for rising in (True, False):
        moment = noon_utc
        for _ in range(3):  # iterate: the sun's position at the event itself
            declination, equation = _solar(_century(moment))
            cos_hour = ((math.sin(math.radians(_HORIZON_DEG)) - math.sin(math.radians(latitude)) * math.sin(declination))
                        / (math.cos(math.radians(latitude)) * math.cos(declination)))
            if abs(cos_hour) > 1:
                daylight = 86400.0 if cos_hour < -1 else 0.0
                return SunDay(None, None, daylight)
            hour_angle = math.degrees(math.acos(cos_hour)) * (-1 if rising else 1)
            minutes_utc = 720 - 4 * (longitude - hour_angle) - equation
            moment = datetime.combine(day, time(0), ZoneInfo("UTC")) + timedelta(minutes=minutes_utc)
            moment = _nearest_local_day(moment, day, zone)
        events.append(moment.astimezone(zone))
    sunrise, sunset = events
    return SunDay(sunrise.replace(tzinfo=None), sunset.replace(tzinfo=None), (sunset - sunrise).total_seconds())


def _nearest_local_day(moment: datetime, day: date, zone: ZoneInfo) -> datetime:
    """The event on the local `day`: a place far from its zone's meridian can get yesterday's or tomorrow's."""
    shift = (day - moment.astimezone(zone).date()).days
    return moment + timedelta(days=shift)


def elevation(latitude: float, longitude: float, moment: datetime) -> float:
    """The sun's elevation in degrees at an aware moment (negative below the horizon)."""
    utc = moment.astimezone(ZoneInfo("UTC"))
    declination, equation = _solar(_century(utc))
    minutes = utc.hour * 60 + utc.minute + utc.second / 60
    hour_angle = math.radians((minutes + equation + 4 * longitude) / 4 - 180)
    phi = math.radians(latitude)
    sine = math.sin(phi) * math.sin(declination) + math.cos(phi) * math.cos(declination) * math.cos(hour_angle)
    return math.degrees(math.asin(max(-1.0, min(1.0, sine))))
