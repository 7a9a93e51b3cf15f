"""Points: a milestone's points split over its checks by weight, a check's over its parts.

Shares are rounded to 4 decimals and the last share takes whatever remains, so the shares of
a total always add back up to exactly that total: rounding never loses or invents points.
"""

from __future__ import annotations

from collections.abc import Sequence

DECIMALS = 4


def split_by_weight(total: float, weights: Sequence[float]) -> list[float]:
    """``total`` split in proportion to ``weights`` (all positive); the shares sum to ``total``."""
    if not weights:
        return []
    if any(weight <= 0 for weight in weights):
        raise ValueError(f"weights must be positive, got {list(weights)}")
    weight_sum = float(sum(weights))
    shares = [round(total * weight / weight_sum, DECIMALS) for weight in weights[:-1]]
    shares.append(round(total - sum(shares), DECIMALS))
    return shares


def split_evenly(total: float, parts: int) -> list[float]:
    """``total`` split into ``parts`` equal shares (the last absorbs the rounding)."""
    if parts < 0:
        raise ValueError(f"parts must be >= 0, got {parts}")
    return split_by_weight(total, [1.0] * parts)


def check_points(milestone_points: float, check_weights: Sequence[float]) -> list[float]:
    """Each check's points within a milestone, by the checks' weights."""
    return split_by_weight(milestone_points, check_weights)


def earned(share: float, passed: bool) -> float:
    """All or nothing: a part scores its whole share when it passes, else zero."""
    return share if passed else 0.0
