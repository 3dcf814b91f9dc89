"""The chat pipeline, one module per stage: route → call → facts → write → verify → compose (pipeline.py runs
them in that order, on one frozen Turn)."""
