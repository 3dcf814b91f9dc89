"""Islands and regions people ask the weather of, named by no town in geonames (or by another, smaller one): each
means its main town.

Kept short on purpose: a name here overrides the data, and it must name a place the index has ("Name, CC"). A
name listed here counts as that town's own name (not a discounted alias), so "Bali" means Denpasar, not Bāli, IN.
"""

from __future__ import annotations

PLACE_ALIASES: tuple[tuple[str, str], ...] = (
    ("济州岛", "Jeju City, KR"),
    ("濟州島", "Jeju City, KR"),
    ("Jeju Island", "Jeju City, KR"),
    ("Jeju-do", "Jeju City, KR"),
    ("Bali", "Denpasar, ID"),
    ("巴厘岛", "Denpasar, ID"),
    ("峇里島", "Denpasar, ID"),
    ("海南岛", "Haikou, CN"),
    ("Lake Tahoe", "South Lake Tahoe, US"),
    ("太浩湖", "South Lake Tahoe, US"),
    ("Tenerife", "Santa Cruz de Tenerife, ES"),
    ("Mallorca", "Palma, ES"),
    ("Majorca", "Palma, ES"),
    ("Maui", "Kahului, US"),
    ("Santorini", "Firá, GR"),
    ("Hokkaido", "Sapporo, JP"),
    ("北海道", "Sapporo, JP"),
    # Destinations whose Chinese names geonames lacks, or gives to another place (皇后镇 to Bourg-la-Reine, FR).
    ("皇后镇", "Queenstown, NZ"),
    ("普吉岛", "Phuket, TH"),
    ("普吉", "Phuket, TH"),
    ("芭提雅", "Pattaya, TH"),
    ("芭堤雅", "Pattaya, TH"),
    ("苏梅岛", "Ko Samui, TH"),
    ("兰卡威", "Kuah, MY"),
    ("马尔代夫", "Male, MV"),
    ("塞班岛", "Garapan, MP"),
    ("塞班", "Garapan, MP"),
    ("圣托里尼", "Firá, GR"),
    ("大溪地", "Papeete, PF"),
    ("科伦坡", "Colombo, LK"),
    ("夏威夷", "Honolulu, US"),
    ("吴哥窟", "Siem Reap, KH"),
    ("西双版纳", "Jinghong, CN"),
    ("稻城", "Daocheng, CN"),
    # geonames gives Hunan's Fenghuang county (湘西) no Chinese name; 凤凰 is two villages and a Chongqing town.
    ("凤凰", "Fenghuang, CN"),
    ("凤凰县", "Fenghuang, CN"),
    ("凤凰古城", "Fenghuang, CN"),
)
