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
    # geonames gives Hunan's Fenghuang county (湘西) no Chinese name; 凤凰 is two villages and a Chongqing town.
    ("凤凰", "Fenghuang, CN"),
    ("凤凰县", "Fenghuang, CN"),
    ("凤凰古城", "Fenghuang, CN"),
)
