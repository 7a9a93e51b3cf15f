"""The rules for choosing among pairs with equal counts, and the choice itself.

Every rule is a total order on pairs, so training is deterministic under each of them:

- ``lexicographic``: the smallest pair ``(a, b)`` compared as a tuple of strings.
- ``concatenated``: the smallest joined string ``a + b``; equal joins fall back to
  ``lexicographic``.
- ``first-seen``: the pair met first when scanning the current segmentation word by word,
  words in order of first appearance in the corpus (what ``max(counts, key=counts.get)``
  does over an insertion-ordered dict).
- ``reverse-lexicographic``: the largest pair, as ``max(stats, key=lambda p: (stats[p], p))``.
"""

from __future__ import annotations

from reference.errors import BPEInputError

Pair = tuple[str, str]

LEXICOGRAPHIC = "lexicographic"
CONCATENATED = "concatenated"
FIRST_SEEN = "first-seen"
REVERSE_LEXICOGRAPHIC = "reverse-lexicographic"

TIE_BREAKS: tuple[str, ...] = (LEXICOGRAPHIC, CONCATENATED, FIRST_SEEN, REVERSE_LEXICOGRAPHIC)

DESCRIPTIONS: dict[str, str] = {
    LEXICOGRAPHIC: "the smallest pair (a, b), comparing a first, then b",
    CONCATENATED: "the pair whose joined string a+b is alphabetically smallest",
    FIRST_SEEN: "the pair met first when scanning the words in corpus order, left to right",
    REVERSE_LEXICOGRAPHIC: "the largest pair (a, b), comparing a first, then b",
}


def check_tie_break(tie_break: object) -> str:
    """Return ``tie_break`` if it names a rule, else raise an error listing the valid ones."""
    if tie_break not in TIE_BREAKS:
        raise BPEInputError(
            f"tie_break {tie_break!r} is not one of {', '.join(TIE_BREAKS)}"
        )
    return tie_break  # type: ignore[return-value]


def best_pair(pair_counts: dict[Pair, int], tie_break: str) -> Pair:
    """The pair training merges next.

    ``pair_counts`` must be in first-seen order (insertion order of a scan of the current
    segmentation); only ``first-seen`` depends on that order.
    """
    if tie_break == LEXICOGRAPHIC:
        return min(pair_counts, key=lambda p: (-pair_counts[p], p))
    if tie_break == CONCATENATED:
        return min(pair_counts, key=lambda p: (-pair_counts[p], p[0] + p[1], p))
    if tie_break == FIRST_SEEN:
        return max(pair_counts, key=pair_counts.__getitem__)
    if tie_break == REVERSE_LEXICOGRAPHIC:
        return max(pair_counts, key=lambda p: (pair_counts[p], p))
    raise BPEInputError(f"tie_break {tie_break!r} is not one of {', '.join(TIE_BREAKS)}")


def order_tied(tied: list[Pair], tie_break: str) -> list[Pair]:
    """Tied pairs (given in first-seen order) sorted so the rule's winner comes first."""
    if tie_break == LEXICOGRAPHIC:
        return sorted(tied)
    if tie_break == CONCATENATED:
        return sorted(tied, key=lambda p: (p[0] + p[1], p))
    if tie_break == REVERSE_LEXICOGRAPHIC:
        return sorted(tied, reverse=True)
    return list(tied)
