"""The Unigram family's own spec rules: what each case must hold for the roles it serves.

A case's pieces are finite log-probabilities (any finite score: they need not sum to 1);
a corpus for ``em_step`` and ``prune`` must have every one of its characters, and ``▁``, as a
piece of its own (so every text segments into known pieces and no unknown score enters EM or
pruning); ``keep`` goes with a corpus, a written segmentation or log-likelihood with a text.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from grader.families.api import Loc
from reference.unigram import SPACE, normalize


def spec_problems(exercise: Any) -> Iterator[tuple[Loc, str]]:
    for index, case in enumerate(exercise.cases):
        loc: Loc = ("cases", index)
        for piece, score in case.pieces.items():
            if not piece:
                yield (*loc, "pieces"), "a piece must not be empty"
            elif not math.isfinite(score):
                yield (*loc, "pieces", piece), f"{score} is not a finite log-probability"
        if case.text is None and case.corpus is None:
            yield loc, "give a text (segment, log_likelihood) or a corpus (em_step, prune)"
        if case.keep is not None and case.corpus is None:
            yield (*loc, "keep"), "keep goes with a corpus (prune)"
        for written in ("segmentation", "log_likelihood"):
            if getattr(case, written) is not None and case.text is None:
                yield (*loc, written), f"{written} is an expected value of the text: give one"
        if case.corpus is not None:
            needed = {SPACE} | {c for text in case.corpus for c in normalize(text)}
            missing = sorted(c for c in needed if c not in case.pieces)
            if missing:
                yield (*loc, "pieces"), (
                    f"a corpus needs every one of its characters as a piece of its own; "
                    f"missing {', '.join(repr(c) for c in missing)}")


def placeholder_case(data: Any) -> dict[str, Any]:
    """A valid stand-in for a case with shape errors."""
    return {"visibility": "hidden", "pieces": {SPACE: -1.0}, "text": ""}
