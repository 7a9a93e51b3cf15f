"""The catalogued mistakes a student's tests are graded on, in groups of one kind each.

Each group is one part of the grade (a milestone names it with ``groups:``): its points go by
the share of its mistakes the student's tests catch. The mistakes are the character BPE
family's own catalogue entries for ``train`` and ``encode`` (each a runnable wrong
implementation); a group lists them by id, with the kind of input that exposes them. A new
catalogued mistake is one id added to the group it belongs to (a test holds every train and
encode entry of the catalogue to exactly one group).
"""

from __future__ import annotations

from dataclasses import dataclass

from grader.families.bpe.catalogue import (ENCODE_MISTAKES, REAL_ENCODE_MISTAKES,
                                          REAL_TRAIN_MISTAKES, TRAIN_MISTAKES)
from grader.families.api import Mistake
from reference.tie_breaks import LEXICOGRAPHIC

TIE_BREAK = LEXICOGRAPHIC
"""The exercise's own tie rule: the catalogue's entry for it is no mistake here."""


@dataclass(frozen=True)
class Group:
    """Mistakes of one kind, and what a test needs to catch them."""

    id: str
    title: str
    advice: str
    """What to add, completing "add a test with ..."."""
    mistakes: tuple[str, ...]


GROUPS: tuple[Group, ...] = (
    Group("ties", "Ties between equally frequent pairs",
          "a corpus where several pairs tie for the highest count",
          ("ties-first-seen", "ties-concatenated", "ties-reverse-lexicographic",
           "ties-last-seen")),
    Group("counting", "Counting pairs",
          "a corpus where words repeat, a pair repeats inside a word, or texts hold several "
          "words, and enough merges that later counts matter",
          ("unweighted-counts", "pairs-once-per-word", "stale-counts", "raw-text",
           "across-word-boundaries")),
    Group("end-of-word", "The end-of-word marker in training",
          "a corpus where merges with the end-of-word marker </w> are learned",
          ("marker-split", "marker-glued", "no-end-of-word")),
    Group("merging", "Rewriting the words after a merge",
          "a corpus where a merged pair occurs twice in a word, overlaps itself (aaa), or is "
          "only part of a longer symbol",
          ("merge-discarded", "merge-by-string-replace", "overlap-right-to-left",
           "merge-first-occurrence")),
    Group("stopping", "How many merges, in what order",
          "an exact merge list for a given num_merges, and a corpus that runs out of pairs "
          "before num_merges",
          ("one-merge-too-many", "one-merge-too-few", "no-stop-when-done", "merges-sorted",
           "no-pair-crash", "min-count-two")),
    Group("encode-marker", "The end-of-word marker in encoding",
          "an encoded word whose merges involve the end-of-word marker",
          ("encode-marker-split", "encode-marker-glued", "encode-no-end-of-word",
           "encode-marker-after-merging", "encode-marker-dropped", "encode-marker-stripped")),
    Group("encode-order", "Applying the merges in rank order",
          "an encoded word where the merge learned first is not the leftmost, longest or most "
          "frequent one, or where a merge applies twice",
          ("encode-reverse-rank", "encode-first-occurrence-only", "encode-longest-match",
           "encode-most-frequent", "encode-left-to-right", "encode-longest-anywhere")),
    Group("encode-text", "Encoding words as they are written",
          "an encoded word with capitals or punctuation",
          ("encode-lowercased", "encode-stripped", "encode-non-word-dropped")),
)
GROUP_IDS = tuple(group.id for group in GROUPS)

CATALOGUE: dict[str, Mistake] = {
    mistake.id: mistake
    for mistake in TRAIN_MISTAKES + REAL_TRAIN_MISTAKES + ENCODE_MISTAKES + REAL_ENCODE_MISTAKES
    if not mistake.is_convention_of({"tie_break": TIE_BREAK})
}
"""Every train and encode mistake of the catalogue that is a mistake under this exercise's
conventions, by id."""


def group(group_id: str) -> Group:
    return next(g for g in GROUPS if g.id == group_id)


def group_mistakes(group_id: str) -> tuple[Mistake, ...]:
    """The catalogued mistakes of a group, in its order."""
    return tuple(CATALOGUE[mistake_id] for mistake_id in group(group_id).mistakes)


def group_of(mistake_id: str) -> Group:
    return next(g for g in GROUPS if mistake_id in g.mistakes)
