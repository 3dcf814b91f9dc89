"""How people write Chinese place names the index lacks: the data of the gazetteer's one-character correction
(荷泽 -> 菏泽), of its leading place (稻城亚丁 -> 稻城) and of the short names of autonomous counties (陵水).

Kept as data, and short on purpose: every entry can turn a name nothing was found for into a place, or keep it
unknown.
"""

from __future__ import annotations

# Characters written for one another in place names: a rare character of a name and the common ones that look or
# sound like it (菏泽 written 荷泽, 亳州 毫州, 郴州 郴洲), in simplified characters (queries are simplified first).
# Known confusions, not every homophone: most Chinese place names have two characters, and one of them swapped for
# any other of the same sound is as often another word as a typo (泰山 -> 大山, Ōyama; 衡山 -> 恒山, another mountain;
# 家里 -> 加里, Gary).
CONFUSED_CHARACTERS: tuple[str, ...] = (
    "菏荷",  # 菏泽
    "亳毫",  # 亳州
    "州洲",  # 郴州, 苏州 ...
    "阳扬",  # 洛阳, 扬州 ...
    "沽估",  # 塘沽
    "泸沪",  # 泸州
    "漯螺",  # 漯河
    "衢瞿",  # 衢州
    "儋担",  # 儋州
    "濮璞",  # 濮阳
    "邳丕",  # 邳州
    "睢雎",  # 睢宁
    "兖衮",  # 兖州
    "涿琢",  # 涿州
    "邢刑",  # 邢台
    "淄缁",  # 淄博
    "荥荣",  # 荥阳
    "汨汩",  # 汨罗
    "阆朗",  # 阆中
    "嵊乘",  # 嵊州
    "珲浑",  # 珲春
    "忻欣",  # 忻州
    "醴礼",  # 醴陵
    "耒来",  # 耒阳
    "莱来",  # 莱阳, 莱州
    "鄱番",  # 鄱阳
    "滁除",  # 滁州
    "涪浮",  # 涪陵
    "泗四",  # 泗洪
    "沭术",  # 沭阳
    "溧栗",  # 溧阳
    "厦夏",  # 厦门
    "鄂颚",  # 鄂州, 鄂尔多斯
    "榆愉",  # 榆林
    "沧仓",  # 沧州
    "漳樟章",  # 漳州
    "莆蒲甫",  # 莆田
    "潍维",  # 潍坊
    "淮准",  # 淮安, 淮南
    "滨宾",  # 哈尔滨, 滨州
    "梧悟",  # 梧州
    "湛堪",  # 湛江
    "郸单",  # 邯郸
    "鞍安",  # 鞍山
    "汾份",  # 汾阳
    "朔塑",  # 朔州
    "潭谭",  # 鹰潭, 湘潭
    "纳那",  # 马纳瓜 (Managua): a foreign name's "na" is written either way
)

# The endings of names of spots inside a city: a street, a park, a campus, a station, a memorial. Such spots are
# named after other places and people as often as not (南京路 is in Shanghai, 中山大学 in Guangzhou, 中山陵园 in
# Nanjing, 黄石公园 is Yellowstone, 龙门石窟 is in Luoyang, not Longmen county), so the place name they begin with says
# nothing about where they are.
SPOT_ENDINGS: tuple[str, ...] = (
    "路", "街", "道", "巷", "胡同", "弄", "桥", "广场", "公园", "花园", "乐园", "动物园", "植物园", "大学", "学院",
    "中学", "小学", "学校", "医院", "机场", "站", "码头", "大厦", "中心", "商场", "酒店", "宾馆", "饭店", "小区",
    "体育场", "体育馆", "博物馆", "纪念馆", "纪念堂", "陵园", "故居", "石窟",
)

# A part of a city named after it ("清迈古城", "大理古城", "成都市区"): the city, whatever the city is.
CITY_PART_ENDINGS: tuple[str, ...] = ("老城区", "古城", "老城", "市区", "城区", "市中心")

# The first characters of a landform's name, after the place name it begins with: that mountain or lake is named
# after the place, not in it (普陀山 is off Zhoushan, not in Shanghai's Putuo district).
LANDFORM_CHARACTERS = "山湖岛江河海峰岭谷洞峡湾泉溪池"

# China's ethnic minorities, as autonomous counties and banners are named after them (陵水黎族自治县, 双江拉祜族佤族
# 布朗族傣族自治县): the index also finds such a county by the name before them (陵水), the name people use.
ETHNIC_GROUPS: tuple[str, ...] = (
    "蒙古", "回", "藏", "维吾尔", "苗", "彝", "壮", "布依", "朝鲜", "满", "侗", "瑶", "白", "土家", "哈尼", "哈萨克",
    "傣", "黎", "傈僳", "佤", "畲", "高山", "拉祜", "水", "东乡", "纳西", "景颇", "柯尔克孜", "土", "达斡尔", "仫佬",
    "羌", "布朗", "撒拉", "毛南", "仡佬", "锡伯", "阿昌", "普米", "塔吉克", "怒", "乌孜别克", "俄罗斯", "鄂温克",
    "德昂", "保安", "裕固", "京", "塔塔尔", "独龙", "鄂伦春", "赫哲", "门巴", "珞巴", "基诺",
)
