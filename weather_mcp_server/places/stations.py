"""Research stations of Antarctica, the one continent with no town in geonames: people ask the weather at them
("中国南极长城站现在多少度", "McMurdo Station tomorrow"). Each is (its names, latitude, longitude, time zone); a
name counts as the station's own, as aliases.py's do.

Kept short on purpose: the permanent stations people name, with names that mean nothing else (泰山站, not 泰山).
"""

from __future__ import annotations

STATIONS: tuple[tuple[tuple[str, ...], float, float, str], ...] = (
    (("Great Wall Station", "长城站", "南极长城站", "中国南极长城站"), -62.22, -58.96, "Antarctica/Palmer"),
    (("Zhongshan Station", "中山站", "南极中山站", "中国南极中山站"), -69.37, 76.37, "Antarctica/Davis"),
    (("Kunlun Station", "昆仑站", "南极昆仑站", "中国南极昆仑站"), -80.42, 77.12, "Antarctica/Davis"),
    (("Taishan Station", "泰山站", "南极泰山站", "中国南极泰山站"), -73.86, 76.98, "Antarctica/Davis"),
    (("Qinling Station", "秦岭站", "南极秦岭站", "中国南极秦岭站"), -74.93, 163.70, "Antarctica/McMurdo"),
    (("McMurdo Station", "McMurdo", "麦克默多站"), -77.85, 166.67, "Antarctica/McMurdo"),
    (("Scott Base", "斯科特基地"), -77.85, 166.76, "Antarctica/McMurdo"),
    (("Amundsen-Scott South Pole Station", "South Pole Station", "South Pole", "南极点", "阿蒙森-斯科特站"),
     -90.0, 0.0, "Antarctica/McMurdo"),
    (("Vostok Station", "东方站", "沃斯托克站"), -78.46, 106.84, "Antarctica/Vostok"),
    (("Casey Station", "凯西站"), -66.28, 110.53, "Antarctica/Casey"),
    (("Davis Station", "戴维斯站"), -68.58, 77.97, "Antarctica/Davis"),
    (("Mawson Station", "莫森站"), -67.60, 62.87, "Antarctica/Mawson"),
    (("Rothera Research Station", "Rothera Station", "Rothera", "罗瑟拉站"), -67.57, -68.13, "Antarctica/Rothera"),
    (("Palmer Station", "帕尔默站"), -64.77, -64.05, "Antarctica/Palmer"),
    (("Halley Research Station", "Halley Station", "哈雷站"), -75.58, -26.66, "Etc/UTC"),
    (("Neumayer Station III", "Neumayer Station", "诺伊迈尔站"), -70.67, -8.27, "Etc/UTC"),
    (("Troll Station", "特罗尔站"), -72.01, 2.53, "Antarctica/Troll"),
    (("Syowa Station", "昭和站", "昭和基地"), -69.00, 39.58, "Antarctica/Syowa"),
    (("Dumont d'Urville Station", "迪蒙·迪维尔站"), -66.66, 140.00, "Antarctica/DumontDUrville"),
    (("Concordia Station", "康科迪亚站"), -75.10, 123.33, "Antarctica/DumontDUrville"),
    (("King Sejong Station", "世宗站"), -62.22, -58.79, "Antarctica/Palmer"),
    (("Bellingshausen Station", "别林斯高晋站"), -62.20, -58.96, "Antarctica/Palmer"),
    (("Esperanza Base", "希望湾站"), -63.40, -57.00, "Antarctica/Palmer"),
    (("Marambio Base", "马兰比奥站"), -64.24, -56.63, "Antarctica/Palmer"),
    (("Villa Las Estrellas", "星辰镇"), -62.20, -58.96, "Antarctica/Palmer"),
)
