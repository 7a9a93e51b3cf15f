"""Unigram mistakes found in published code: SentencePiece ports, course notebooks, tutorials.

Each is a runnable wrong implementation, catalogued by :mod:`grader.families.unigram.mistakes`:

- ``segment``: unknown characters handled otherwise than as one piece per run (each run
  returned as ``<unk>``, left out, one piece per character, or a crash because the lattice has
  no path through them); SentencePiece's ``add_dummy_prefix=false`` (no ``▁`` in front) and
  ``remove_extra_whitespaces=false`` (every space a ``▁``), conventions of their own.
- ``em_step``: hard EM (counts on the Viterbi segmentation only), and SentencePiece's own
  M-step (``digamma(count) - digamma(total)``, expected counts below 0.5 dropped).
- ``prune``: pieces removed by lowest log-probability instead of lowest loss, and one piece
  fewer removed than asked (``len(pieces) - keep - 1``).

A crash is an outcome too: :class:`NoPathThroughUnknown` is what the crashing segmenter
raises, so naming can tell "this mistake crashes here" from "this mistake does not apply".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from reference.unigram import (
    LOSS_DIGITS,
    SPACE,
    expected_counts,
    lattice,
    normalize,
    piece_losses,
    viterbi,
)

Pieces = Mapping[str, float]
UNK = "<unk>"
EXPECTED_FREQUENCY_THRESHOLD = 0.5
"""SentencePiece's ``kExpectedFrequencyThreshold``: pieces expected fewer times are dropped."""


class NoPathThroughUnknown(ValueError):
    """What a segmenter whose lattice has no edge for an unknown character raises."""

    def __init__(self) -> None:
        super().__init__("cannot unpack non-iterable NoneType object")


CRASH_SIGNS = ("NoneType", "KeyError")
"""Words in a student's failure that say the Viterbi pass found no path: a back pointer left
``None`` (unpacked, or indexed), or the piece of an unknown character looked up."""


def is_unknown_run(token: str, pieces: Pieces) -> bool:
    return token not in pieces and bool(token) and all(c not in pieces for c in token)


# --------------------------------------------------------------------------- segment


def segment_unknown_as_unk(text: str, pieces: Pieces) -> list[str]:
    """Each run of unknown characters returned as ``<unk>``."""
    return [UNK if is_unknown_run(token, pieces) else token for token in viterbi(text, pieces)[0]]


def segment_unknown_dropped(text: str, pieces: Pieces) -> list[str]:
    """Unknown characters left out of the segmentation."""
    return [token for token in viterbi(text, pieces)[0] if not is_unknown_run(token, pieces)]


def segment_unknown_not_joined(text: str, pieces: Pieces) -> list[str]:
    """Each unknown character a piece of its own, adjacent ones not joined."""
    tokens: list[str] = []
    for token in viterbi(text, pieces)[0]:
        tokens.extend(token if is_unknown_run(token, pieces) else [token])
    return tokens


def segment_crash_on_unknown(text: str, pieces: Pieces) -> list[str]:
    """No lattice edge for an unknown character: the best path to the end is never found."""
    if any(character not in pieces for character in normalize(text)):
        raise NoPathThroughUnknown()
    return viterbi(text, pieces)[0]


def _without_dummy_prefix(text: str) -> str:
    words = [word for word in text.split(" ") if word]
    return SPACE.join(words)


def segment_without_dummy_prefix(text: str, pieces: Pieces) -> list[str]:
    """SentencePiece's ``add_dummy_prefix=false``: spaces become ``▁``, none is put in front."""
    return _best_tokens_as_is(_without_dummy_prefix(text), pieces)


def segment_extra_spaces_kept(text: str, pieces: Pieces) -> list[str]:
    """SentencePiece's ``remove_extra_whitespaces=false``: every space becomes ``▁``, runs and
    ends included, after the one ``▁`` put in front."""
    return _best_tokens_as_is(SPACE + text.replace(" ", SPACE) if text else "", pieces)


def _best_tokens_as_is(normalized: str, pieces: Pieces) -> list[str]:
    """The Viterbi best segmentation of ``normalized`` as it is (no normalization)."""
    edges = lattice(normalized, pieces)
    best: list = [0.0] + [None] * len(normalized)
    back: list = [None] * (len(normalized) + 1)
    for start, here in enumerate(edges):
        if best[start] is None:
            continue
        for end, piece, score in here:
            candidate = best[start] + score
            if best[end] is None or candidate > best[end]:
                best[end], back[end] = candidate, (start, piece is None)
    path, end = [], len(normalized)
    while end > 0:
        start, unknown = back[end]
        path.append((normalized[start:end], unknown))
        end = start
    tokens: list[str] = []
    previous = False
    for piece, unknown in reversed(path):
        if unknown and previous:
            tokens[-1] += piece
        else:
            tokens.append(piece)
        previous = unknown
    return tokens


# --------------------------------------------------------------------------- em_step


def _normalized_logs(counts: Mapping[str, float]) -> dict[str, float]:
    total = sum(counts.values())
    return {piece: math.log(count / total) for piece, count in counts.items() if count > 0}


def em_step_hard(corpus: Sequence[str], pieces: Pieces) -> dict[str, float]:
    """Hard EM: each piece counted on every text's Viterbi segmentation only, normalized."""
    counts: dict[str, float] = {}
    for text in corpus:
        for token in viterbi(text, pieces)[0]:
            if token in pieces:
                counts[token] = counts.get(token, 0.0) + 1.0
    return _normalized_logs(counts) if counts else {}


def digamma(x: float) -> float:
    """The digamma function for x > 0: the recurrence up to 7, then the asymptotic series
    (SentencePiece's own ``Digamma``)."""
    result = 0.0
    while x < 7:
        result -= 1 / x
        x += 1
    x -= 0.5
    xx = 1 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    return (result + math.log(x) + (1 / 24) * xx2 - (7 / 960) * xx4
            + (31 / 8064) * xx4 * xx2 - (127 / 30720) * xx4 * xx4)


def em_step_digamma(corpus: Sequence[str], pieces: Pieces) -> dict[str, float]:
    """SentencePiece's M-step: counts below 0.5 dropped, ``digamma(count) - digamma(total)``."""
    counts = {piece: count for piece, count in expected_counts(corpus, pieces).items()
              if count >= EXPECTED_FREQUENCY_THRESHOLD}
    if not counts:
        return {}
    total = digamma(sum(counts.values()))
    return {piece: digamma(count) - total for piece, count in counts.items()}


# --------------------------------------------------------------------------- prune


def _kept(pieces: Pieces, order: list[str], removed_count: int) -> dict[str, float]:
    removed = set(order[:max(0, removed_count)])
    return {piece: score for piece, score in pieces.items() if piece not in removed}


def prune_by_probability(corpus: Sequence[str], pieces: Pieces, keep: int) -> dict[str, float]:
    """The multi-character pieces of lowest log-probability removed first (no losses)."""
    order = sorted((piece for piece in pieces if len(piece) > 1),
                   key=lambda piece: (pieces[piece], piece))
    return _kept(pieces, order, len(pieces) - keep)


def prune_one_short(corpus: Sequence[str], pieces: Pieces, keep: int) -> dict[str, float]:
    """The right order, but one piece fewer removed: ``order[:len(pieces) - keep - 1]``."""
    losses = piece_losses(corpus, pieces)
    order = sorted(losses, key=lambda piece: (round(losses[piece], LOSS_DIGITS), piece))
    return _kept(pieces, order, len(pieces) - keep - 1)

