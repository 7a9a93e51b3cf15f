"""Comparing reports: everything but the measured durations must be the same."""

from __future__ import annotations

from typing import Any


def without_durations(value: Any) -> Any:
    """A JSON report (or part of one) without ``seconds`` and ``*_seconds`` keys."""
    if isinstance(value, dict):
        return {key: without_durations(item) for key, item in value.items()
                if key != "seconds" and not key.endswith("_seconds")}
    if isinstance(value, list):
        return [without_durations(item) for item in value]
    return value
