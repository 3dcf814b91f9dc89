"""Find a font that can draw Chinese, so chart titles like "北京" never render as tofu boxes."""

from __future__ import annotations

import functools
import logging
import os
from pathlib import Path

from matplotlib import font_manager
from matplotlib.ft2font import FT2Font

log = logging.getLogger(__name__)

# Families tried first, in order; any other installed font that has the glyphs is accepted after them.
PREFERRED_CJK_FAMILIES = (
    "WenQuanYi Micro Hei",
    "Noto Sans CJK SC",
    "Noto Sans SC",
    "Source Han Sans SC",
    "Microsoft YaHei",
    "SimHei",
    "PingFang SC",
    "Hiragino Sans GB",
    "Arial Unicode MS",
)
# matplotlib's font cache may predate a font installed by scripts/setup.sh, so these are registered by path.
FONT_DIRS = (
    "/usr/share/fonts",
    "/usr/local/share/fonts",
    "~/.fonts",
    "~/.local/share/fonts",
    "/System/Library/Fonts",
    "/Library/Fonts",
    "C:/Windows/Fonts",
)
FONT_FILE_HINTS = ("wqy", "cjk", "notosanssc", "sourcehan", "msyh", "simhei", "pingfang", "hiragino", "unicode")
PROBE_TEXT = "北京天气"
FALLBACK_FAMILY = "DejaVu Sans"


@functools.cache
def cjk_font_family() -> str | None:
    """The family name of an installed CJK-capable font (WEATHER_CJK_FONT=<file> wins), or None."""
    override = os.environ.get("WEATHER_CJK_FONT")
    if override and Path(override).is_file():
        font_manager.fontManager.addfont(override)
        return font_manager.FontProperties(fname=override).get_name()
    _register_system_fonts()
    by_family = {entry.name: entry.fname for entry in font_manager.fontManager.ttflist}
    for family in PREFERRED_CJK_FAMILIES:
        if family in by_family and covers(by_family[family], PROBE_TEXT):
            return family
    for family, path in sorted(by_family.items()):
        if covers(path, PROBE_TEXT):
            return family
    log.warning("No CJK-capable font found; Chinese chart text will not render. Run scripts/setup.sh.")
    return None


def covers(font_path: str, text: str) -> bool:
    """Whether the font file has a glyph for every character of `text`."""
    try:
        font = FT2Font(font_path)
    except (OSError, RuntimeError, ValueError):
        return False
    return all(font.get_char_index(ord(ch)) != 0 for ch in text)


def font_families() -> list[str]:
    """Families for chart text: the CJK font first, DejaVu Sans for anything it lacks."""
    cjk = cjk_font_family()
    return [cjk, FALLBACK_FAMILY] if cjk else [FALLBACK_FAMILY]


def _register_system_fonts() -> None:
    known = {entry.fname for entry in font_manager.fontManager.ttflist}
    for directory in FONT_DIRS:
        root = Path(directory).expanduser()
        if not root.is_dir():
            continue
        for path in root.rglob("*"):
            name = path.name.lower()
            if path.suffix.lower() in (".ttf", ".ttc", ".otf") and any(h in name for h in FONT_FILE_HINTS):
                if str(path) not in known:
                    try:
                        font_manager.fontManager.addfont(str(path))
                    except (OSError, RuntimeError, ValueError):
                        log.debug("Could not register font %s", path)
