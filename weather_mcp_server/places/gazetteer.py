"""Offline place lookup over geonames' towns of 500 people or more (index_file.py), ranked by population."""

from __future__ import annotations

import difflib
import math
import re
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from weather_mcp_server.errors import AmbiguousPlace
from weather_mcp_server.models import Location
from weather_mcp_server.places.aliases import PLACE_ALIASES
from weather_mcp_server.places.chinese_writing import CITY_PART_ENDINGS, LANDFORM_CHARACTERS, SPOT_ENDINGS
from weather_mcp_server.places.counties import County, county_named, county_sounding_like, is_district
from weather_mcp_server.places.default_cities import MAJOR_CITIES
from weather_mcp_server.places.exonyms import EXONYMS
from weather_mcp_server.places.index_file import open_index
from weather_mcp_server.places.names import (
    CHINESE_SPEAKING,
    SAME_PLACE_KM,
    Candidate,
    choose,
    chinese_keys,
    confused_variants,
    distance_km,
    has_cjk,
    normalize,
    simplified_key,
    split_parenthesised,
    split_qualifier,
)
from weather_mcp_server.places.pinyin import pinyin_keys, wholly_chinese
from weather_mcp_server.places.stations import STATIONS
from weather_mcp_server.wording.language import pick

SPELLING_RATIO = 0.75  # Hargeisa and Hargeysa 0.88, Hai Phong and Haiphong 0.94; Peking and Beijing 0.46

# (country code, geonames' admin1 code, or "" for the whole country): what a qualifier names.
Scope = tuple[str, str]

_NAMED = ("SELECT p.id, p.name, p.country_code, p.latitude, p.longitude, p.timezone, p.population, p.region,"
          " p.admin1, p.major, p.renown, n.exact FROM names n JOIN places p ON p.id = n.place WHERE n.key = ?")
_PLACE_NAMES = "SELECT key FROM names WHERE place = ?"
# The closest few by a flat-earth distance at the query's latitude (the longitude gap taken across the date line);
# the great-circle distance then picks among them.
_CLOSE = """SELECT id, name, country_code, latitude, longitude, timezone, population, region, admin1, major, renown, 1
    FROM places
    ORDER BY (latitude - :lat) * (latitude - :lat)
        + (min(abs(longitude - :lon), 360 - abs(longitude - :lon)) * :cos)
        * (min(abs(longitude - :lon), 360 - abs(longitude - :lon)) * :cos)
    LIMIT 32"""
# The most populous place of a country (admin1 "") or of one of its first-level regions.
_LARGEST_IN = """SELECT id, name, country_code, latitude, longitude, timezone, population, region, admin1, major,
    renown, 1 FROM places WHERE country_code = ? AND (? = '' OR admin1 = ?) ORDER BY population DESC LIMIT 1"""
# Spelling suggestions look among the keys of the same first letter and a length difflib could call close.
_SIMILAR_KEYS = "SELECT DISTINCT key FROM names WHERE key >= ? AND key < ? AND length(key) BETWEEN ? AND ?"
# Words a qualifier may end with that its listed name lacks: "广东省", "内蒙古自治区", "缅因州", "Washington State".
_QUALIFIER_SUFFIXES = ("壮族自治区", "回族自治区", "维吾尔自治区", "自治区", "特别行政区", "省", "市", "州", " province",
                       " state")
# A Chinese name's leading place (Gazetteer.leading_place) not on the gazetteer's own lists must be in
# CHINESE_SPEAKING and of at least this many people: a county's or a prefecture's city, not a town that shares a
# scenic area's first characters.
LEADING_PLACE_MIN_POPULATION = 100_000
# How near a county a city of its name must be to be what the name means (通化, 30 km off; not 阳城 of Chongqing).
NAMESAKE_CITY_KM = 150.0
# "Westport, Co. Mayo", "Bantry, County Cork", "Ballina, Mayo": a county of the island of Ireland; named alone, one
# that is also a city's name qualifies as the city ("Howth, Dublin": by Dublin).
_IRISH_COUNTY = re.compile(
    r"(co\.?\s*|county\s+)?(antrim|armagh|carlow|cavan|clare|cork|derry|londonderry|donegal|down|dublin|fermanagh|"
    r"galway|kerry|kildare|kilkenny|laois|leitrim|limerick|longford|louth|mayo|meath|monaghan|offaly|roscommon|sligo|"
    r"tipperary|tyrone|waterford|westmeath|wexford|wicklow)", re.IGNORECASE)
_IRISH_COUNTY_TOWNS = {"cork", "derry", "londonderry", "dublin", "galway", "limerick", "waterford", "kilkenny", "down"}
_IRELAND: frozenset[Scope] = frozenset({("IE", ""), ("GB", "NIR")})
# "xini澳洲": a name in pinyin with its country after it in Chinese.
def _blurred(sound: str) -> str:
    """Toneless pinyin with the sounds a pinyin keyboard's fuzzy mode takes as one (zh/z, ch/c, sh/s, -ng/-n)."""
    return re.sub(r"([zcs])h", r"\1", sound).replace("ng", "n")


GREAT_CITY = 1_000_000  # people: a typo of such a city outweighs another name of a village
_ALIASED = frozenset(normalize(written) for written, _ in PLACE_ALIASES)
_PINYIN_THEN_CHINESE = re.compile(r"([a-z][a-z ]*?)\s*([\u3400-\u9fff]+)", re.IGNORECASE)
# A place read by its sound alone (Gazetteer.by_sound) must be a city of this many people: the townships geonames
# lists by their Latin names only share their syllables with landmarks and words (长城 is no Changcheng, Shandong,
# 63,000 people; 华山 no Huashan, Jiangsu).
SOUND_MIN_POPULATION = LEADING_PLACE_MIN_POPULATION


class Gazetteer:
    """Name -> place, over an index file opened on first use (built first when missing: 5-8 s, once)."""

    def __init__(self, index_path: Path | None = None) -> None:
        self._path = index_path
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        self._countries: dict[str, str] = {}
        self._scopes: dict[str, frozenset[Scope]] = {}
        self._chinese_names: dict[str, str] = {}
        # Names geonames lacks: the major cities' Chinese names (纽约) and the islands of aliases.py, by key.
        self._added: dict[str, dict[str, Candidate]] = {}
        self._sounds: dict[str, Candidate] | None = None  # by_chinese_sound's, made on its first use
        self._listed: set[str] = set()  # the keys of the places those lists name

    def lookup(self, query: str, by_renown: bool = True) -> Location | None:
        """Resolve a name ('Peking', '北京', 'Paris, FR'); None when unknown, AmbiguousPlace when unclear
        (`by_renown`: unless one of its places is far better known, names.choose)."""
        candidates = self.candidates(query)
        if not candidates:
            return None
        if not any(c.exact or c.major for c in candidates):
            # only another name of small towns ("barcalona" is Barcelonne-du-Gers's): a great city spelt like it,
            # a hundred times their size, is meant (not Banda, India, for "Bandai", Japan)
            city = self._spelt_like_a_city(query)
            if city is not None and city.population >= max(GREAT_CITY, 100 * max(c.population for c in candidates)):
                return self.to_location(city, city.name)
        # An alias named for a county's name too is the alias's place: 九龙 is Kowloon, not Sichuan's county.
        county = self.county(query) if normalize(query.strip()) not in _ALIASED else None
        if county is not None:
            candidates = _as_the_county(county, candidates)
        return self.to_location(choose(query, candidates, by_renown), query)

    def candidates(self, query: str, every_town: bool = False) -> list[Candidate]:
        """Every place the name may mean, within the countries or first-level regions its qualifiers name
        ('Paris, FR', 'London, Ontario', 'Springfield, IL', '苏格兰的珀斯', 'Perth (Scotland)'). A qualifier
        nothing is known by is not ignored: AmbiguousPlace lists the places of the name and says so. The towns a
        city of the name hides (narrow) are among them with `every_town`: a namesake beside the places compared."""
        for name, qualifiers in self._readings(query):
            keys = [normalize(name), *(self._chinese_keys(name) if has_cjk(name) else ())]
            found = next((list(named.values()) for named in map(self._named, keys) if named), [])
            if not found:
                continue
            places = self.narrow(query, found, qualifiers, every_town)
            if not places and qualifiers:  # an alias the qualifier rules out ("Bāli, IN"): the data's places
                places = self.narrow(query, [c for key in keys for c in self._named(key, aliases=False).values()],
                                     qualifiers, every_town)
            if places or not (qualifiers and has_cjk(name)):
                return places or self._city_qualifying(query)
            # geonames gives a Chinese name to some places of a name only (珀斯 is Perth, AU; Perth, Scotland has
            # 伯斯): the qualified place is looked for by the English names the Chinese one stands for.
            return self.narrow(query, [c for key in {normalize(c.name) for c in found}
                                       for c in self._named(key).values()], qualifiers, every_town)
        return self._city_qualifying(query)

    def narrow(self, query: str, places: Sequence[Candidate], qualifiers: Sequence[str],
               every_town: bool = False) -> list[Candidate]:
        """The places within every qualifier's country or region; raises AmbiguousPlace when a qualifier names
        nothing known (by the index or by the places themselves: geocoding's results name their own region) and
        the name has more than one place. A name of one place is that place ('Zermatt, Valais'): its location
        names its country, so the reader sees which place was taken."""
        unknown = []
        for qualifier in qualifiers:
            scopes = self.scopes(qualifier)
            if scopes:
                places = [c for c in places if self._within(c, scopes)]
                continue
            wanted = normalize(qualifier)
            named = [c for c in places
                     if wanted in (normalize(c.region), c.country_code.casefold(), normalize(c.country))]
            city = None if named else self._city_named(qualifier)
            if named:
                places = named
            elif city is not None:  # "Bondi, Sydney": the place of the name in or beside that city
                places = [c for c in places
                          if distance_km(city.latitude, city.longitude, c.latitude, c.longitude) <= SAME_PLACE_KM]
            else:
                unknown.append(qualifier)
        # The cities of 15,000 or more (and capitals) keep every name they had before the smaller towns were
        # indexed: a town answers only a name none of them has (Zermatt, 漠河), never competing with one, unless
        # they have it only as another name (Skagen is Denmark's town, of 7,571, more than Schagen's alias).
        majors = [] if every_town else [c for c in places if c.major]
        if majors and not any(c.exact for c in majors):
            majors += [c for c in places if not c.major and c.exact]
        places = majors or list(places)
        if unknown and _distinct_places(places) > 1:
            shown = sorted(places, key=lambda c: c.population, reverse=True)[:6]
            listed = "; ".join(c.label() for c in shown)
            words = ", ".join(map(repr, unknown))
            raise AmbiguousPlace(pick(
                f"Place name {query!r}: {words} is no country or first-level region the offline gazetteer knows, "
                f"so it cannot tell which place is meant. Candidates: {listed}. Add the country code "
                "(e.g. 'Kochi, IN') or pass 'latitude,longitude'.",
                f"地名“{query}”：离线地名录不认识国家或地区“{'、'.join(unknown)}”，无法确定是哪个地方。"
                f"候选：{listed}。请加上国家代码（如“Kochi, IN”）或给出“纬度,经度”。"), shown)
        return places

    def _city_named(self, qualifier: str) -> Candidate | None:
        """The city a qualifier that is no country or region names: the largest major place called so."""
        cities = [c for c in self._named(normalize(qualifier)).values() if c.major and (c.exact or has_cjk(qualifier))]
        return max(cities, key=lambda c: c.population, default=None)

    def _city_qualifying(self, query: str) -> list[Candidate]:
        """A sight, park or quarter the index does not list, written with its city ("Kings Park, Perth",
        "Lodhi Garden, Delhi"): that city, whose weather it has. Empty when the last qualifier names no city."""
        name, qualifiers = split_qualifier(query)
        city = self._city_named(qualifiers[-1]) if name and qualifiers and not self.scopes(qualifiers[-1]) else None
        return [city] if city is not None and self._allows(query, city, qualifiers[:-1]) else []

    def unknown_qualifiers(self, query: str) -> list[str]:
        """The qualifiers of a query that name no known country or region (for an error message)."""
        return [q for q in split_qualifier(query)[1] if not self.scopes(q)]

    def scopes(self, qualifier: str) -> frozenset[Scope]:
        """The countries and regions a qualifier may name: 'CA' is Canada and California; empty when unknown."""
        with self._lock:
            self._database()
        key = _qualifier_key(qualifier)
        county = _IRISH_COUNTY.fullmatch(qualifier.strip())
        if key not in self._scopes and county and (county[1] or normalize(county[2]) not in _IRISH_COUNTY_TOWNS):
            return _IRELAND  # geonames' regions there are the provinces (Connacht), not the counties
        return self._scopes.get(key, frozenset())

    def _readings(self, query: str) -> Iterator[tuple[str, tuple[str, ...]]]:
        """The ways to read a query as a place name and its qualifiers, likeliest first."""
        name, qualifiers = split_qualifier(query)
        parenthesised = split_parenthesised(name)
        if parenthesised:  # "Perth (Scotland)"; "Bali (Denpasar)": the inner name is the place, else the outer
            outer, inner = parenthesised
            if self.scopes(inner):
                yield outer, (inner, *qualifiers)
            yield inner, ((outer,) if self.scopes(outer) else ()) + qualifiers
            yield outer, (inner, *qualifiers)
            return
        yield name, qualifiers
        words = name.split()
        for cut in range(len(words) - 1, 0, -1):  # "queenstown nz", "paris texas": a qualifier with no comma
            if self.scopes(" ".join(words[cut:])):
                yield " ".join(words[:cut]), (" ".join(words[cut:]), *qualifiers)
        if has_cjk(name):  # "苏格兰的珀斯", "新西兰皇后镇": a country or region written first, the longest one
            for cut in range(len(name) - 1, 0, -1):
                town = name[cut:].removeprefix("的")
                scopes = self._written_first(name[:cut])
                if town and scopes:
                    yield town, (*scopes, *qualifiers)
                    if town.endswith("市") and len(town) > 2:  # "加拿大安大略省伦敦市": 伦敦市 is London
                        yield town[:-1], (*scopes, *qualifiers)
            # "岘港Da Nang", "万隆Bandung": a name in Chinese, then in Latin letters: the Latin one, by the other
            # (a city that must be the same place, or beside it)
            both = re.fullmatch(r"([\u3400-\u9fff]+)\s*([A-Za-z][\w' .-]*)", name)
            if both:
                yield both[2].strip(), (both[1], *qualifiers)

    def _written_first(self, prefix: str) -> tuple[str, ...]:
        """The qualifiers a Chinese prefix ends with, narrowest first: one country or region ("苏格兰"), or a country
        and then one of its regions ("加拿大马尼托巴" is Manitoba, Canada); none when it ends with neither. Words
        before them are the sentence's ("停靠牙买加": a cruise calls at Jamaica's Kingston), in Chinese characters
        only ("越南Sap" is no "ap", Andhra Pradesh, after words)."""
        if self.scopes(prefix):
            return (prefix,)
        for start in range(len(prefix) - 1):
            written = prefix[start:]
            if not wholly_chinese(written):
                continue
            if self.scopes(written):
                return (written,)
            for cut in range(2, len(written) - 1):
                wide, narrow = self.scopes(written[:cut]), self.scopes(written[cut:])
                if wide and narrow and {country for country, _ in narrow} & {country for country, _ in wide}:
                    return written[cut:], written[:cut]
        return ()

    def _from_its_qualifier(self, name: str) -> str:
        """A Chinese name from the qualifier written first on, less the sentence's words before it ("牙买加的金斯敦"
        of "停靠牙买加的金斯敦")."""
        for cut in range(len(name) - 1, 0, -1):
            if qualifiers := self._written_first(name[:cut]):
                return name[cut - len("".join(qualifiers)):]
        return name

    @staticmethod
    def _chinese_keys(name: str) -> list[str]:
        """A Chinese query's keys (names.chinese_keys), then without 区 or 县 (凤凰县), as index_build adds them."""
        keys = sorted(chinese_keys(name), key=len, reverse=True)
        return keys + [key[:-1] for key in keys if key[-1] in "区县" and len(key) > 2]

    def _within(self, candidate: Candidate, scopes: frozenset[Scope]) -> bool:
        if (candidate.country_code, "") in scopes or (candidate.country_code, candidate.admin1) in scopes:
            return True
        # A geocoding result has its region's name, not geonames' code.
        return not candidate.admin1 and bool(candidate.region) and bool(self.scopes(candidate.region) & scopes)

    def nearest(self, latitude: float, longitude: float) -> Candidate:
        """The closest indexed place, used to name raw coordinates and find their timezone."""
        cos = max(math.cos(math.radians(latitude)), 0.01)
        rows = self._query(_CLOSE, {"lat": latitude, "lon": longitude, "cos": cos})
        close = map(self._candidate, rows)
        return min(close, key=lambda c: distance_km(latitude, longitude, c.latitude, c.longitude))

    def suggestions(self, query: str, limit: int = 5) -> list[str]:
        """Close spellings of known place names, for 'did you mean' in error messages: as the place is named, or
        for a Chinese query as the close name is written (夏尔迦, not Sharjah)."""
        labels: list[str] = []
        for _, key, best in self._close(query, limit * 3):
            label = key if has_cjk(query) else best.name
            if label not in labels:
                labels.append(label)
        return labels[:limit]

    def correction(self, query: str) -> tuple[str, Candidate] | None:
        """The name a misspelt query unknown to the index means and its city, when one city of 15,000 or more
        stands out (_standing_out) and the query's qualifiers allow it. A Latin name: among the spellings at least 0.8
        alike and of those the closest ('Nairobbi', 'Prauge', 'edinbrugh'); None when two compete ('Mumbay': Mumbai
        or Mumbwa) or only towns are closest ('Sesriem' is not Serem, 'Narnia' not Narni). A Chinese name:
        among the names one commonly confused character away (荷泽 -> 菏泽, 毫州 -> 亳州; chinese_writing.py), then
        those read as it is, or as a pinyin keyboard blurs it (_homophones: 墨尔笨 -> 墨尔本, 深证 -> 深圳), then
        China's counties read as it is (九寨钩 -> 九寨沟; counties.county_sounding_like), not any close spelling: one
        character off is another word (日本 is a country, not 日丹诺夫, Mariupol). A typo changes letters, not words
        or a name's length (_a_typo_of: Cameron Highlands is not Cameron Heights)."""
        if has_cjk(query):
            for name, qualifiers in self._readings(query):  # "山东荷泽": 荷泽 in Shandong
                for variants in (confused_variants, self._homophones):
                    named = {city: variant for key in self._chinese_keys(name) for variant in variants(key)
                             for city in self._named(variant).values() if city.major}
                    city = _standing_out(named)
                    if city is not None and self._allows(query, city, qualifiers):
                        return named[city], city
                sounding = next(filter(None, map(county_sounding_like, self._chinese_keys(name))), None)
                county = self.county(", ".join((sounding, *qualifiers))) if sounding else None
                if county is not None:
                    return sounding, county
            return None
        if not split_qualifier(query)[0].isascii():
            return None  # a name written with its accents is spelt with care: "Flåm" (a village) is not Fulham
        # Only the closest spellings compete: "Narnia" is closest to Narni (a town), and Nanning, a city five times
        # larger than any other among the names 0.8 alike, is a worse spelling of it.
        close = [(ratio, best) for ratio, key, best in self._close(query, 15) if ratio >= 0.8
                 and _a_typo_of(normalize(split_qualifier(query)[0]), key)]
        city = _standing_out(best for ratio, best in close if ratio >= close[0][0] - 0.01 and best.major) \
            if close else None
        if city is None or not self._allows(query, city, split_qualifier(query)[1]):
            return None
        return city.name, city

    def _spelt_like_a_city(self, query: str) -> Candidate | None:
        """A city of 15,000 or more (major) whose own name a Latin query is a typo of, when one stands out."""
        name, qualifiers = split_qualifier(query)
        if not name.isascii():
            return None
        key = normalize(name)
        close = [(ratio, best) for ratio, other, best in self._close(query, 15)
                 if other != key and ratio >= 0.85 and best.exact and best.major and _a_typo_of(key, other)]
        city = _standing_out(best for ratio, best in close if ratio >= close[0][0] - 0.01) if close else None
        return city if city is not None and self._allows(query, city, qualifiers) else None

    def _homophones(self, key: str) -> list[str]:
        """The names of the index as long as a Chinese key, beginning with its first character and read as it is
        (toneless pinyin), where one or more of its other characters is another: a typo by sound (墨尔笨 -> 墨尔本,
        撒马尔汗 -> 撒马尔罕, 杭洲 -> 杭州). The first character is kept, as a name is looked for by it."""
        if len(key) < 2 or not wholly_chinese(key):
            return []
        sound = pinyin_keys(key)[0]
        same_start = [other for (other,) in self._query(_SIMILAR_KEYS, (key[0], chr(ord(key[0]) + 1), len(key),
                                                                        len(key))) if other != key]
        # in simplified characters, as the answer names the place (墨尔本, not 墨爾本); read alike as a pinyin
        # keyboard confuses sounds only when none is read the same (深证 -> 深圳, 哈尔冰 -> 哈尔滨)
        same = {simplified_key(other) for other in same_start if pinyin_keys(other)[0] == sound}
        return sorted(same or {simplified_key(other) for other in same_start
                               if _blurred(pinyin_keys(other)[0]) == _blurred(sound)})

    def leading_place(self, query: str) -> tuple[str, Candidate] | None:
        """The place a Chinese name unknown to the index begins with, and that leading name: '稻城亚丁' (the Yading
        scenic area of Daocheng), '黄山风景区'. The longest leading name of two characters or more, before two or
        more others, that the index knows; a place after it is taken for a part of it, as Chinese writes the larger
        unit first (亚丁 is also Aden). None unless that place is chosen without ambiguity and is on the gazetteer's
        own lists or a city in China of LEADING_PLACE_MIN_POPULATION or more: the names of small towns, and the
        Chinese names of foreign places (transliterations, syllables meaning nothing), begin the names of many other
        things (玉龙雪山 is no Yulong, Chongqing; 加利福尼亚 no Gali, Georgia; 龙门石窟 no Longmen). A county of China
        (counties.py) leads as such a city does (建水古城, 元阳梯田), and an island ending the name is its place's
        (崇明岛). None for a
        spot inside a city (SPOT_ENDINGS: 南京路 is in Shanghai), or a landform named after the leading place
        (LANDFORM_CHARACTERS: 普陀山 is not in Shanghai's Putuo district)."""
        name, qualifiers = split_qualifier(query)
        part = next((ending for ending in CITY_PART_ENDINGS if name.endswith(ending)), "")
        if part and has_cjk(name) and len(name) - len(part) >= 2:  # 清迈古城: Chiang Mai's old town, in Chiang Mai
            city = name.removesuffix(part)
            try:
                found = self.candidates(", ".join((city, *qualifiers)))
            except AmbiguousPlace:
                return None
            if found:
                return city, choose(city, found)
        if not has_cjk(name) or name.endswith(SPOT_ENDINGS):
            return None
        island = name.endswith("岛")  # 崇明岛: the island a place is named after, and the place
        for cut in range(len(name) - (1 if island else 2), 1, -1):
            leading = ", ".join((name[:cut], *qualifiers))
            try:
                candidates = self.candidates(leading)
                county = self.county(leading)
                place = choose(leading, _as_the_county(county, candidates) if county else candidates) \
                    if candidates else county
            except AmbiguousPlace:
                return None
            if place is None:
                continue
            large = place.country_code in CHINESE_SPEAKING and place.population >= LEADING_PLACE_MIN_POPULATION
            landform = name[cut] in LANDFORM_CHARACTERS and not (island and cut == len(name) - 1)
            if landform or not (large or place.key in self._listed or county is not None):
                return None
            return name[:cut], place
        return None

    def after_its_city(self, query: str) -> Candidate | None:
        """A Chinese name of a town written after the city it is by ("长野白马村", "冲绳那霸"): the town of that
        name within SAME_PLACE_KM of the city."""
        name, qualifiers = split_qualifier(query)
        if not wholly_chinese(name):
            return None
        for cut in range(len(name) - 2, 1, -1):
            town = name[cut:].removeprefix("的")
            city = self._city_named(name[:cut]) if len(town) >= 2 and not self.scopes(name[:cut]) else None
            if city is None:
                continue
            try:
                found = self.candidates(", ".join((town, name[:cut], *qualifiers)))
            except AmbiguousPlace:
                continue
            if found and found[0].key != city.key:
                return choose(town, found)
        return None

    def by_sound(self, query: str) -> Candidate | None:
        """The place a name wholly in Chinese characters that nothing else found is read as by its pinyin: 瑞丽 is
        Ruili (geonames lists it as Mengmao, with no Chinese name 瑞丽). The last resort, so kept narrow: among the
        places where Chinese is written, one must stand out (_standing_out), be a city of SOUND_MIN_POPULATION or
        more, and have no Chinese name of the same sound written otherwise (泰山 is not Taishan: that is 台山); and
        the name must not end as a landform's or a spot's does (华山, 香山, 南海; SPOT_ENDINGS). A landmark or a
        word must not become a town that merely sounds like it."""
        for name, qualifiers in self._readings(query):
            written = self._chinese_keys(name) if wholly_chinese(name) else []
            if not written or any(key[-1] in LANDFORM_CHARACTERS or key.endswith(SPOT_ENDINGS) for key in written):
                continue
            keys = {key for text in written for key in pinyin_keys(text)}
            city = _standing_out({c.key: c for key in keys for c in self._named(key).values()
                                  if c.country_code in CHINESE_SPEAKING}.values())
            if (city is not None and city.major and city.population >= SOUND_MIN_POPULATION
                    and not self._sounds_written_otherwise(city, keys, written)
                    and self._allows(query, city, qualifiers)):
                return city
        return None

    def by_chinese_sound(self, query: str) -> tuple[str, Candidate] | None:
        """A city abroad written in the toneless pinyin of its Chinese name ("dongjing" is 东京, Tokyo; "xini澳洲"
        悉尼, Sydney), as Chinese users type when no input method is at hand: one city must sound so, within the
        qualifiers. China's own places need none of it: geonames names them in pinyin. With the name as written."""
        name, qualifiers = split_qualifier(query)
        mixed = _PINYIN_THEN_CHINESE.fullmatch(name)
        if mixed:  # "xini澳洲": the country written after the name, in Chinese
            name, qualifiers = mixed[1], (mixed[2], *qualifiers)
        if not name.isascii():
            return None
        with self._lock:
            self._database()
        if self._sounds is None:
            self._sounds = self._foreign_sounds()
        city = self._sounds.get(normalize(name).replace(" ", ""))
        return (name, city) if city is not None and self._allows(query, city, qualifiers) else None

    def _foreign_sounds(self) -> dict[str, Candidate]:
        """The toneless pinyin of the Chinese names of the cities abroad (MAJOR_CITIES, EXONYMS), each heard as
        one city only."""
        heard: dict[str, dict[str, Candidate]] = {}
        for key, places in self._added.items():
            if not wholly_chinese(key):
                continue
            for city in places.values():
                if city.country_code not in CHINESE_SPEAKING and city.population:
                    heard.setdefault(pinyin_keys(key)[0], {})[city.key] = city
        return {sound: next(iter(cities.values())) for sound, cities in heard.items() if len(cities) == 1}

    def county(self, query: str) -> Candidate | None:
        """The Chinese county a name wholly in Chinese characters means (红原, 绩溪县, "四川红原"), from the table of
        China's county-level divisions: county towns geonames knows by pinyin only, or lists under towns of the
        same name elsewhere (lookup: 庆元 is a county of Zhejiang, not a town of Chongqing). Also the island a
        county is (东山岛), and a county after its prefecture (甘南合作市). Its time zone and region are the nearest
        indexed place's; its name is the county's, in pinyin."""
        for name, qualifiers in self._readings(query):
            keys = self._chinese_keys(name) if wholly_chinese(name) else []  # (瑞麗 as 瑞丽)
            keys += [key[:-1] for key in keys if key.endswith("岛")]
            keys += [key[cut:] for key in keys if key.endswith(("县", "市", "旗")) for cut in range(2, len(key) - 2)]
            found = next(filter(None, map(county_named, keys)), None) or self._county_after_its_city(name)
            if found is None:
                continue
            full, leading, latitude, longitude = found
            near = self.nearest(latitude, longitude)
            county = Candidate(key=f"CN:{full}", name=pinyin_keys(leading)[0].capitalize(),
                               country_code="CN", country=self._countries.get("CN", "China"), latitude=latitude,
                               longitude=longitude, timezone=near.timezone, population=0, exact=True,
                               region=near.region, admin1=near.admin1)
            if self._allows(query, county, qualifiers):
                return county
        return None

    def _county_after_its_city(self, name: str) -> County | None:
        """The county a name writes after a city near it, with no suffix between (桂林阳朔, 张家口崇礼): Chinese
        writes the larger unit first, so the county is the place meant. Only a city within NAMESAKE_CITY_KM of
        the county: 北京朝阳 is Beijing's district, not Chaoyang, Liaoning."""
        if not wholly_chinese(name):
            return None
        for cut in range(2, len(name) - 1):
            county = county_named(simplified_key(name[cut:]))
            if county is None:
                continue
            try:
                cities = self.candidates(name[:cut])
            except AmbiguousPlace as error:
                cities = list(error.candidates)
            if any(distance_km(city.latitude, city.longitude, county[2], county[3]) <= NAMESAKE_CITY_KM
                   for city in cities):
                return county
        return None

    def _sounds_written_otherwise(self, city: Candidate, keys: set[str], written: Sequence[str]) -> bool:
        """Whether one of the city's Chinese names other than the query's reads as its pinyin (台山 for 泰山)."""
        names = {key for (key,) in self._query(_PLACE_NAMES, (int(city.key),)) if has_cjk(key)}
        names.update(filter(None, [self._chinese_names.get(city.key)]))
        return any(keys & set(pinyin_keys(name)) for name in names.difference(written))

    def region_named(self, query: str) -> Candidate | None:
        """The largest city of the region where Chinese is written that a Chinese query names as a whole (湖南,
        广东省), when no place of the name lies in it: 湖南 is the province, not Konan, Japan, whose name is
        written alike. None for any other query, and where a city of the name is in the region (吉林)."""
        if not has_cjk(query):
            return None
        scopes = frozenset(scope for scope in self.scopes(query) if scope[0] in CHINESE_SPEAKING)
        if not scopes:
            return None
        try:
            found = self.candidates(query)
        except AmbiguousPlace:
            found = []
        if any(self._within(candidate, scopes) for candidate in found):
            return None
        rows = [row for code, admin1 in scopes for row in self._query(_LARGEST_IN, (code, admin1, admin1))]
        return max(map(self._candidate, rows), key=lambda city: city.population, default=None)

    def country_named(self, query: str) -> tuple[str, str] | None:
        """A country a query names as a whole ("France", "法国", "Iceland"), and its capital as the answer names it
        (in Chinese where it has a Chinese name), when no city or capital of the name lies in it (Singapore, Monaco
        and 马尔代夫 are places; a village named Kazakhstan is not what "Kazakhstan" asks) and it names no region too
        (Georgia); None for any other query."""
        scopes = self.scopes(query.strip())
        if len(scopes) != 1 or next(iter(scopes))[1]:
            return None
        ((code, _),) = scopes
        try:
            found = self.candidates(query)
        except AmbiguousPlace:
            found = []
        ((name, capital),) = self._query("SELECT name, capital FROM countries WHERE code = ?", (code,)) or [("", "")]
        if any(candidate.country_code == code and (candidate.major or normalize(candidate.name) == normalize(capital))
               for candidate in found):
            return None
        try:
            city = next((c for c in self.candidates(capital) if c.country_code == code), None) if capital else None
        except AmbiguousPlace:
            city = None
        return name, pick(capital, (city and self.chinese_name(city.key)) or capital)

    def _allows(self, query: str, city: Candidate, qualifiers: Sequence[str]) -> bool:
        """True when the qualifiers are none, or name the city's country or region."""
        return not qualifiers or bool(self.narrow(query, [city], qualifiers))

    def _close(self, query: str, limit: int) -> list[tuple[float, str, Candidate]]:
        """The names spelt closest to the query's, with their likeness and their largest place, closest first."""
        wanted = normalize(split_qualifier(query)[0])
        if not wanted:
            return []
        # difflib's ratio is at least 0.75 only between lengths within a factor 0.6 of each other.
        similar = self._query(_SIMILAR_KEYS, (wanted[0], chr(ord(wanted[0]) + 1),
                                              math.floor(len(wanted) * 0.6), math.ceil(len(wanted) / 0.6)))
        keys = difflib.get_close_matches(wanted, [key for (key,) in similar], n=limit, cutoff=0.75)
        return [(difflib.SequenceMatcher(None, wanted, key).ratio(), key,
                 max(self._named(key).values(), key=lambda c: c.population)) for key in keys]

    def chinese_name(self, candidate_key: str) -> str | None:
        """The Chinese display name of a major city, if it is one."""
        with self._lock:
            self._database()
        return self._chinese_names.get(candidate_key)

    def to_location(self, candidate: Candidate, query: str) -> Location:
        """Build the public Location; a Chinese query keeps its own wording as the display name, without 市 unless
        one character would be left (芒市 stays 芒市; chinese_keys keeps it alike), and another spelling of the
        place's name is its name in English too ("Hargeisa" of Hargeysa); another name of the place is shown beside
        its own ("George Town (Penang)": answered "George Town is colder", a reader who asked about Penang could not
        tell which place won), not a qualifier ("casper wy")."""
        written, _ = split_qualifier(query)
        if has_cjk(written):
            written = self._from_its_qualifier(written)
            chinese = written.removesuffix("市") if len(written) > 2 else written
        else:
            chinese = self.chinese_name(candidate.key)
        name = english = candidate.name
        if has_cjk(written) and chinese:
            name = chinese
        elif not candidate.exact and _spelt_otherwise(written, candidate.name):
            name = english = _as_a_name(written)
        elif written.isascii() and written.strip().casefold() != candidate.name.casefold() \
                and normalize(written) == normalize(candidate.name):
            name = _as_a_name(written)  # without the name's accents, as asked: "Zurich" (a reader looks for it)
        elif not any(normalize(reading) in normalize(candidate.name) for reading, _ in self._readings(query)):
            # (a qualifier written with no comma is no other name: "casper wy" is Casper)
            name = f"{candidate.name} ({_as_a_name(written)})"
        return Location(
            name=name,
            english_name=english,
            chinese_name=chinese,
            country=candidate.country,
            country_code=candidate.country_code,
            latitude=candidate.latitude,
            longitude=candidate.longitude,
            timezone=candidate.timezone,
        )

    def _named(self, key: str, aliases: bool = True) -> dict[str, Candidate]:
        """The places a normalised name means; a name of aliases.py means its place only (it overrides the data:
        geonames gives 皇后镇 to Bourg-la-Reine) unless `aliases` is off, a major city's added Chinese name adds its
        city."""
        found = {c.key: c for c in map(self._candidate, self._query(_NAMED, (key,)))}  # (opens the index first)
        added = self._added.get(key, {})
        aliased = {place: candidate for place, candidate in added.items() if candidate.exact}
        if aliased and aliases:
            return aliased
        return {**{place: c for place, c in added.items() if not c.exact}, **found}

    def _query(self, sql: str, parameters: object) -> list[tuple]:
        with self._lock:
            return self._database().execute(sql, parameters).fetchall()  # type: ignore[arg-type]

    def _database(self) -> sqlite3.Connection:
        """The open index (the caller holds the lock): opened, and the added names resolved, on first use."""
        if self._db is None:
            self._db = open_index(self._path)
            self._countries = dict(self._db.execute("SELECT code, name FROM countries").fetchall())
            scopes: dict[str, set[Scope]] = {}
            for name, country, admin1 in self._db.execute("SELECT name, country_code, admin1 FROM qualifiers"):
                scopes.setdefault(_qualifier_key(name), set()).add((country, admin1))
            self._scopes = {key: frozenset(found) for key, found in scopes.items()}
            self._added = self._added_names()
            self._listed = {place for places in self._added.values() for place in places}
            self._scopes = {**self._aliases_scopes(), **self._scopes}
        return self._db

    def _added_names(self) -> dict[str, dict[str, Candidate]]:
        added: dict[str, dict[str, Candidate]] = {}
        # (names, whether each counts as the place's own, whether it is the place's Chinese display name)
        for names, exact, displayed in ((MAJOR_CITIES, False, True), (EXONYMS, True, True),
                                        (PLACE_ALIASES, True, False)):
            for written, english in names:
                city = self._main_place(english)
                if city is None:
                    continue
                if displayed:  # the first one listed
                    self._chinese_names.setdefault(city.key, written)
                # a name listed in traditional characters is found as written in simplified ones (瑪瑙斯, 玛瑙斯)
                for key in {normalize(written), simplified_key(written)}:
                    added.setdefault(key, {})[city.key] = Candidate(**{**city.__dict__, "exact": exact})
        for names, latitude, longitude, timezone, code in STATIONS:
            station = Candidate(key=f"{code}:{names[0]}", name=names[0], country_code=code,
                                country=self._countries.get(code, code), latitude=latitude,
                                longitude=longitude, timezone=timezone, population=0, exact=True)
            for written in names:
                added.setdefault(normalize(written), {})[station.key] = station
        return added

    def _aliases_scopes(self) -> dict[str, frozenset[Scope]]:
        """An island or region of aliases.py as a qualifier: the region its town is in ("Hana, Maui" is Hawaii's
        Hana, not Côte d'Ivoire's; "Horta, Azores" the Azores', not Spain's)."""
        scopes: dict[str, frozenset[Scope]] = {}
        for written, english in PLACE_ALIASES:
            town = self._main_place(english)
            if town is not None:
                scopes[_qualifier_key(written)] = frozenset({(town.country_code, town.admin1)})
        return scopes

    def _main_place(self, english: str) -> Candidate | None:
        """The place an unambiguous 'Name, CC' means: the largest of that name in that country."""
        name, (country,) = split_qualifier(english)
        matches = [c for c in self._named(normalize(name)).values() if c.country_code == country]
        return max(matches, key=lambda c: (c.exact, c.population), default=None)

    def _candidate(self, row: tuple) -> Candidate:
        place, name, code, latitude, longitude, timezone, population, region, admin1, major, renown, exact = row
        return Candidate(key=str(place), name=name, country_code=code, country=self._countries.get(code, code),
                         latitude=latitude, longitude=longitude, timezone=timezone, population=population,
                         exact=bool(exact), region=region, admin1=admin1, major=bool(major), renown=renown)


def _a_typo_of(written: str, key: str) -> bool:
    """Whether a normalised name may be a typo of a key: as many words, each still alike (a word replaced is
    another name: Fernando de Noronha is not Fernando de la Mora), and a letter or fewer more or less."""
    words, key_words = written.split(), key.split()
    return (len(words) == len(key_words) and abs(len(written) - len(key)) <= 1
            and all(difflib.SequenceMatcher(None, a, b).ratio() >= SPELLING_RATIO for a, b in zip(words, key_words)))


def _as_a_name(written: str) -> str:
    """A name as the query writes it, capitalised where it is all lower case ("kl": KL, "hai phong": Hai Phong)."""
    written = written.strip()
    if not written.islower():
        return written
    return written.upper() if len(written) <= 3 else written.title()


def _spelt_otherwise(written: str, name: str) -> bool:
    """Whether a name the query matched by an alias is the place's own name spelt otherwise (Hargeisa, Hargeysa)."""
    return difflib.SequenceMatcher(None, normalize(written), normalize(name)).ratio() >= SPELLING_RATIO


def _standing_out(cities: Iterable[Candidate]) -> Candidate | None:
    """The most populous city, when it has five times the people of any other more than SAME_PLACE_KM away (a
    city's district is the city listed twice: 徐州 names Xuzhou and Tongshan, 12 km apart)."""
    ranked = sorted(cities, key=lambda c: c.population, reverse=True)
    if not ranked:
        return None
    leader = ranked[0]
    rivals = [c for c in ranked[1:]
              if distance_km(leader.latitude, leader.longitude, c.latitude, c.longitude) > SAME_PLACE_KM]
    return leader if not rivals or leader.population >= 5 * rivals[0].population else None


def _as_the_county(county: Candidate, candidates: list[Candidate]) -> list[Candidate]:
    """The places a name of a Chinese county means: those at the county (宁海 is a county of Zhejiang and a town of
    Shandong), else the county itself, unless a city of LEADING_PLACE_MIN_POPULATION or more where Chinese is
    written is named so within NAMESAKE_CITY_KM (通化 is the city, not the county beside it; 澄江, an old name of
    Jiangyin, is Yunnan's county, and 阳城 Shanxi's, not a Chongqing town 800 km off), or, for a city's
    district, any city of that many. A town elsewhere (竹山, Taiwan) and a foreign city's Chinese name (巴东,
    Padang) do not outrank a county people in China know by it."""
    at = [c for c in candidates if distance_km(county.latitude, county.longitude, c.latitude, c.longitude)
          <= SAME_PLACE_KM]
    if at:
        return at
    district = is_district(county.key)  # a city's district, less known abroad than a county: 松山 is Matsuyama
    if any((district or _namesake_city(county, c)) and c.population >= LEADING_PLACE_MIN_POPULATION
           for c in candidates):
        return candidates
    return [county]


def _namesake_city(county: Candidate, city: Candidate) -> bool:
    """Whether a place where Chinese is written is named as the county is (its pinyin), within NAMESAKE_CITY_KM."""
    return city.country_code in CHINESE_SPEAKING and normalize(city.name).replace(" ", "") == county.name.casefold() \
        and distance_km(county.latitude, county.longitude, city.latitude, city.longitude) <= NAMESAKE_CITY_KM


def _distinct_places(places: Sequence[Candidate]) -> int:
    """How many places the candidates are, entries within SAME_PLACE_KM of a larger one counted as that one."""
    distinct: list[Candidate] = []
    for place in sorted(places, key=lambda c: c.population, reverse=True):
        if all(distance_km(place.latitude, place.longitude, d.latitude, d.longitude) > SAME_PLACE_KM
               for d in distinct):
            distinct.append(place)
    return len(distinct)


def _qualifier_key(qualifier: str) -> str:
    """The key a qualifier and a listed name meet by: normalised, simplified, without "province" or 省."""
    key = simplified_key(qualifier)
    suffix = next((s for s in _QUALIFIER_SUFFIXES if key.endswith(s) and len(key) - len(s) >= 2), "")
    return key.removesuffix(suffix) if suffix else key
