"""Chinese names the index lacks, offline: one commonly confused character (荷泽 for 菏泽, 毫州 for 亳州) and a place
followed by more (稻城亚丁) resolve, named as the place is, and a town geonames names in Latin letters only is read
in China's table of county-level divisions or by its sound (瑞丽, Ruili); what they must not turn into a place stays unknown, and a name the index has is never
corrected."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from weather_mcp_server.errors import UnknownPlace
from weather_mcp_server.models import Location
from weather_mcp_server.places.chinese_writing import CONFUSED_CHARACTERS, LANDFORM_CHARACTERS, SPOT_ENDINGS
from weather_mcp_server.places.gazetteer import Gazetteer
from weather_mcp_server.places.names import distance_km, simplified_key
from weather_mcp_server.places.resolver import PlaceResolver
from weather_mcp_server.wording.language import use_locale


class Offline:
    online = False


@pytest.fixture(scope="module")
def gazetteer(place_index: Path) -> Gazetteer:
    return Gazetteer(place_index)


@pytest.fixture(scope="module")
def resolver(gazetteer: Gazetteer) -> PlaceResolver:
    return PlaceResolver(gazetteer, None, Offline())  # type: ignore[arg-type]


def resolve(resolver: PlaceResolver, query: str, locale: str = "en") -> Location:
    async def in_locale() -> Location:
        use_locale({"locale": locale})
        return await resolver.resolve(query)
    return asyncio.run(in_locale())


@pytest.mark.parametrize(("query", "name", "latitude", "longitude"), [
    ("荷泽", "菏泽", 35.24, 115.47),  # 荷 and 菏 look and sound alike
    ("毫州", "亳州", 33.88, 115.77),  # 毫 and 亳 look alike
    ("荷泽市", "菏泽", 35.24, 115.47), ("荷澤", "菏泽", 35.24, 115.47),  # with "city"; in traditional characters
    ("荷泽, 山东", "菏泽", 35.24, 115.47), ("山东荷泽", "菏泽", 35.24, 115.47),  # its province, after or before
    ("郴洲", "郴州", 25.80, 113.03),
    ("徐洲", "徐州", 34.20, 117.28),
    ("鹰谭", "鹰潭", 28.24, 117.03), ("湘谭", "湘潭", 27.85, 112.90),  # 谭 and 潭 sound and look alike
    ("马那瓜", "马纳瓜", 12.13, -86.25),  # Managua, transliterated with the other "na"  # 徐州 names Xuzhou and its district Tongshan, 12 km apart: one place
    ("九寨钩", "九寨沟", 33.25, 104.24), ("蛾眉山", "峨眉山", 29.60, 103.48),  # a county read as it sounds
])
def test_one_commonly_confused_character_is_corrected(resolver: PlaceResolver, query: str, name: str,
                                                      latitude: float, longitude: float) -> None:
    """Also a name of three characters or more that reads as a county's and as no other's (two of one sound are
    as often two places: 泰山 is not 台山)."""
    place = resolve(resolver, query)
    assert (place.name, place.chinese_name) == (name, name), query  # says which
    assert distance_km(place.latitude, place.longitude, latitude, longitude) <= 10, query


@pytest.mark.parametrize(("query", "name", "latitude", "longitude"), [
    ("稻城亚丁", "稻城", 29.04, 100.30),  # Daocheng's Yading scenic area; 亚丁 alone is Aden, Yemen
    ("稻城亚丁景区", "稻城", 29.04, 100.30),
    ("黄山风景区", "黄山风景区", 30.13, 118.17),  # the scenic area of sights.csv, 48 km from the city of 黄山
    ("拉萨布达拉宫", "拉萨", 29.65, 91.10),
    ("东京迪士尼", "东京", 35.69, 139.69),  # a city of default_cities.py, abroad
    ("建水古城", "建水", 23.63, 102.83),  # a county of China leads as a city does
    ("元阳梯田", "元阳", 23.22, 102.84),
    ("玉龙雪山", "玉龙雪山", 27.10, 100.22),  # the mountain (sights.csv), not the town of Chongqing
    ("南岳衡山", "南岳", 27.23, 112.74),
    ("普陀山景区", "普陀山", 29.99, 122.20),  # aliases.py's mountain (Zhoushan), not Shanghai's Putuo district  # a city's district leads too (Mount Heng of Hengyang's 南岳区)
])
def test_a_place_followed_by_more_is_that_place(resolver: PlaceResolver, query: str, name: str, latitude: float,
                                                longitude: float) -> None:
    place = resolve(resolver, query)
    assert (place.name, place.chinese_name) == (name, name), query
    assert distance_km(place.latitude, place.longitude, latitude, longitude) <= 10, query


@pytest.mark.parametrize("query", [
    "啊啊啊市", "夏尔", "中土世界", "日本",  # nonsense, fiction, a country: no place
    "荷泽, 江苏",  # 菏泽 is in Shandong
    "海洲",  # 海州 is Haizhou, CN and Haeju, KP: neither stands out
    "千户苗寨",  # 千户 is a small town elsewhere (Gansu)
    "加利福尼亚", "可可西里",  # transliterations: not Gali (Georgia), Cocoa (US)
    "南京西路", "中山大学", "中山纪念堂",  # spots named after other places and people (黄石公园 is Yellowstone)
    "长城", "故宫", "西部世界",  # landmarks and fiction, not towns of the same sound (Gazetteer.by_sound)
    "瑞丽, 广东",  # 瑞丽 is read as Ruili, Yunnan
])
def test_names_that_are_no_such_place_stay_unknown(resolver: PlaceResolver, query: str) -> None:
    with pytest.raises(UnknownPlace):
        resolve(resolver, query)


@pytest.mark.parametrize(("query", "english_name", "country_code"), [
    ("宾州", "Bin Xian", "CN"),  # not 滨州 (宾 and 滨 are confused)
    ("安山", "Ansan-si", "KR"),  # not 鞍山
    ("蒲田", "Kamata", "JP"),  # not 莆田
    ("亚丁", "Aden", "YE"),
    ("香格里拉", "Shangri-La", "CN"),  # four characters: not 香格 and more
])
def test_a_name_the_index_has_is_never_corrected(gazetteer: Gazetteer, resolver: PlaceResolver, query: str,
                                                 english_name: str, country_code: str) -> None:
    place = resolve(resolver, query)
    assert place == gazetteer.lookup(query)
    assert (place.name, place.english_name, place.country_code) == (query, english_name, country_code)


@pytest.mark.parametrize(("query", "english_name", "country_code"), [
    ("台东", "Taitung", "TW"),  # not Taito, Tokyo (台東区, twice the people)
    ("台湾台东", "Taitung", "TW"),
    ("东京", "Tokyo", "JP"),  # no place where Chinese is written has the name: the preference changes nothing
    ("长崎", "Nagasaki", "JP"),
])
def test_a_chinese_name_means_the_place_where_chinese_is_written(gazetteer: Gazetteer, query: str,
                                                                 english_name: str, country_code: str) -> None:
    place = gazetteer.lookup(query)
    assert place is not None and (place.english_name, place.country_code) == (english_name, country_code)


@pytest.mark.parametrize(("query", "english_name", "country_code"), [
    ("仁川", "Incheon", "KR"),  # geonames: 仁川广域市 only
    ("索非亚", "Sofia", "BG"), ("索菲亚", "Sofia", "BG"),  # both spellings; geonames: 索菲亞
    ("卡塔尼亚", "Catania", "IT"), ("乌布", "Ubud", "ID"), ("槟城", "George Town", "MY"),  # none in geonames
    ("奥克兰", "Auckland", "NZ"), ("华盛顿", "Washington", "US"),  # not Oakland, not an English town
    ("威尼斯", "Venice", "IT"),  # not "ambiguous" with Venice, Florida
    ("玛瑙斯", "Manaus", "BR"),  # listed in traditional characters only (瑪瑙斯)
    ("大屿山", "Tung Chung", "HK"),  # Lantau Island, by its town
])
def test_a_place_abroad_is_found_by_the_chinese_name_people_write(gazetteer: Gazetteer, query: str,
                                                                  english_name: str, country_code: str) -> None:
    place = gazetteer.lookup(query)
    assert place is not None and (place.english_name, place.country_code) == (english_name, country_code)
    assert place.chinese_name in (query, "索非亚", "瑪瑙斯")  # its name in Chinese answers: the first one listed


def test_a_chinese_county_keeps_its_name_before_a_city_abroad(gazetteer: Gazetteer) -> None:
    place = gazetteer.lookup("大田")  # Fujian's county, not Daejeon
    assert place is not None and place.country_code == "CN"


def test_the_unknown_chinese_name_error_reads_in_chinese(resolver: PlaceResolver) -> None:
    with pytest.raises(UnknownPlace) as nonsense:
        resolve(resolver, "啊啊啊市", "zh-CN")
    assert str(nonsense.value).startswith("找不到名为“啊啊啊市”的地方。（仅查找了离线地名录")
    with pytest.raises(UnknownPlace) as close:
        resolve(resolver, "夏尔", "zh-CN")
    assert "您是不是要找：夏尔迦？" in str(close.value)  # the close name as written, not "Sharjah"


def test_the_tables_are_in_simplified_characters() -> None:
    """Queries are looked up in simplified characters: a traditional entry would never match."""
    for text in (*CONFUSED_CHARACTERS, *SPOT_ENDINGS, LANDFORM_CHARACTERS):
        assert simplified_key(text) == text, text
    assert all(len(set(group)) == len(group) >= 2 for group in CONFUSED_CHARACTERS)


@pytest.mark.parametrize(("query", "city"), [("湖南", "长沙"), ("河北", "石家庄"), ("海南", "海口"), ("广东省", "深圳")])
def test_a_chinese_province_is_no_city_and_the_error_names_one_in_it(resolver: PlaceResolver, query: str,
                                                                     city: str) -> None:
    """湖南 was Konan, Japan (湖南市), 河北 Kahoku: a province named alone is said to be one, with a city in it."""
    with pytest.raises(UnknownPlace, match=f"是省份或地区，不是城市：请说出其中的一个城市，比如{city}"):
        resolve(resolver, query, "zh-CN")


def test_a_province_with_a_city_of_its_name_in_it_is_that_city(resolver: PlaceResolver) -> None:
    assert resolve(resolver, "吉林").english_name == "Jilin" and resolve(resolver, "湖南长沙").english_name == "Changsha"


@pytest.mark.parametrize(("query", "written", "english_name", "latitude", "longitude"), [
    ("瑞丽", "瑞丽", "Ruili", 24.01, 97.85), ("瑞丽市", "瑞丽", "Ruili", 24.01, 97.85), ("瑞麗", "瑞麗", "Ruili", 24.01, 97.85),
    ("瑞丽, 云南", "瑞丽", "Ruili", 24.01, 97.85), ("红原", "红原", "Hongyuan", 32.79, 102.54),
    ("四川红原", "四川红原", "Hongyuan", 32.79, 102.54), ("绩溪县", "绩溪县", "Jixi", 30.07, 118.58),  # not 鸡西, Heilongjiang
    ("神农架", "神农架", "Shennongjia", 31.74, 110.68), ("新疆富蕴", "新疆富蕴", "Fuyun", 46.99, 89.53),
])
def test_a_county_geonames_names_in_latin_letters_only_is_found_in_the_county_table(
        resolver: PlaceResolver, query: str, written: str, english_name: str, latitude: float, longitude: float) -> None:
    """geonames has 瑞丽 (as Mengmao), 红原 or 绩溪 without their Chinese names: China's table of county-level
    divisions finds them, and the answer keeps the user's wording while the data says which place it is."""
    place = resolve(resolver, query)
    assert (place.name, place.english_name, place.country_code) == (written, english_name, "CN")
    assert distance_km(place.latitude, place.longitude, latitude, longitude) <= 30
    with pytest.raises(UnknownPlace):
        resolve(resolver, "广东红原")  # a qualifier the county is not in


@pytest.mark.parametrize(("query", "latitude", "longitude"), [
    ("庆元", 27.62, 119.06),  # a county of Zhejiang, not the town of Chongqing of the name
    ("宁海", 29.29, 121.42), ("宁安", 44.34, 129.47), ("临江", 41.81, 126.91),  # of the towns, the county's
    ("开化", 29.14, 118.42), ("竹山", 32.22, 110.23),  # towns of 64,000 (Yunnan) and 44,000 (Taiwan) elsewhere
    ("巴东", 31.04, 110.34),  # Padang's Chinese name: a county in China outranks it in a Chinese question
    ("东山岛", 23.70, 117.43), ("南澳岛", 23.42, 117.02), ("崇明岛", 31.62, 121.40),  # the island the county is
    ("洞头", 27.84, 121.16),  # a city's district (Wenzhou's) no county shares the name of
    ("泰山", 36.19, 117.14),  # Tai'an's district at the mountain, not Taishan (台山) by sound
    ("和布克赛尔", 46.79, 85.73), ("察布查尔", 43.84, 81.15),  # autonomous counties named for a people, no 族
    ("鄂伦春旗", 50.59, 123.73),  # an autonomous banner with 旗 alone
    ("彬州", 35.04, 108.08), ("盘州", 25.71, 104.47),  # renamed since the table (彬县, 盘县)
    ("澄江", 24.68, 102.90),  # an old name of Jiangyin (1.8 million), whose own name it is not
    ("甘南合作市", 34.99, 102.91),  # a county-level city after its prefecture
    ("桂林阳朔", 24.78, 110.49), ("张家口崇礼", 40.97, 115.28),  # ... with no suffix: the county, not the city
])
def test_a_name_of_a_chinese_county_is_the_county(resolver: PlaceResolver, query: str, latitude: float,
                                                  longitude: float) -> None:
    place = resolve(resolver, query)
    assert place.country_code == "CN" and distance_km(place.latitude, place.longitude, latitude, longitude) <= 30


@pytest.mark.parametrize(("query", "latitude", "longitude"), [
    ("千岛湖", 29.61, 119.04), ("华山", 34.48, 110.09), ("黄果树瀑布", 25.99, 105.67), ("宏村", 30.00, 117.99),
    ("布达拉宫", 29.66, 91.12), ("龙门石窟", 34.56, 112.47), ("莫高窟", 40.04, 94.81), ("兵马俑", 34.38, 109.27),
    ("富士山", 35.36, 138.73), ("长滩岛", 11.97, 121.92),
])
def test_a_sight_no_town_is_named_after_is_the_town_visitors_stay_in(resolver: PlaceResolver, query: str,
                                                                     latitude: float, longitude: float) -> None:
    place = resolve(resolver, query)
    assert place.name == query and distance_km(place.latitude, place.longitude, latitude, longitude) <= 30


def test_a_city_of_the_name_of_a_county_beside_it_is_the_city(resolver: PlaceResolver) -> None:
    """通化 is the city (通化县 is 30 km off), 松山 Matsuyama before Chifeng's district; 象山 Ningbo's county, not
    also Guilin's district. A city of the name far from the county is not what the name means: 白沙 is Hainan's
    county, not a town of 115,000 in Chongqing, 凤山 Guangxi's, not Kaohsiung's district."""
    assert resolve(resolver, "松山").country_code == "JP" and resolve(resolver, "象山").latitude > 29
    assert resolve(resolver, "通化").english_name == "Tonghua" and resolve(resolver, "通化").latitude > 41.7
    assert distance_km(*_at(resolve(resolver, "白沙")), 19.22, 109.45) <= 30
    assert distance_km(*_at(resolve(resolver, "凤山")), 24.55, 107.04) <= 30
    assert distance_km(*_at(resolve(resolver, "阳城")), 35.49, 112.41) <= 30
    # a county's name after a city far from it is not that county: 北京朝阳 is Beijing's, not Chaoyang, Liaoning
    assert distance_km(*_at(resolve(resolver, "北京朝阳")), 39.92, 116.44) <= 30


def _at(place) -> tuple[float, float]:
    return place.latitude, place.longitude


def test_a_town_geonames_names_in_latin_letters_only_is_read_by_its_sound(gazetteer: Gazetteer) -> None:
    """The last resort, after the county table: 瑞丽's pinyin finds Ruili (geonames' Mengmao)."""
    place = gazetteer.by_sound("瑞丽")
    assert place is not None and place.name == "Mengmao" and distance_km(place.latitude, place.longitude, 24.01,
                                                                           97.85) <= 30


@pytest.mark.parametrize("query", [
    "泰山", "华山", "西湖", "香山", "南海",  # landforms: not Taishan (台山), Huashan, Xiangshan (Zhongshan), Nanhai
    "长城", "江南",  # townships of 63,000 and 21,000 people, Changcheng and Jiangnan: too small to be read by sound
    "故宫", "日本", "西部世界",
])
def test_landmarks_and_words_are_not_read_as_towns_of_their_sound(gazetteer: Gazetteer, query: str) -> None:
    assert gazetteer.by_sound(query) is None


def test_city_is_kept_where_one_character_would_be_left(gazetteer: Gazetteer, resolver: PlaceResolver) -> None:
    """芒市 (Mangshi) is not 芒; 鹰潭市 is still 鹰潭."""
    mangshi = resolve(resolver, "芒市")
    assert (mangshi.name, mangshi.chinese_name) == ("芒市", "芒市")
    assert distance_km(mangshi.latitude, mangshi.longitude, 24.43, 98.58) <= 30
    assert gazetteer.lookup("鹰潭市").name == "鹰潭"


def test_a_place_is_named_from_the_qualifier_written_before_it(resolver: PlaceResolver) -> None:
    """The sentence's words before a country written first are no part of the name: "停靠牙买加的金斯敦" (a cruise
    calls at Jamaica's Kingston) is shown as 牙买加的金斯敦; a name with none keeps its wording."""
    kingston = resolve(resolver, "停靠牙买加的金斯敦")
    assert (kingston.chinese_name, kingston.country_code) == ("牙买加的金斯敦", "JM")
    assert resolve(resolver, "加拿大马尼托巴的丘吉尔").chinese_name == "加拿大马尼托巴的丘吉尔"
    assert resolve(resolver, "新西兰皇后镇").chinese_name == "新西兰皇后镇"
