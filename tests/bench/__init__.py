"""Tests of the bench tools that are more than a measurement: the capture proxy, the replay of what it captured."""
