"""Name normalisation and candidate choice shared by the offline gazetteer and online geocoding."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from opencc import OpenCC

from weather_mcp_server.errors import AmbiguousPlace
from weather_mcp_server.places.chinese_writing import CONFUSED_CHARACTERS
from weather_mcp_server.wording.language import pick

# A runner-up at least this share of the leader's population makes a name ambiguous.
AMBIGUITY_POPULATION_RATIO = 0.5
ALIAS_DISCOUNT = 0.1
KNOWN_CITY = 50_000
ALIAS_OVER_NAME = 100
# A name in Chinese characters (no kana) means a place where Chinese is written ten times more readily: 台东 is
# Taitung (103,000 people), not Taito, Tokyo (211,000), whose 台東 is the same characters; 东京 is still Tokyo.
CHINESE_SPEAKING = ("CN", "HK", "MO", "TW")
CHINESE_NAME_PREFERENCE = 10.0
# Among places of a name close in size, one named in this many times as many other languages and spellings as each
# of the others is the one meant (Venice, Italy: 66 names; Venice, California: 15; Aberdeen, Scotland over Aberdeen,
# Hong Kong; Amalfi, Italy over a Colombian town twice its size), once it has at least RENOWN_MIN of them.
RENOWN_RATIO = 3.0
RENOWN_MIN = 8
# Candidates closer than this are one place listed twice (a city and its district, say).
SAME_PLACE_KM = 50.0

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_KANA = re.compile(r"[\u3040-\u30ff]")
# Latin (with accents) and Chinese: the scripts most users type, indexed for every town; the names in other scripts
# (Тбилиси, ホノルル) are indexed for the major places only (index_build.py), a tenth of the size for all.
_INDEXED_SCRIPT = re.compile(
    r"^[\u0000-\u024f\u1e00-\u1eff\u2018-\u201f\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]+$"
)
_DROPPED = re.compile(r"['’‘`ʻʼ.]")
_SEPARATORS = re.compile(r"[\s\-_=/]+")
_COMMAS = re.compile(r"\s*[,，]\s*")
_PARENTHESISED = re.compile(r"^(?P<outer>[^()（）]+?)\s*[(（]\s*(?P<inner>[^()（）]+?)\s*[)）]$")
_COORDINATES = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*[,，\s]\s*(-?\d+(?:\.\d+)?)\s*$")


@dataclass(frozen=True)
class Candidate:
    """One place a name may mean; `exact` is True when the name is its primary name, not an alias."""

    key: str
    name: str
    country_code: str
    country: str
    latitude: float
    longitude: float
    timezone: str
    population: int
    exact: bool
    region: str = ""  # the state or province, where the source names it ("Illinois")
    admin1: str = ""  # geonames' code of that region ("IL"; "08" for Ontario); none from geocoding
    major: bool = True  # a city of 15,000 or more, or a capital; smaller towns answer only names none of these has
    renown: int = 0  # how many other names (languages, spellings) the offline data lists for it; 0: not known

    def label(self) -> str:
        """Short human description used in error messages."""
        where = f"{self.latitude:.2f}, {self.longitude:.2f}"
        region = f"{self.region}, " if self.region else ""
        return f"{self.name}, {region}{self.country_code} ({where}; population {self.population:,})"


def choice_labels(candidates: Sequence[Candidate]) -> dict[str, Candidate]:
    """A label a person picks from ("Springfield, Illinois, United States") for each candidate, in order; two that
    read the same are told apart by their coordinates."""
    def plain(candidate: Candidate) -> str:
        return ", ".join(part for part in (candidate.name, candidate.region, candidate.country) if part)

    plains = [plain(candidate) for candidate in candidates]
    return {(text if plains.count(text) == 1 else f"{text} ({c.latitude:.2f}, {c.longitude:.2f})"): c
            for text, c in zip(plains, candidates)}


# Letters that are no base letter plus an accent, so NFKD leaves them: 'Đà Lạt' is written 'Da Lat' too.
_UNDECOMPOSED = str.maketrans({"đ": "d", "ð": "d", "ø": "o", "ł": "l", "ı": "i", "æ": "ae", "œ": "oe", "þ": "th"})


def normalize(name: str) -> str:
    """Case-, accent- and punctuation-insensitive key: 'Xi’an' and 'xian' meet, 'ba li' and 'Bali' do not."""
    text = name.casefold()
    if not text.isascii():  # the fast path matters: the index normalises about a million names
        text = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))
        text = text.translate(_UNDECOMPOSED)
    text = _DROPPED.sub("", text)
    return _SEPARATORS.sub(" ", text).strip()


# Bodies of the sky, asked about as such ("a forecast for Mars?"): no place on Earth, though small towns bear
# some of their names (Mars, Pennsylvania): a qualifier ("Mars, PA") still finds those.
_OFF_EARTH = {"mars", "the moon", "moon", "mercury", "venus", "jupiter", "saturn", "neptune", "uranus", "pluto", "the sun",
              "火星", "月球", "月亮", "水星", "金星", "木星", "土星", "海王星", "天王星", "冥王星", "太阳",
              "titan", "europa", "ganymede", "enceladus", "泰坦", "土卫六", "木卫二"}


def off_earth(name: str) -> bool:
    """Whether a name, unqualified, is a body of the sky rather than a place on Earth."""
    return normalize(name).removeprefix("planet ") in _OFF_EARTH


# Places of stories, asked about as if real ("Is it raining in Westeros?"): a close spelling of a real city
# (Västerås) is not what was meant. Only names no town of geonames bears (not Atlantis, Florida; not 香格里拉).
_FICTIONAL = {"westeros", "essos", "winterfell", "kings landing", "narnia", "middle earth", "mordor", "gondor",
              "rivendell", "hogwarts", "hogsmeade", "wakanda", "neverland", "asgard", "tatooine", "hyrule",
              "gotham city", "arrakis", "krypton", "lilliput", "camelot", "zootopia", "atlantis city",
              "维斯特洛", "临冬城", "君临", "纳尼亚", "中土世界", "中土", "魔多", "刚铎", "霍格沃茨", "霍格莫德", "瓦坎达", "梦幻岛",
              "永无岛", "阿斯加德", "塔图因", "海拉鲁", "哥谭", "哥谭市", "厄拉科斯", "氪星", "小人国", "卡美洛", "疯狂动物城"}


def fictional(name: str) -> bool:
    """Whether a name, unqualified, is a place of stories rather than one on Earth."""
    return simplified_key(name) in _FICTIONAL if has_cjk(name) else normalize(name) in _FICTIONAL


_TO_SIMPLIFIED = OpenCC("t2s")


def chinese_keys(name: str) -> set[str]:
    """The keys a Chinese name is also found by: in simplified characters (geonames has many names only in
    traditional ones, 開普敦 for Cape Town) and without the "city" suffix (it has 丽江市; users write 丽江)."""
    simplified = simplified_key(name)
    keys = {simplified}
    if simplified.endswith("市") and len(simplified) > 2:
        keys.add(simplified.removesuffix("市"))
    return keys


def simplified_key(name: str) -> str:
    """The normalised key of a name in simplified characters."""
    return normalize(_TO_SIMPLIFIED.convert(name))


def _confusions(groups: Sequence[str]) -> dict[str, str]:
    """Each character of the groups, with the characters of every group it is in but itself."""
    others: dict[str, str] = {}
    for group in groups:
        for character in group:
            others[character] = others.get(character, "") + group.replace(character, "")
    return others


_CONFUSED = _confusions(CONFUSED_CHARACTERS)


def confused_variants(key: str) -> Iterator[str]:
    """The names one commonly confused character away from a simplified Chinese key (荷泽 -> 菏泽; chinese_writing.py)."""
    for at, character in enumerate(key):
        for other in _CONFUSED.get(character, ""):
            yield key[:at] + other + key[at + 1:]


def is_indexed_script(name: str) -> bool:
    """True for Latin-script and Chinese names, the ones indexed for every town."""
    return name.isascii() or bool(_INDEXED_SCRIPT.match(name))


def has_cjk(text: str) -> bool:
    """True when the text contains Chinese characters."""
    return bool(_CJK.search(text))


def split_qualifier(query: str) -> tuple[str, tuple[str, ...]]:
    """'Paris, FR' -> ('Paris', ('FR',)); 'Kochi, Kerala, India' -> ('Kochi', ('Kerala', 'India')); a bare name
    has none."""
    name, *qualifiers = [part for part in _COMMAS.split(query.strip()) if part] or [""]
    return name, tuple(qualifiers)


def split_parenthesised(name: str) -> tuple[str, str] | None:
    """'Bali (Denpasar)' -> ('Bali', 'Denpasar'); None without a parenthesis."""
    match = _PARENTHESISED.match(name)
    return (match["outer"], match["inner"]) if match else None


def parse_coordinates(query: str) -> tuple[float, float] | None:
    """'39.9, 116.4' -> (39.9, 116.4) when both are valid latitude/longitude, else None."""
    match = _COORDINATES.match(query)
    if not match:
        return None
    lat, lon = float(match[1]), float(match[2])
    if -90 <= lat <= 90 and -180 <= lon <= 180:
        return lat, lon
    return None


def distance_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 6371.0 * 2 * math.asin(math.sqrt(min(1.0, a)))


def choose(query: str, candidates: list[Candidate], by_renown: bool = True) -> Candidate:
    """Pick the best-scored candidate; refuse when a rival place (not a duplicate nearby) scores close to it,
    unless one of them is far better known (`by_renown`; places asked together first look for each other)."""
    chinese = has_cjk(query) and not _KANA.search(query)

    def score(candidate: Candidate) -> float:
        preferred = chinese and candidate.country_code in CHINESE_SPEAKING
        return _score(candidate) * (CHINESE_NAME_PREFERENCE if preferred else 1.0)

    if not chinese:
        candidates = _known_by_the_name(candidates)
    ranked = sorted(candidates, key=score, reverse=True)
    leader = ranked[0]
    rivals = [
        c
        for c in ranked[1:]
        if distance_km(leader.latitude, leader.longitude, c.latitude, c.longitude) > SAME_PLACE_KM
        and score(c) >= AMBIGUITY_POPULATION_RATIO * score(leader)
    ]
    if rivals:
        known = renowned([leader, *rivals]) if by_renown else None
        if known is not None:
            return known
        shown = [leader, *rivals][:6]
        listed = "; ".join(c.label() for c in shown)
        raise AmbiguousPlace(pick(
            f"Place name {query!r} is ambiguous. Candidates: {listed}. "
            "Add the country code (e.g. 'Cambridge, GB') or pass 'latitude,longitude'.",
            f"地名“{query}”有多个可能：{listed}。请加上国家代码（如“Cambridge, GB”）或给出“纬度,经度”。"), shown)
    return leader


def renowned(close: Sequence[Candidate]) -> Candidate | None:
    """The one of places close in size that is far more widely known than each of the others, if one is."""
    ranked = sorted(close, key=lambda c: c.renown, reverse=True)
    first, second = ranked[0], ranked[1]
    return first if first.renown >= max(RENOWN_MIN, RENOWN_RATIO * second.renown) else None


def _known_by_the_name(candidates: list[Candidate]) -> list[Candidate]:
    """The candidates less the places the name is only another name of, where a city of KNOWN_CITY people or more
    has it as its own, unless such a place is ALIAS_OVER_NAME times its size: "Jayapura" is Jayapura, not Jaipur;
    "Arrecife" is Arrecife, not Recife; "Canton" is still Guangzhou, "Pekin" Beijing."""
    known = [c.population for c in candidates if c.exact and c.population >= KNOWN_CITY]
    if not known:
        return candidates
    return [c for c in candidates if c.exact or c.population >= ALIAS_OVER_NAME * max(known)]


def _score(candidate: Candidate) -> float:
    """Population, discounted tenfold for alias matches: 'Pekin' means Beijing, 'Paris' still means Paris, FR."""
    return candidate.population * (1.0 if candidate.exact else ALIAS_DISCOUNT)
