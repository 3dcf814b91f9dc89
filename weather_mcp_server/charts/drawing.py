"""Draw forecast charts as PNG with matplotlib's object-oriented API on the Agg canvas (no pyplot state)."""

from __future__ import annotations

import io
import threading

import matplotlib

matplotlib.use("Agg")  # headless, before anything else touches a backend

from matplotlib import rc_context  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from weather_mcp_server.charts.fonts import font_families  # noqa: E402
from weather_mcp_server.charts.series import DPI, HEIGHT_PX, WIDTH_PX, ChartKind, ChartSeries  # noqa: E402

# Figures are independent, but matplotlib's font and text caches are shared module state: one render at a time.
_RENDER_LOCK = threading.Lock()


def draw(kind: ChartKind, series: ChartSeries) -> tuple[bytes, str]:
    """PNG bytes of WIDTH_PX x HEIGHT_PX and the font family used; safe to call from several threads."""
    families = font_families()
    with _RENDER_LOCK, rc_context({"font.family": families, "axes.unicode_minus": False}):
        figure = Figure(figsize=(WIDTH_PX / DPI, HEIGHT_PX / DPI), dpi=DPI)
        canvas = FigureCanvasAgg(figure)
        axes = figure.add_subplot()
        positions = list(range(len(series.dates)))
        if kind == "temperature":
            _draw_temperature(axes, positions, series)
        else:
            _draw_precipitation(axes, positions, series)
        axes.set_xticks(positions, [d[5:] for d in series.dates])  # MM-DD stays readable for 16 days
        axes.set_title(series.title)
        axes.grid(True, alpha=0.3)
        figure.tight_layout()
        buffer = io.BytesIO()
        canvas.print_png(buffer)
        return buffer.getvalue(), families[0]


def _draw_temperature(axes: Axes, positions: list[int], series: ChartSeries) -> None:
    high, low = ("最高气温", "最低气温") if series.chinese else ("High", "Low")
    axes.plot(positions, series.temp_max, marker="o", color="#d62728", label=high)
    axes.plot(positions, series.temp_min, marker="o", color="#1f77b4", label=low)
    axes.fill_between(positions, series.temp_min, series.temp_max, color="#ff7f0e", alpha=0.12)
    for x, (hi, lo) in enumerate(zip(series.temp_max, series.temp_min, strict=True)):
        axes.annotate(f"{hi:.0f}°", (x, hi), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=8)
        axes.annotate(f"{lo:.0f}°", (x, lo), textcoords="offset points", xytext=(0, -12), ha="center", fontsize=8)
    t = series.units["temperature"]
    axes.set_ylabel(f"温度 ({t})" if series.chinese else f"Temperature ({t})")
    axes.legend(loc="best")


def _draw_precipitation(axes: Axes, positions: list[int], series: ChartSeries) -> None:
    amount = series.units["precipitation"]
    label = f"降水量 ({amount})" if series.chinese else amount
    bars = axes.bar(positions, series.precipitation, color="#1f77b4", label=label)
    axes.bar_label(bars, fmt="%.1f", fontsize=8)
    axes.set_ylabel(f"降水量 ({amount})" if series.chinese else f"Precipitation ({amount})")
    if any(p is not None for p in series.probability):
        twin = axes.twinx()
        twin.plot(positions, [p if p is not None else float("nan") for p in series.probability], color="#2ca02c",
                  marker=".", label="降水概率 (%)" if series.chinese else "Probability (%)")
        twin.set_ylim(0, 100)
        twin.set_ylabel("降水概率 (%)" if series.chinese else "Probability (%)")
