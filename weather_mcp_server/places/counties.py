"""China's county-level divisions (县, 县级市, 旗, 自治县, 林区, and cities' districts, 区) with their coordinates,
from the adcodes table of cpca 0.5.5 (MIT: china_counties.LICENSE): geonames lists most county towns by their
pinyin only, so 红原, 绩溪, 黎平 or 洞头 were unknown. A name two divisions far apart share is left out, and a
district's name where a county has it."""

from __future__ import annotations

import csv
import re
from functools import lru_cache
from pathlib import Path

from weather_mcp_server.places.chinese_writing import ETHNIC_GROUPS
from weather_mcp_server.places.names import SAME_PLACE_KM, distance_km
from weather_mcp_server.places.pinyin import pinyin_keys

_TABLE = Path(__file__).with_name("china_counties.csv")
_SUFFIXES = ("自治县", "自治旗", "林区", "特区", "县", "市", "旗", "区")
# What follows an autonomous county's leading name: its peoples (names ending in 族, or a people's name alone:
# 木垒哈萨克自治县, 和布克赛尔蒙古自治县), then 自治县 or 自治旗.
_PEOPLES = re.compile(rf"(?:(?:[^族]{{1,4}}族)|{'|'.join(sorted(ETHNIC_GROUPS, key=len, reverse=True))})+自治[县旗]")

# Divisions renamed since the table was made (2018), by their new names: both names are kept.
_RENAMED = {"彬县": "彬州市", "盘县": "盘州市", "滦县": "滦州市"}

# Sights no town is named after, by the county whose town visitors stay in, within 30 km of them.
_SIGHTS = {"千岛湖": "淳安县", "雁荡山": "乐清市", "天目山": "临安市", "九华山": "青阳县", "三清山": "玉山县",
           "梵净山": "江口县", "黄果树": "镇宁布依族苗族自治县", "黄果树瀑布": "镇宁布依族苗族自治县", "嵩山": "登封市",
           "少林寺": "登封市", "华山": "华阴市", "宏村": "黟县", "西递": "黟县", "壶口瀑布": "吉县", "西塘": "嘉善县",
           "白洋淀": "安新县", "洱海": "大理市"}

County = tuple[str, str, float, float]  # its full name, its leading name (红原, 陵水), latitude, longitude


def is_district(name: str) -> bool:
    """Whether a division's full name is a city's district (海淀区), not a county (林区 and 特区 are counties)."""
    return name.endswith("区") and not name.endswith(("林区", "特区"))


def county_named(name: str) -> County | None:
    """The county a Chinese name means, by its full name (红原县) or without its suffix (红原)."""
    return _counties().get(name)


# A name read by its sound must be this long: two characters of one sound are as often another county (泰山, 台山).
SOUND_MIN_LENGTH = 3


def county_sounding_like(name: str) -> str | None:
    """The county name (its key) a name of SOUND_MIN_LENGTH characters or more that no county has reads as,
    when only one does: a typo by sound (九寨钩 is 九寨沟, 蛾眉山 峨眉山)."""
    if len(name) < SOUND_MIN_LENGTH or name in _counties():
        return None
    found = _by_sound().get(pinyin_keys(name)[0], set())
    return next(iter(found)) if len(found) == 1 else None


@lru_cache(maxsize=1)
def _by_sound() -> dict[str, set[str]]:
    """The counties' keys of SOUND_MIN_LENGTH or more characters by their toneless pinyin; one county's several
    keys of one sound (九寨沟, and 九寨沟县 read apart) count once, by its shortest."""
    sounds: dict[str, dict[str, str]] = {}
    for key, county in _counties().items():
        if len(key) >= SOUND_MIN_LENGTH:
            keys = sounds.setdefault(pinyin_keys(key)[0], {})
            keys[county[0]] = min(keys.get(county[0], key), key, key=len)
    return {sound: set(keys.values()) for sound, keys in sounds.items()}


@lru_cache(maxsize=1)
def _counties() -> dict[str, County]:
    counties: dict[str, list[County]] = {}
    districts: dict[str, list[County]] = {}
    with _TABLE.open(encoding="utf-8", newline="") as table:
        for row in csv.DictReader(table):
            keys = _keys(row["name"])
            county = (row["name"], min(keys, key=len), float(row["latitude"]), float(row["longitude"]))
            also = _keys(_RENAMED[row["name"]]) if row["name"] in _RENAMED else set()
            for key in keys | also | {sight for sight, seat in _SIGHTS.items() if seat == row["name"]}:
                (districts if is_district(row["name"]) else counties).setdefault(key, []).append(county)
    # A district names what no county does: 象山 is Ningbo's county, not also Guilin's district.
    by_name = {**{key: found for key, found in districts.items() if key not in counties}, **counties}
    return {key: found[0] for key, found in by_name.items()
            if all(distance_km(found[0][2], found[0][3], c[2], c[3]) <= SAME_PLACE_KM for c in found)}


def _keys(name: str) -> set[str]:
    """The full name, without its suffix, and an autonomous county's leading name (陵水 of 陵水黎族自治县; 积石山 of
    积石山保安族东乡族撒拉族自治县, where 积石 may be read too: the same place), also with 县 or 旗 (鄂伦春旗)."""
    keys = {name}
    keys.update(name[:cut] for cut in range(2, len(name)) if "族" not in name[:cut] and _PEOPLES.fullmatch(name[cut:]))
    suffix = next((s for s in _SUFFIXES if name.endswith(s)), "")
    if suffix and len(name) - len(suffix) >= 2:
        keys.add(name[:-len(suffix)])
    if suffix.startswith("自治"):  # and with 县 or 旗 alone (鄂伦春旗, 陵水县)
        keys.update(f"{key}{suffix[-1]}" for key in list(keys) if key != name)
    return keys
