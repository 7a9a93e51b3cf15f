"""Known Unigram LM mistakes, each one a runnable wrong implementation, as the mistake book.

``segment``: the longest piece taken greedily from the left instead of the Viterbi best
path, and words segmented without the ``▁`` that marks their start. ``log_likelihood``: the
best path's score (max) instead of the sum over every path (log-sum-exp), and probabilities
multiplied without logs, which underflows to 0.0 on a long text so ``math.log`` fails.
``em_step``: expected counts returned as their logs, never divided by the total. ``prune``:
single characters removed like any other piece.

Run signatures are the roles' arguments as keywords: ``run(text, pieces)``,
``run(corpus, pieces)``, ``run(corpus, pieces, keep)``. Floats compare within
:data:`grader.families.unigram.expected.DEFAULT_TOLERANCE` (:class:`Near`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional

from grader.families.unigram.do_nothing import trivial_answer
from grader.families.unigram.expected import (
    ARGUMENTS,
    DEFAULT_TOLERANCE,
    EM_STEP,
    LIKELIHOOD,
    PRUNE,
    REFERENCE,
    SEGMENT,
    close,
)
from grader.families.unigram.generated import LONG_PIECES, LONG_TEXT
from grader.families.api import Mistake, MistakeBook, NOT_COMPARABLE
from reference.unigram import (
    LOSS_DIGITS,
    corpus_log_likelihood,
    expected_counts,
    lattice,
    normalize,
    viterbi,
)

Pieces = Mapping[str, float]


# --------------------------------------------------------------------------- segment


def _joined(path: list[tuple[str, bool]]) -> list[str]:
    """Pieces of a path, adjacent unknown characters joined into one piece."""
    tokens: list[str] = []
    previous = False
    for piece, unknown in path:
        if unknown and previous:
            tokens[-1] += piece
        else:
            tokens.append(piece)
        previous = unknown
    return tokens


def segment_greedy(text: str, pieces: Pieces) -> list[str]:
    """The longest piece at each position, left to right."""
    normalized = normalize(text)
    edges = lattice(normalized, pieces)
    path: list[tuple[str, bool]] = []
    start = 0
    while start < len(normalized):
        end, piece, _ = max(edges[start], key=lambda edge: edge[0])
        path.append((normalized[start:end], piece is None))
        start = end
    return _joined(path)


def _best_path(word: str, pieces: Pieces) -> list[tuple[str, bool]]:
    edges = lattice(word, pieces)
    best: list[Optional[float]] = [0.0] + [None] * len(word)
    back: list[tuple[int, bool]] = [(0, False)] * (len(word) + 1)
    for start, here in enumerate(edges):
        if best[start] is None:
            continue
        for end, piece, score in here:
            candidate = best[start] + score  # type: ignore[operator]
            if best[end] is None or candidate > best[end]:  # type: ignore[operator]
                best[end], back[end] = candidate, (start, piece is None)
    path, end = [], len(word)
    while end > 0:
        start, unknown = back[end]
        path.append((word[start:end], unknown))
        end = start
    return path[::-1]


def segment_without_space(text: str, pieces: Pieces) -> list[str]:
    """Each whitespace-separated word segmented on its own, with no ``▁`` in front."""
    return [token for word in text.split() for token in _joined(_best_path(word, pieces))]


# --------------------------------------------------------------------------- log_likelihood


def likelihood_by_max(text: str, pieces: Pieces) -> float:
    """The best segmentation's log-probability, taken for the sum over all of them."""
    return viterbi(text, pieces)[1]


def likelihood_by_products(text: str, pieces: Pieces) -> float:
    """The forward pass over probabilities (no logs): 0.0 on a long text, then log fails."""
    normalized = normalize(text)
    alpha = [1.0] + [0.0] * len(normalized)
    for start, here in enumerate(lattice(normalized, pieces)):
        for end, _, score in here:
            alpha[end] += alpha[start] * math.exp(score)
    return math.log(alpha[-1])


# --------------------------------------------------------------------------- em_step, prune


def em_step_unnormalized(corpus: Sequence[str], pieces: Pieces) -> dict[str, float]:
    """The logs of the expected counts, not divided by their total."""
    return {piece: math.log(count)
            for piece, count in expected_counts(corpus, pieces).items() if count > 0}


def prune_characters_too(corpus: Sequence[str], pieces: Pieces, keep: int) -> dict[str, float]:
    """Every piece a candidate for removal, single characters included."""
    whole = corpus_log_likelihood(corpus, pieces)
    losses = {piece: whole - corpus_log_likelihood(
        corpus, {other: score for other, score in pieces.items() if other != piece})
        for piece in pieces}
    order = sorted(losses, key=lambda piece: (round(losses[piece], LOSS_DIGITS), piece))
    removed = set(order[:max(0, len(pieces) - keep)])
    return {piece: score for piece, score in pieces.items() if piece not in removed}


# --------------------------------------------------------------------------- the entries

_SMALL = {"\u2581": -1.0, "a": -1.0, "b": -1.0, "ab": -1.0}

MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        id="unigram-greedy-longest-match",
        title="Greedy longest match instead of the Viterbi best segmentation",
        hint=(
            "You take the longest piece that matches at each position. A Unigram model picks "
            "the segmentation whose pieces' log-probabilities add up to the most, which may "
            "start with a shorter piece: keep, for every position, the best score of any "
            "segmentation of the text up to there (best[end] = max over pieces ending there "
            "of best[start] + logp(piece)) and follow the back pointers from the end."
        ),
        role=SEGMENT,
        run=segment_greedy,
        witness={"text": "ab", "pieces": {"\u2581": -1.0, "a": -2.0, "b": -2.0,
                                          "\u2581a": -1.0, "ab": -0.5}},
    ),
    Mistake(
        id="unigram-forgot-space-symbol",
        title="Words segmented without the \u2581 that marks a word start",
        hint=(
            "SentencePiece does not split on whitespace: it replaces each space with \u2581 "
            "(U+2581), puts one \u2581 in front of the text, and segments the whole string, so "
            "pieces such as '\u2581the' can match at word starts. Normalize the text first."
        ),
        role=SEGMENT,
        run=segment_without_space,
        witness={"text": "ab", "pieces": {"\u2581": -1.0, "a": -1.0, "b": -1.0, "\u2581a": -0.5}},
    ),
    Mistake(
        id="unigram-likelihood-max",
        title="Max instead of log-sum-exp: the best path's score taken for the likelihood",
        hint=(
            "The likelihood sums the probabilities of every segmentation; the max gives only "
            "the best one (the Viterbi score). In log space a sum is log-sum-exp: "
            "alpha[end] = logsumexp(alpha[start] + logp(piece)) over the pieces ending there, "
            "with logsumexp(xs) = m + log(sum(exp(x - m) for x in xs)), m = max(xs)."
        ),
        role=LIKELIHOOD,
        run=likelihood_by_max,
        witness={"text": "ab", "pieces": dict(_SMALL)},
    ),
    Mistake(
        id="unigram-likelihood-underflow",
        title="Probabilities multiplied without logs (underflow on a long text)",
        hint=(
            "You multiply probabilities and take the log at the end. On a long text the "
            "product falls below the smallest float and becomes 0.0, and math.log(0.0) fails. "
            "Stay in log space: add log-probabilities along a path and combine paths with "
            "log-sum-exp."
        ),
        role=LIKELIHOOD,
        run=likelihood_by_products,
        witness={"text": LONG_TEXT, "pieces": dict(LONG_PIECES)},
    ),
    Mistake(
        id="unigram-em-counts-not-normalized",
        title="Expected counts not normalized",
        hint=(
            "The new log-probability of a piece is log(count / total), the total being the sum "
            "of every piece's expected count; you return log(count), which is no distribution "
            "(the probabilities do not sum to 1)."
        ),
        role=EM_STEP,
        run=em_step_unnormalized,
        witness={"corpus": ["ab"], "pieces": dict(_SMALL)},
    ),
    Mistake(
        id="unigram-prune-drops-characters",
        title="Pruning removes single characters",
        hint=(
            "Single characters are never pruned: without them some text could not be "
            "segmented into known pieces at all. Rank and remove only the pieces of two or "
            "more characters, and keep every single character whatever its loss."
        ),
        role=PRUNE,
        run=prune_characters_too,
        witness={"corpus": ["ab"], "keep": 4,
                 "pieces": {"\u2581": -1.0, "a": -1.0, "b": -1.0, "c": -1.0, "ab": -1.0}},
    ),
)


# --------------------------------------------------------------------------- comparing


@dataclass(frozen=True, eq=False)
class Near:
    """A float that equals another within the default tolerance (a canonical form)."""

    value: float

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Near) and close(self.value, other.value, DEFAULT_TOLERANCE)

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return repr(self.value)


def _number(value: Any) -> Any:
    if type(value) not in (int, float) or not math.isfinite(value):
        return NOT_COMPARABLE
    return Near(float(value))


def canonical(role: str, value: Any) -> Any:
    """A comparable form of an answer of ``role``, or ``NOT_COMPARABLE``."""
    if role == SEGMENT:
        if type(value) is list and all(type(piece) is str for piece in value):
            return list(value)
        return NOT_COMPARABLE
    if role == LIKELIHOOD:
        return _number(value)
    if type(value) is not dict or not all(type(piece) is str for piece in value):
        return NOT_COMPARABLE
    numbers = {piece: _number(score) for piece, score in value.items()}
    if any(number is NOT_COMPARABLE for number in numbers.values()):
        return NOT_COMPARABLE
    return numbers


def trivial(exercise: Any, role: str, inputs: Mapping[str, Any], value: Any) -> bool:
    """Whether a student's ``value`` on ``inputs`` is what do-nothing code also returns."""
    if canonical(role, value) is NOT_COMPARABLE:
        return True
    return trivial_answer(role, tuple(inputs[name] for name in ARGUMENTS[role]), value)


def telling_crash(role: str, crash: str) -> bool:
    """A log of 0.0 is what multiplying probabilities leads to."""
    return role == LIKELIHOOD and "math domain error" in crash


BOOK = MistakeBook(entries=MISTAKES, reference=REFERENCE, canonical=canonical,
                   trivial=trivial, telling_crash=telling_crash, crash=(ValueError,))
