"""Offline place lookup over geonames' towns of 1,000 people or more (index_file.py), ranked by population."""

from __future__ import annotations

import difflib
import math
import sqlite3
import threading
from pathlib import Path

from weather_mcp_server.models import Location
from weather_mcp_server.places.aliases import PLACE_ALIASES
from weather_mcp_server.places.default_cities import MAJOR_CITIES
from weather_mcp_server.places.index_file import open_index
from weather_mcp_server.places.names import (
    Candidate,
    choose,
    chinese_keys,
    distance_km,
    has_cjk,
    normalize,
    split_qualifier,
)

_NAMED = ("SELECT p.id, p.name, p.country_code, p.latitude, p.longitude, p.timezone, p.population, p.region, p.major, n.exact"
          " FROM names n JOIN places p ON p.id = n.place WHERE n.key = ?")
# The closest few by a flat-earth distance at the query's latitude (the longitude gap taken across the date line);
# the great-circle distance then picks among them.
_CLOSE = """SELECT id, name, country_code, latitude, longitude, timezone, population, region, major, 1 FROM places
    ORDER BY (latitude - :lat) * (latitude - :lat)
        + (min(abs(longitude - :lon), 360 - abs(longitude - :lon)) * :cos)
        * (min(abs(longitude - :lon), 360 - abs(longitude - :lon)) * :cos)
    LIMIT 32"""
# Spelling suggestions look among the keys of the same first letter and a length difflib could call close.
_SIMILAR_KEYS = "SELECT DISTINCT key FROM names WHERE key >= ? AND key < ? AND length(key) BETWEEN ? AND ?"


class Gazetteer:
    """Name -> place, over an index file opened on first use (built first when missing: 5-8 s, once)."""

    def __init__(self, index_path: Path | None = None) -> None:
        self._path = index_path
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        self._countries: dict[str, str] = {}
        self._chinese_names: dict[str, str] = {}
        # Names geonames lacks: the major cities' Chinese names (纽约) and the islands of aliases.py, by key.
        self._added: dict[str, dict[str, Candidate]] = {}

    def lookup(self, query: str) -> Location | None:
        """Resolve a name ('Peking', '北京', 'Paris, FR'); None when unknown, AmbiguousPlace when unclear."""
        candidates = self.candidates(query)
        if not candidates:
            return None
        return self.to_location(choose(query, candidates), query)

    def candidates(self, query: str) -> list[Candidate]:
        """Every place the name may mean, filtered by a trailing country ('Paris, FR', 'Paris, France') or a region
        the index knows ('Portland, Maine'); another qualifier ('Kochi, Kerala') narrows nothing."""
        name, qualifier = split_qualifier(query)
        keys = [normalize(name), *(chinese_keys(name) if has_cjk(name) else ())]
        found = next((named for named in map(self._named, keys) if named), {})
        country = self.country_code(qualifier) if qualifier else None
        places = [c for c in found.values() if country is None or c.country_code == country]
        if qualifier and country is None:
            in_region = [c for c in places if c.region and normalize(c.region) == normalize(qualifier)]
            places = in_region or places
        # The cities of 15,000 or more (and capitals) keep every name they had before the smaller towns were
        # indexed: a town answers only a name none of them has (Zermatt, 漠河), never competing with one.
        return [c for c in places if c.major] or places

    def country_code(self, qualifier: str) -> str | None:
        """The ISO code a qualifier names ('fr', 'France'); None for others ('Oregon', '广东')."""
        with self._lock:
            self._database()
        wanted = normalize(qualifier)
        return next(
            (code for code, name in self._countries.items() if wanted in (code.casefold(), normalize(name))), None
        )

    def nearest(self, latitude: float, longitude: float) -> Candidate:
        """The closest indexed place, used to name raw coordinates and find their timezone."""
        cos = max(math.cos(math.radians(latitude)), 0.01)
        rows = self._query(_CLOSE, {"lat": latitude, "lon": longitude, "cos": cos})
        close = map(self._candidate, rows)
        return min(close, key=lambda c: distance_km(latitude, longitude, c.latitude, c.longitude))

    def suggestions(self, query: str, limit: int = 5) -> list[str]:
        """Close spellings of known place names, for 'did you mean' in error messages."""
        wanted = normalize(split_qualifier(query)[0])
        if not wanted:
            return []
        # difflib's ratio is at least 0.75 only between lengths within a factor 0.6 of each other.
        similar = self._query(_SIMILAR_KEYS, (wanted[0], chr(ord(wanted[0]) + 1),
                                              math.floor(len(wanted) * 0.6), math.ceil(len(wanted) / 0.6)))
        keys = difflib.get_close_matches(wanted, [key for (key,) in similar], n=limit * 3, cutoff=0.75)
        labels: list[str] = []
        for key in keys:
            best = max(self._named(key).values(), key=lambda c: c.population)
            if best.name not in labels:
                labels.append(best.name)
        return labels[:limit]

    def chinese_name(self, candidate_key: str) -> str | None:
        """The Chinese display name of a major city, if it is one."""
        with self._lock:
            self._database()
        return self._chinese_names.get(candidate_key)

    def to_location(self, candidate: Candidate, query: str) -> Location:
        """Build the public Location; a Chinese query keeps its own wording as the display name."""
        written, _ = split_qualifier(query)
        chinese = written.removesuffix("市") if has_cjk(written) else self.chinese_name(candidate.key)
        return Location(
            name=chinese if has_cjk(written) and chinese else candidate.name,
            english_name=candidate.name,
            chinese_name=chinese,
            country=candidate.country,
            country_code=candidate.country_code,
            latitude=candidate.latitude,
            longitude=candidate.longitude,
            timezone=candidate.timezone,
        )

    def _named(self, key: str) -> dict[str, Candidate]:
        """The places a normalised name means; an added name that is exact (aliases.py) wins over geonames' alias."""
        found = {c.key: c for c in map(self._candidate, self._query(_NAMED, (key,)))}
        for place, added in self._added.get(key, {}).items():
            if place not in found or added.exact:
                found[place] = added
        return found

    def _query(self, sql: str, parameters: object) -> list[tuple]:
        with self._lock:
            return self._database().execute(sql, parameters).fetchall()  # type: ignore[arg-type]

    def _database(self) -> sqlite3.Connection:
        """The open index (the caller holds the lock): opened, and the added names resolved, on first use."""
        if self._db is None:
            self._db = open_index(self._path)
            self._countries = dict(self._db.execute("SELECT code, name FROM countries").fetchall())
            self._added = self._added_names()
        return self._db

    def _added_names(self) -> dict[str, dict[str, Candidate]]:
        added: dict[str, dict[str, Candidate]] = {}
        for names, exact in ((MAJOR_CITIES, False), (PLACE_ALIASES, True)):
            for written, english in names:
                city = self._main_place(english)
                if city is None:
                    continue
                if not exact:
                    self._chinese_names[city.key] = written
                added.setdefault(normalize(written), {})[city.key] = Candidate(**{**city.__dict__, "exact": exact})
        return added

    def _main_place(self, english: str) -> Candidate | None:
        """The place an unambiguous 'Name, CC' means: the largest of that name in that country."""
        name, country = split_qualifier(english)
        matches = [c for c in self._named(normalize(name)).values() if c.country_code == country]
        return max(matches, key=lambda c: (c.exact, c.population), default=None)

    def _candidate(self, row: tuple) -> Candidate:
        place, name, code, latitude, longitude, timezone, population, region, major, exact = row
        return Candidate(key=str(place), name=name, country_code=code, country=self._countries.get(code, code),
                         latitude=latitude, longitude=longitude, timezone=timezone, population=population,
                         exact=bool(exact), region=region, major=bool(major))
