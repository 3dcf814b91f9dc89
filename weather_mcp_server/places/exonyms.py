"""Chinese names of places abroad that geonames lacks (仁川: it has only 仁川广域市), spells otherwise (索非亚 beside
its 索菲亞) or gives to a smaller namesake (奥克兰 is Auckland before Oakland, 华盛顿 the capital before an English
town), here and in exonyms.csv (夏蒙尼, 二世古, 束草: the towns Chinese speakers travel to). Each is (Chinese name,
"English name, CC"): the name counts as the place's own and is its Chinese display name. A Chinese county of the
same name keeps it (大田 is Fujian's county, not Daejeon: see gazetteer._as_the_county), and a Chinese place's name
is no name of a place abroad (江陵 is Hubei's, not Gangneung).
"""

from __future__ import annotations

import csv
from pathlib import Path

_EXONYMS: tuple[tuple[str, str], ...] = (
    # East and South-East Asia
    ("仁川", "Incheon, KR"),
    ("大邱", "Daegu, KR"),
    ("下龙", "Ha Long, VN"),
    ("下龙湾", "Ha Long, VN"),
    ("槟城", "George Town, MY"),
    ("檳城", "George Town, MY"),
    ("乌布", "Ubud, ID"),
    ("宿务", "Cebu City, PH"),
    ("宿雾", "Cebu City, PH"),
    ("斯里巴加湾", "Bandar Seri Begawan, BN"),
    ("文莱", "Bandar Seri Begawan, BN"),
    # South Asia and the Middle East
    ("瓦拉纳西", "Varanasi, IN"),
    ("果阿", "Panaji, IN"),
    ("博卡拉", "Pokhara, NP"),
    ("科威特城", "Kuwait City, KW"),
    ("科威特", "Kuwait City, KW"),
    ("埃里温", "Yerevan, AM"),
    # Europe
    ("索非亚", "Sofia, BG"),
    ("索菲亚", "Sofia, BG"),
    ("摩纳哥", "Monaco, MC"),
    ("剑桥", "Cambridge, GB"),
    ("布鲁日", "Bruges, BE"),
    ("琉森", "Lucerne, CH"),
    ("威尼斯", "Venice, IT"),
    ("卡塔尼亚", "Catania, IT"),
    ("锡耶纳", "Siena, IT"),
    ("波尔图", "Porto, PT"),
    # The Americas
    ("华盛顿", "Washington, US"),
    ("火奴鲁鲁", "Honolulu, US"),
    ("安克雷奇", "Anchorage, US"),
    ("魁北克城", "Québec, CA"),
    ("哈利法克斯", "Halifax, CA"),
    ("圣何塞", "San José, CR"),
    ("加拉加斯", "Caracas, VE"),
    # Africa
    ("亚历山大", "Alexandria, EG"),
    ("亚历山大港", "Alexandria, EG"),
    ("卢克索", "Luxor, EG"),
    ("非斯", "Fes, MA"),
    ("亚的斯亚贝巴", "Addis Ababa, ET"),
    ("基加利", "Kigali, RW"),
    ("拉各斯", "Lagos, NG"),
    ("路易港", "Port Louis, MU"),
    ("毛里求斯", "Port Louis, MU"),
    # Oceania
    ("奥克兰", "Auckland, NZ"),
    ("罗托鲁瓦", "Rotorua, NZ"),
    ("斐济", "Suva, FJ"),
    ("苏瓦", "Suva, FJ"),
    ("关岛", "Hagåtña, GU"),
)


def _listed() -> tuple[tuple[str, str], ...]:
    """exonyms.csv: the Chinese name, and the place as "English name, CC"."""
    with Path(__file__).with_name("exonyms.csv").open(encoding="utf-8", newline="") as table:
        return tuple((row["chinese"].strip(), row["english"].strip()) for row in csv.DictReader(table))


EXONYMS: tuple[tuple[str, str], ...] = _EXONYMS + _listed()
