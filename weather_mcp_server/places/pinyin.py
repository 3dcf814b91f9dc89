"""A Chinese name read by its sound, for the gazetteer's last resort (Gazetteer.by_sound): geonames lists many
Chinese county towns by their Latin names only (Ruili, as an alias of Mengmao, with no 瑞丽)."""

from __future__ import annotations

from weather_mcp_server.places.names import has_cjk, normalize


def wholly_chinese(name: str) -> bool:
    """True when every character of the name is a Chinese one (no Latin letters, kana, digits or spaces)."""
    return bool(name) and all(has_cjk(character) for character in name)


def pinyin_keys(name: str) -> tuple[str, str]:
    """The index keys the toneless pinyin of a Chinese name may have: joined ('ruili', as geonames writes most
    names) and syllable by syllable ('ying tan', some aliases are); ü is u, as normalize() reads 'Lüliang'."""
    # Imported here: pypinyin loads its dictionaries, and only names nothing else found are read by sound.
    from pypinyin import Style, lazy_pinyin

    syllables = [normalize(syllable) for syllable in lazy_pinyin(name, style=Style.NORMAL, v_to_u=True)]
    return "".join(syllables), " ".join(syllables)
