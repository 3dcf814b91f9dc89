"""What a chart shows and its size; the drawing itself (matplotlib) lives in drawing.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

WIDTH_PX, HEIGHT_PX, DPI = 800, 450, 100
ChartKind = Literal["temperature", "precipitation"]


@dataclass(frozen=True)
class ChartSeries:
    """What to draw: one entry per day."""

    title: str
    dates: list[str]
    temp_max: list[float]
    temp_min: list[float]
    precipitation: list[float]
    probability: list[float | None]
    chinese: bool
    units: dict[str, str]  # of the result: temperature °C or °F, precipitation mm or inch


def render_chart(kind: ChartKind, series: ChartSeries) -> tuple[bytes, str]:
    """PNG bytes and the font family used; thread-safe."""
    # Imported on first use: matplotlib is most of the server's start-up time and most sessions draw nothing.
    from weather_mcp_server.charts.drawing import draw

    return draw(kind, series)
