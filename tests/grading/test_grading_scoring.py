"""Points: shares by weight and evenly, never losing or inventing a fraction of a point."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grader.grading.scoring import check_points, earned, split_by_weight, split_evenly


def test_milestone_points_split_by_check_weight():
    assert check_points(45, [3, 2, 1]) == [22.5, 15.0, 7.5]
    assert check_points(10, [1]) == [10.0]


def test_even_split_rounds_to_four_decimals_and_the_last_share_takes_the_rest():
    shares = split_evenly(20, 3)
    assert shares == [6.6667, 6.6667, 6.6666]
    assert sum(shares) == pytest.approx(20, abs=1e-9)


def test_no_parts_means_no_shares_and_bad_weights_are_refused():
    assert split_evenly(5, 0) == []
    with pytest.raises(ValueError, match="positive"):
        split_by_weight(5, [1, 0])


def test_a_share_is_earned_only_when_passed():
    assert earned(2.5, True) == 2.5
    assert earned(2.5, False) == 0.0


@given(
    total=st.integers(1, 2000).map(lambda n: n / 4),
    weights=st.lists(st.integers(1, 9).map(float), min_size=1, max_size=40),
)
def test_shares_always_add_back_up_to_the_total(total, weights):
    shares = split_by_weight(total, weights)
    assert len(shares) == len(weights)
    assert round(sum(shares), 6) == total
    assert all(round(share, 4) == share for share in shares)
    assert all(share >= 0 for share in shares)
