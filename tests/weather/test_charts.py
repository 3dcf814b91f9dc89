"""Chart rendering: valid PNGs of the advertised size, a CJK-capable font, safe from several threads."""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor

from matplotlib import font_manager
from PIL import Image

from weather_mcp_server.charts.fonts import PROBE_TEXT, cjk_font_family, covers
from weather_mcp_server.charts.series import HEIGHT_PX, WIDTH_PX, ChartSeries, render_chart


def series(title: str, chinese: bool, days: int = 7) -> ChartSeries:
    return ChartSeries(
        title=title,
        dates=[f"2026-07-{20 + i:02d}" for i in range(days)],
        temp_max=[30.0 + i for i in range(days)],
        temp_min=[20.0 - i for i in range(days)],
        precipitation=[float(i % 3) for i in range(days)],
        probability=[10.0 * i for i in range(days)],
        chinese=chinese,
        units={"temperature": "°C", "precipitation": "mm"},
    )


def test_a_cjk_font_is_selected_and_has_the_glyphs() -> None:
    family = cjk_font_family()
    assert family is not None, "no CJK font installed: scripts/setup.sh installs fonts-wqy-microhei"
    path = font_manager.findfont(font_manager.FontProperties(family=family), fallback_to_default=False)
    assert covers(path, PROBE_TEXT + "未来气温降水")


def test_png_has_the_advertised_size() -> None:
    for kind in ("temperature", "precipitation"):
        png, font = render_chart(kind, series("北京 未来7天气温", chinese=True))
        assert font == cjk_font_family()
        image = Image.open(io.BytesIO(png))
        image.verify()
        assert image.format == "PNG" and image.size == (WIDTH_PX, HEIGHT_PX)


def test_rendering_from_several_threads() -> None:
    jobs = [("temperature", series(f"City {i}", chinese=False, days=3 + i)) for i in range(6)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        pngs = [png for png, _ in pool.map(lambda job: render_chart(*job), jobs)]
    assert len(set(pngs)) == len(jobs)  # each chart is its own picture
    for png in pngs:
        assert Image.open(io.BytesIO(png)).size == (WIDTH_PX, HEIGHT_PX)
