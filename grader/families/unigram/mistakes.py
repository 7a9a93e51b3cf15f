"""Known Unigram LM mistakes, each one a runnable wrong implementation, as the mistake book.

``segment``: the longest piece taken greedily from the left instead of the Viterbi best
path, and words segmented without the ``▁`` that marks their start. ``log_likelihood``: the
best path's score (max) instead of the sum over every path (log-sum-exp), and probabilities
multiplied without logs, which underflows to 0.0 on a long text so ``math.log`` fails.
``em_step``: expected counts returned as their logs, never divided by the total. ``prune``:
single characters removed like any other piece. The mistakes of published code
(:mod:`.real_code`): unknown characters as ``<unk>``, left out, not joined or crashing;
SentencePiece's ``add_dummy_prefix=false`` and its digamma M-step (conventions, said to be
so); hard EM; pruning by probability or one piece short; and greedy longest match with
``<unk>`` as a combination of two.

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
from grader.families.unigram import real_code
from grader.families.unigram.signals import likelihood_signals
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
        title="Path probabilities underflow to 0.0 on a long text (no log-sum-exp)",
        hint=(
            "On a long text the probability of every path is below the smallest float: "
            "multiplied as probabilities, or summed as math.exp(log-probability) without "
            "first subtracting the largest, the total becomes 0.0, and math.log(0.0) then "
            "fails (or your code returns -inf). Stay in log space: add log-probabilities "
            "along a path and combine paths with log-sum-exp, "
            "m + log(sum(exp(x - m) for x in xs)) with m = max(xs)."
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


# --------------------------------------------------------------------------- from real code

_UNKNOWN = {"text": "a zz", "pieces": {"\u2581": -1.0, "a": -1.0}}
_LOW_SINGLES = {"\u2581": -5.0, "a": -5.0, "b": -5.0, "c": -5.0, "ab": -3.0, "bc": -1.0}
UNKNOWN_KEPT = ("A character with no one-character piece is an unknown piece of one character "
                "scoring min(pieces.values()) - 10, and adjacent unknown characters come back "
                "as one piece: the segmentation joins back to the normalized text.")

REAL_CODE_MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        id="unigram-unknown-as-unk",
        title="Unknown characters returned as <unk>",
        hint=("You return each run of unknown characters as '<unk>', as a tokenizer's ids "
              "would show it. This exercise returns the pieces themselves: " + UNKNOWN_KEPT),
        role=SEGMENT, run=real_code.segment_unknown_as_unk, witness=_UNKNOWN,
    ),
    Mistake(
        id="unigram-unknown-dropped",
        title="Unknown characters left out",
        hint=("Characters with no piece of their own vanish from your segmentation. " + UNKNOWN_KEPT),
        role=SEGMENT, run=real_code.segment_unknown_dropped, witness=_UNKNOWN,
    ),
    Mistake(
        id="unigram-unknown-not-joined",
        title="Adjacent unknown characters returned as separate pieces",
        hint=("Each unknown character is right, but adjacent ones must come back as one piece "
              "('zz', not 'z', 'z'), as SentencePiece returns them: when the piece before was "
              "unknown too, append the character to it instead of starting a new piece."),
        role=SEGMENT, run=real_code.segment_unknown_not_joined, witness=_UNKNOWN,
    ),
    Mistake(
        id="unigram-unknown-crash",
        title="Crash on a character with no piece",
        hint=("Your lattice has no edge for a character that is not a piece, so no path "
              "reaches the end and following the back pointers fails. Give every position "
              "whose character is not a one-character piece an unknown edge of length 1 "
              "scoring min(pieces.values()) - 10."),
        role=SEGMENT, run=real_code.segment_crash_on_unknown, witness=_UNKNOWN,
    ),
    Mistake(
        id="unigram-no-dummy-prefix",
        title="SentencePiece's add_dummy_prefix=false: no \u2581 in front of the text",
        hint=("This is a SentencePiece convention, not a bug: with add_dummy_prefix=false the "
              "spaces become '\u2581' but none is put in front, so the first word has no "
              "'\u2581'. This exercise asks for SentencePiece's default, add_dummy_prefix=true: "
              "one '\u2581' in front of the normalized text, so every word starts with it."),
        role=SEGMENT, run=real_code.segment_without_dummy_prefix,
        witness={"text": "a b", "pieces": {"\u2581": -1.0, "a": -1.0, "b": -1.0}},
    ),
    Mistake(
        id="unigram-extra-spaces-kept",
        title="SentencePiece's remove_extra_whitespaces=false: every space kept as \u2581",
        hint=("This is a SentencePiece convention, not a bug: with remove_extra_whitespaces="
              "false every space becomes '\u2581', runs of spaces and spaces at the ends "
              "included. This exercise asks for SentencePiece's default, "
              "remove_extra_whitespaces=true: drop spaces at both ends and count a run of "
              "spaces as one before replacing them."),
        role=SEGMENT, run=real_code.segment_extra_spaces_kept,
        witness={"text": " a", "pieces": {"\u2581": -1.0, "a": -1.0}},
    ),
    Mistake(
        id="unigram-em-hard-counts",
        title="Hard EM: counts taken from the Viterbi segmentation only",
        hint=("You count the pieces of each text's best segmentation (Viterbi, or hard, EM). "
              "This EM step takes every segmentation into account, weighted by its "
              "probability: the expected count of an occurrence from i to j is "
              "exp(alpha[i] + logp + beta[j] - log_likelihood), from the forward and "
              "backward passes."),
        role=EM_STEP, run=real_code.em_step_hard,
        witness={"corpus": ["ab"], "pieces": dict(_SMALL)},
    ),
    Mistake(
        id="unigram-em-digamma",
        title="SentencePiece's M-step: digamma(count) - digamma(total), small counts dropped",
        hint=("This is SentencePiece's own M-step (a Bayesian update): pieces expected fewer "
              "than 0.5 times are dropped and the rest get digamma(count) - digamma(total). "
              "This exercise asks for the plain maximum-likelihood step: "
              "log(count / total) for every piece with a count above 0."),
        role=EM_STEP, run=real_code.em_step_digamma,
        witness={"corpus": ["ab"], "pieces": dict(_SMALL)},
    ),
    Mistake(
        id="unigram-prune-by-probability",
        title="Pieces pruned by lowest probability instead of lowest loss",
        hint=("You remove the pieces with the lowest log-probability. A rare piece can still be "
              "the only good way to segment part of the corpus: rank the pieces by their loss, "
              "the corpus log-likelihood with all pieces minus without that one, and remove "
              "the smallest losses first."),
        role=PRUNE, run=real_code.prune_by_probability,
        witness={"corpus": ["ab"], "pieces": dict(_LOW_SINGLES), "keep": 5},
    ),
    Mistake(
        id="unigram-prune-one-short",
        title="Pruning removes one piece too few",
        hint=("Your order is right, but you remove len(pieces) - keep - 1 pieces, so one piece "
              "too many stays. Remove len(pieces) - keep of them (never a single character), "
              "so keep pieces are left."),
        role=PRUNE, run=real_code.prune_one_short,
        witness={"corpus": ["ab"], "keep": 4,
                 "pieces": {"\u2581": -1.0, "a": -1.0, "b": -1.0, "c": -1.0, "ab": -1.0}},
    ),
)

MISTAKES = MISTAKES + REAL_CODE_MISTAKES


def segment_greedy_with_unk(text: str, pieces: Pieces) -> list[str]:
    """Greedy longest match, and each run of unknown characters as ``<unk>``."""
    return [real_code.UNK if real_code.is_unknown_run(token, pieces) else token
            for token in segment_greedy(text, pieces)]


def _combined(first: Mistake, second: Mistake, run: Any) -> Mistake:
    return Mistake(id=f"{first.id}+{second.id}", title=f"{first.title}; {second.title}",
                   hint=f"{first.hint} Also: {second.hint}", role=first.role, run=run,
                   witness={"text": "ab z", "pieces": dict(first.witness["pieces"])})


COMBINATIONS: tuple[Mistake, ...] = (
    _combined(MISTAKES[0], REAL_CODE_MISTAKES[0], segment_greedy_with_unk),
)
"""Two mistakes at once, as published code makes them: greedy longest match with <unk>."""


def combinations(role: str, options: Mapping[str, Any]) -> tuple[Mistake, ...]:
    return tuple(mistake for mistake in COMBINATIONS if mistake.role == role)


def combination_by_id(mistake_id: str) -> Mistake:
    return next(mistake for mistake in COMBINATIONS if mistake.id == mistake_id)


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
    """A log of 0.0 (or the -inf a guarded log gives) is what an underflowing forward pass
    leads to; a back pointer left None, what a lattice without unknown edges leads to."""
    if role == LIKELIHOOD:
        return "math domain error" in crash or "float(-inf)" in crash
    return role == SEGMENT and any(sign in crash for sign in real_code.CRASH_SIGNS)


BOOK = MistakeBook(entries=MISTAKES, reference=REFERENCE, canonical=canonical,
                   trivial=trivial, telling_crash=telling_crash, crash=(ValueError,),
                   combinations=combinations, signals=likelihood_signals)
