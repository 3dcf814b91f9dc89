"""Serve recorded Open-Meteo payloads through `httpx.MockTransport`, so nothing needs a network (the weather server
the tests start takes it as its `http_transport`: weather_server_replaying.py).

Layout of a replay directory:
- `forecast/*.json`: one single-location forecast response each (current, daily and hourly blocks); a request is
  answered with the recording nearest its coordinates (within 0.25°), filtered to the requested variables and cut
  to `past_days` before the recording's today (the date of its `current.time`; a recording without `current` has
  none) and `forecast_days` from it on, exactly as the live API shapes its answer. Several coordinates -> a list.
- `air_quality/*.json`: air-quality responses (current and hourly blocks), answered the same way.
- `geocoding/<name>.<language>.json`: a geocoding response; a name without one gets the API's empty answer.
- `faults.json` (optional): a list of {"endpoint": "forecast"|"air_quality"|"geocoding", "near": [lat, lon],
  "status": int, "body": str, "timeout": bool, "times": int, "after": int} answered instead of the recording; `near` limits
  a fault to requests whose first coordinate is that place, `times` to the first N matching requests, and
  `after` lets the first N matching requests through to the recording (an outage that starts later).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import httpx

from weather_mcp_server.places.names import normalize

MATCH_DEGREES = 0.25
_BLOCKS = ("current", "hourly", "daily")


def replay_transport(directory: Path) -> httpx.MockTransport:
    """A transport answering forecast and geocoding requests from `directory`."""
    return httpx.MockTransport(_Replay(directory).handle)


class _Replay:
    def __init__(self, directory: Path) -> None:
        if not directory.is_dir():
            raise FileNotFoundError(f"replay directory {directory} is not a directory")
        self._directory = directory
        self._recordings = {endpoint: [json.loads(path.read_text(encoding="utf-8"))
                                       for path in sorted(directory.glob(f"{endpoint}/*.json"))]
                            for endpoint in ("forecast", "air_quality")}
        faults_file = directory / "faults.json"
        self._faults: list[dict[str, Any]] = (
            json.loads(faults_file.read_text(encoding="utf-8")) if faults_file.exists() else []
        )

    def handle(self, request: httpx.Request) -> httpx.Response:
        host = request.url.host
        endpoint = ("geocoding" if host.startswith("geocoding") else "air_quality" if host.startswith("air-quality")
                    else "forecast")
        fault = self._take_fault(endpoint, request)
        if fault is not None:
            if fault.get("timeout"):
                raise httpx.ReadTimeout("replayed timeout", request=request)
            return httpx.Response(fault.get("status", 200), content=fault.get("body", "").encode("utf-8"))
        if endpoint == "geocoding":
            return self._geocoding(request)
        return self._recorded(endpoint, request)

    def _take_fault(self, endpoint: str, request: httpx.Request) -> dict[str, Any] | None:
        for fault in self._faults:
            if fault.get("endpoint", "forecast") != endpoint or fault.get("times", 1) <= 0:
                continue
            if "near" in fault and not _first_coordinate_near(request, *fault["near"]):
                continue
            if fault.get("after", 0) > 0:
                fault["after"] -= 1
                return None
            if "times" in fault:
                fault["times"] -= 1
            return fault
        return None

    def _geocoding(self, request: httpx.Request) -> httpx.Response:
        name = normalize(request.url.params.get("name", ""))
        language = request.url.params.get("language", "en")
        path = self._directory / "geocoding" / f"{name}.{language}.json"
        if path.exists():
            return httpx.Response(200, content=path.read_bytes())
        return httpx.Response(200, json={"generationtime_ms": 0.4})

    def _recorded(self, endpoint: str, request: httpx.Request) -> httpx.Response:
        params = request.url.params
        latitudes = [float(v) for v in params.get("latitude", "").split(",") if v]
        longitudes = [float(v) for v in params.get("longitude", "").split(",") if v]
        if not latitudes or len(latitudes) != len(longitudes):
            return _error("Parameter 'latitude' and 'longitude' must have the same number of elements")
        days = int(params.get("forecast_days", "7"))
        past = int(params.get("past_days", "0"))
        wanted = {block: params[block].split(",") for block in _BLOCKS if block in params}
        answers = []
        for index, (lat, lon) in enumerate(zip(latitudes, longitudes, strict=True)):
            recording = self._nearest(endpoint, lat, lon)
            if recording is None:
                return _error(f"replay: no recorded {endpoint} near {lat},{lon} in {self._directory}")
            recorded_past = _recorded_past_days(recording)
            if past > recorded_past:
                return _error(f"replay: the recording near {lat},{lon} keeps {recorded_past} past days, not {past}")
            try:
                answer = _shape(recording, wanted, recorded_past - past, past + days)
            except KeyError as missing:
                return _error(f"Cannot initialize WeatherVariable from invalid String value {missing.args[0]}")
            if len(latitudes) > 1:
                answer["location_id"] = index
            answers.append(answer)
        return httpx.Response(200, json=answers if len(answers) > 1 else answers[0])

    def _nearest(self, endpoint: str, lat: float, lon: float) -> dict[str, Any] | None:
        close = [
            r
            for r in self._recordings[endpoint]
            if abs(r["latitude"] - lat) <= MATCH_DEGREES and abs(r["longitude"] - lon) <= MATCH_DEGREES
        ]
        return min(close, key=lambda r: abs(r["latitude"] - lat) + abs(r["longitude"] - lon), default=None)


def _recorded_past_days(recording: dict[str, Any]) -> int:
    """How many days before its today (the date of `current.time`) a recording keeps."""
    today = recording.get("current", {}).get("time", "")[:10]
    if not today:
        return 0
    if "daily" in recording:
        return recording["daily"]["time"].index(today)
    return recording["hourly"]["time"].index(f"{today}T00:00") // 24


def _shape(recording: dict[str, Any], wanted: dict[str, list[str]], skip: int, days: int) -> dict[str, Any]:
    """Keep only the requested blocks/variables and `days` days after the first `skip`, as the live API would."""
    answer = {k: copy.deepcopy(v) for k, v in recording.items() if not k.startswith(_BLOCKS)}
    windows = {"daily": slice(skip, skip + days), "hourly": slice(skip * 24, (skip + days) * 24), "current": None}
    for block, variables in wanted.items():
        data, units = recording[block], recording[f"{block}_units"]
        keep = [k for k in ("time", "interval") if k in data] + variables
        window = windows[block]
        answer[block] = {k: data[k] if window is None else data[k][window] for k in keep}
        answer[f"{block}_units"] = {k: units[k] for k in keep}
    return answer


def _first_coordinate_near(request: httpx.Request, latitude: float, longitude: float) -> bool:
    try:
        lat = float(request.url.params.get("latitude", "").split(",")[0])
        lon = float(request.url.params.get("longitude", "").split(",")[0])
    except ValueError:
        return False
    return abs(lat - latitude) <= MATCH_DEGREES and abs(lon - longitude) <= MATCH_DEGREES


def _error(reason: str) -> httpx.Response:
    return httpx.Response(400, json={"error": True, "reason": reason})
