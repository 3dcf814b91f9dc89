"""Places known by their coordinates: the research stations of Antarctica, the one continent with no town in
geonames ("中国南极长城站现在多少度", "McMurdo Station tomorrow"), and the sights travellers ask the weather of with no
town of 500 people within a visitor's reach: 阿里山 here, 2,200 m above the nearest town, 27 km off, and the
villages, resorts, parks, fjords and valleys of sights.csv (Milford Sound, Thredbo, Abisko). Each is (its names,
latitude, longitude, time zone, country code); a name counts as the place's own, as aliases.py's do, so only names
that mean nothing else are listed (泰山站, not 泰山).
"""

from __future__ import annotations

import csv
from pathlib import Path

Station = tuple[tuple[str, ...], float, float, str, str]

_STATIONS: tuple[Station, ...] = (
    (("Great Wall Station", "长城站", "南极长城站", "中国南极长城站"), -62.22, -58.96, "Antarctica/Palmer", "AQ"),
    (("Zhongshan Station", "中山站", "南极中山站", "中国南极中山站"), -69.37, 76.37, "Antarctica/Davis", "AQ"),
    (("Kunlun Station", "昆仑站", "南极昆仑站", "中国南极昆仑站"), -80.42, 77.12, "Antarctica/Davis", "AQ"),
    (("Taishan Station", "泰山站", "南极泰山站", "中国南极泰山站"), -73.86, 76.98, "Antarctica/Davis", "AQ"),
    (("Qinling Station", "秦岭站", "南极秦岭站", "中国南极秦岭站"), -74.93, 163.70, "Antarctica/McMurdo", "AQ"),
    (("McMurdo Station", "McMurdo", "麦克默多站"), -77.85, 166.67, "Antarctica/McMurdo", "AQ"),
    (("Scott Base", "斯科特基地"), -77.85, 166.76, "Antarctica/McMurdo", "AQ"),
    (("Amundsen-Scott South Pole Station", "South Pole Station", "South Pole", "南极点", "阿蒙森-斯科特站"),
     -90.0, 0.0, "Antarctica/McMurdo", "AQ"),
    (("Vostok Station", "东方站", "沃斯托克站"), -78.46, 106.84, "Antarctica/Vostok", "AQ"),
    (("Casey Station", "凯西站"), -66.28, 110.53, "Antarctica/Casey", "AQ"),
    (("Davis Station", "戴维斯站"), -68.58, 77.97, "Antarctica/Davis", "AQ"),
    (("Mawson Station", "莫森站"), -67.60, 62.87, "Antarctica/Mawson", "AQ"),
    (("Rothera Research Station", "Rothera Station", "Rothera", "罗瑟拉站"), -67.57, -68.13, "Antarctica/Rothera", "AQ"),
    (("Palmer Station", "帕尔默站"), -64.77, -64.05, "Antarctica/Palmer", "AQ"),
    (("Halley Research Station", "Halley Station", "哈雷站"), -75.58, -26.66, "Etc/UTC", "AQ"),
    (("Neumayer Station III", "Neumayer Station", "诺伊迈尔站"), -70.67, -8.27, "Etc/UTC", "AQ"),
    (("Troll Station", "特罗尔站"), -72.01, 2.53, "Antarctica/Troll", "AQ"),
    (("Syowa Station", "昭和站", "昭和基地"), -69.00, 39.58, "Antarctica/Syowa", "AQ"),
    (("Dumont d'Urville Station", "迪蒙·迪维尔站"), -66.66, 140.00, "Antarctica/DumontDUrville", "AQ"),
    (("Concordia Station", "康科迪亚站"), -75.10, 123.33, "Antarctica/DumontDUrville", "AQ"),
    (("King Sejong Station", "世宗站"), -62.22, -58.79, "Antarctica/Palmer", "AQ"),
    (("Bellingshausen Station", "别林斯高晋站"), -62.20, -58.96, "Antarctica/Palmer", "AQ"),
    (("Esperanza Base", "希望湾站"), -63.40, -57.00, "Antarctica/Palmer", "AQ"),
    (("Marambio Base", "马兰比奥站"), -64.24, -56.63, "Antarctica/Palmer", "AQ"),
    (("Villa Las Estrellas", "星辰镇"), -62.20, -58.96, "Antarctica/Palmer", "AQ"),
    (("Alishan", "阿里山", "阿里山國家森林遊樂區", "阿里山国家森林游乐区"), 23.51, 120.80, "Asia/Taipei", "TW"),
    (("Sun Moon Lake", "日月潭"), 23.86, 120.92, "Asia/Taipei", "TW"),
    # 二道白河, the town at its northern gate, is no town in geonames
    (("Changbai Mountain", "Changbaishan", "长白山", "長白山", "长白山景区"), 42.40, 128.11, "Asia/Shanghai", "CN"),
)


def _sights() -> tuple[Station, ...]:
    """sights.csv: names (English first, then other spellings and the Chinese ones, separated by ";"), latitude,
    longitude, time zone, country code."""
    with Path(__file__).with_name("sights.csv").open(encoding="utf-8", newline="") as table:
        return tuple((tuple(name.strip() for name in row["names"].split(";") if name.strip()),
                      float(row["latitude"]), float(row["longitude"]), row["timezone"], row["country_code"])
                     for row in csv.DictReader(table))


STATIONS: tuple[Station, ...] = _STATIONS + _sights()
