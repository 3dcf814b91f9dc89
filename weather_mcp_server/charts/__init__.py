"""Forecast charts as PNG: what a chart shows, its drawing with matplotlib, and a font that draws Chinese."""
