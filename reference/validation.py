"""Checks on the scalar arguments shared by both trainers and the encoder."""

from __future__ import annotations

from reference.errors import BPEInputError
from reference.tie_breaks import check_tie_break

Pair = tuple[str, str]


def check_num_merges(num_merges: object) -> int:
    if isinstance(num_merges, bool) or not isinstance(num_merges, int):
        raise BPEInputError(
            f"num_merges must be a non-negative int, got {type(num_merges).__name__} {num_merges!r}"
        )
    if num_merges < 0:
        raise BPEInputError(f"num_merges must be a non-negative int, got {num_merges}")
    return num_merges


def check_min_count(min_count: object) -> int:
    if isinstance(min_count, bool) or not isinstance(min_count, int) or min_count < 1:
        raise BPEInputError(f"min_count must be an int >= 1, got {min_count!r}")
    return min_count


def check_training_options(num_merges: object, tie_break: object, min_count: object = 1) -> None:
    """The scalar options every trainer takes, checked in one order so errors match."""
    check_num_merges(num_merges)
    check_tie_break(tie_break)
    check_min_count(min_count)


def check_merges(merges: object) -> list[Pair]:
    """Return ``merges`` as a list of ``(str, str)`` tuples, or say which item is wrong."""
    if isinstance(merges, (str, bytes)) or not hasattr(merges, "__iter__"):
        raise BPEInputError(f"merges must be a list of (str, str) pairs, got {type(merges).__name__}")
    pairs: list[Pair] = []
    for index, item in enumerate(merges):  # type: ignore[union-attr]
        if (
            not isinstance(item, (tuple, list))
            or len(item) != 2
            or not all(isinstance(part, str) for part in item)
        ):
            raise BPEInputError(f"merges[{index}] must be a pair of two str, got {item!r}")
        pairs.append((item[0], item[1]))
    return pairs
