"""Does a timed merge list show the work of a training run on the timed corpus?

Speed is graded on any run that did the work of training, right or wrong, so that a bug the
train milestone charges costs nothing more here. A merge list shows that work when

- it has at least as many merges as asked for, less a tenth (:func:`fewest_merges`): a loop
  that stops a merge early still trains; and
- its first ``num_merges`` merges (all of them when fewer) are, at every step, a most frequent
  pair of the corpus as rewritten by the merges before it, any tie rule, with the corpus read
  one of the ways trainers read it (:data:`WEIGHTS`: each word counted as often as it occurs,
  once, or its count squared; the marker a symbol of its own, or no marker); or
- they are exactly the merges a catalogued training mistake learns on this corpus (a glued or
  split marker, a ``str.replace`` merge, ...), except the mistakes that leave out training's
  work (:data:`SKIPS_THE_WORK`: counts taken once and never updated) and those that pair
  symbols across words (:data:`TOO_SLOW_TO_REPLAY`).

A table precomputed for another corpus is none of these (the timed corpus is drawn from the
course's secret), and neither is code that skips the rewriting, so both still earn nothing.
The catalogue's mistakes are run only when no reading explains the merges.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any, Optional

from grader.families.bpe.catalogue import CATALOGUE
from grader.families.bpe.merge_replay import Departure, departure_in, segmented
from reference.corpus import word_counts

Pair = tuple[str, str]

WEIGHTS: dict[str, Callable[[int], int]] = {
    "its count": lambda count: count,
    "once": lambda count: 1,
    "its count squared": lambda count: count * count,
}
"""How often a word's pairs are counted, in the readings a trainer may use."""

SKIPS_THE_WORK = frozenset({"stale-counts", "merge-discarded"})
"""Catalogued mistakes whose merges come from one count of the corpus, never rewritten."""

TOO_SLOW_TO_REPLAY = frozenset({"raw-text", "across-word-boundaries"})
"""Catalogued mistakes that treat each text as one stream of symbols: replaying them on the
timed corpus costs a grading far more than the student's run (about 25 s each), so their
merges are not judged a training run here."""

READ_AS_A_RUN = frozenset({"no-end-of-word", "unweighted-counts", "one-merge-too-many", "one-merge-too-few",
                           "no-stop-when-done", "min-count-two", "no-pair-crash",
                           "ties-last-seen"})
"""Catalogued mistakes whose merges are a most frequent pair at every step of one of
:func:`readings` (any tie rule, any length from :func:`fewest_merges`): replayed, not run."""

SHORT_FRACTION = 0.1


def fewest_merges(asked: int) -> int:
    """The fewest merges a run may return and still be judged a training run."""
    return asked - max(1, math.floor(asked * SHORT_FRACTION)) if asked > 0 else 0


def readings(corpus: Any, end_of_word: str) -> Iterator[dict[tuple[str, ...], int]]:
    """The corpus as symbol sequences and weights, each way trainers read it: the exercise's
    way first, then weighted otherwise, and without the marker."""
    counted = word_counts(corpus)
    for marker in dict.fromkeys((end_of_word, "")):
        for weigh in WEIGHTS.values():
            yield segmented(counted, marker, weigh)


def explained(corpus: Any, merges: list[Pair], asked: int, *, end_of_word: str,
              tie_break: str) -> bool:
    """Whether ``merges`` (the first ``asked`` are judged) are a training run on ``corpus``:
    a most frequent pair at every step of one of the readings, or a catalogued mistake's
    exact merges."""
    judged = merges[:asked]
    if any(departure_in(words, judged) is None for words in readings(corpus, end_of_word)):
        return True
    for mistake in replayed_mistakes():
        try:
            learned = mistake.run(corpus, asked, tie_break=tie_break, end_of_word=end_of_word)
        except Exception:  # a mistake that crashes on this corpus explains nothing here
            continue
        if learned and [tuple(pair) for pair in learned][:len(judged)] == judged:
            return True
    return False


def replayed_mistakes() -> list[Any]:
    """The catalogue's training mistakes that do a training run's work and that no reading
    covers: each is run on the corpus."""
    return [mistake for mistake in CATALOGUE
            if mistake.role == "train" and not mistake.convention
            and mistake.id not in SKIPS_THE_WORK | READ_AS_A_RUN | TOO_SLOW_TO_REPLAY]


def exercise_departure(corpus: Any, merges: list[Pair], end_of_word: str) -> Optional[Departure]:
    """Where ``merges`` stop being a most frequent pair under the exercise's own reading."""
    return departure_in(segmented(corpus, end_of_word), merges)
