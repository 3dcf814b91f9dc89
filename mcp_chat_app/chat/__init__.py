"""The chat pipeline: route → call → facts → write → verify → render (pipeline.py ties the stages together)."""
