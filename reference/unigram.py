"""Unigram language-model tokenization (Kudo 2018) with SentencePiece's conventions.

A model is a dict piece -> log-probability. A text is first *normalized* as SentencePiece does
by default (``normalize``): runs of spaces count as one, spaces at either end are dropped,
every remaining space becomes ``▁`` (U+2581) and one ``▁`` is put in front, so each word
starts with ``▁``. The *lattice* of the normalized text has an edge for every piece that
occurs at a position; where no one-character piece covers a character, an *unknown* edge of
one character scores the lowest log-probability of the model minus ``UNKNOWN_PENALTY``.

- ``segment``: the Viterbi best segmentation. Positions are filled left to right, and a path
  to a position replaces the one found before only when it scores strictly higher, so of two
  segmentations of a prefix that score the same the one whose last piece is longer wins.
  Adjacent unknown characters come back as one piece.
- ``log_likelihood``: the log of the sum of the probabilities of every segmentation (the
  forward algorithm, in log space with log-sum-exp).
- ``em_step``: one EM iteration on a corpus (a list of texts): each piece's expected count
  over all segmentations (forward-backward), divided by the total, as log-probabilities;
  pieces that occur in no text are left out.
- ``prune``: the model after removing the multi-character pieces whose removal costs the
  corpus the least log-likelihood, until ``keep`` pieces are left; single characters always
  stay, the remaining log-probabilities are unchanged. A piece's loss is the corpus
  log-likelihood with it minus without it; the smallest loss goes first, losses equal to
  ``LOSS_DIGITS`` decimals are equal, and equal ones go in alphabetical order of the piece.

SentencePiece's own encoder (``sp.encode(text, out_type=str)``, a model trained with
``--normalization_rule_name=identity``) gives the same pieces as ``segment``
(tests/reference/test_unigram_sentencepiece.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Optional

SPACE = "\u2581"
UNKNOWN_PENALTY = 10.0
LOSS_DIGITS = 9

Pieces = Mapping[str, float]
Edge = tuple[int, Optional[str], float]  # (end, piece or None for an unknown character, score)


def normalize(text: str) -> str:
    """``text`` as the lattice sees it: single spaces, none at the ends, each a ``▁``, one
    ``▁`` in front; the empty text stays empty."""
    words = [word for word in text.split(" ") if word]
    return SPACE + SPACE.join(words) if words else ""


def unknown_score(pieces: Pieces) -> float:
    """The score of an unknown character: the lowest log-probability minus the penalty."""
    return (min(pieces.values()) if pieces else 0.0) - UNKNOWN_PENALTY


def lattice(normalized: str, pieces: Pieces) -> list[list[Edge]]:
    """For each start position, its edges in order of length (an unknown one last)."""
    longest = max((len(piece) for piece in pieces), default=0)
    unknown = unknown_score(pieces)
    edges: list[list[Edge]] = []
    for start in range(len(normalized)):
        here: list[Edge] = []
        for end in range(start + 1, min(len(normalized), start + longest) + 1):
            piece = normalized[start:end]
            if piece in pieces:
                here.append((end, piece, float(pieces[piece])))
        if normalized[start] not in pieces:
            here.append((start + 1, None, unknown))
        edges.append(here)
    return edges


def viterbi(text: str, pieces: Pieces) -> tuple[list[str], float]:
    """The best segmentation of ``text`` and its log-probability (see the module docstring)."""
    normalized = normalize(text)
    size = len(normalized)
    best: list[Optional[float]] = [None] * (size + 1)
    back: list[tuple[int, Optional[str]]] = [(0, None)] * (size + 1)
    best[0] = 0.0
    for start, edges in enumerate(lattice(normalized, pieces)):
        score_here = best[start]
        if score_here is None:
            continue
        for end, piece, score in edges:
            candidate = score_here + score
            if best[end] is None or candidate > best[end]:  # type: ignore[operator]
                best[end] = candidate
                back[end] = (start, piece)
    path: list[tuple[str, bool]] = []
    end = size
    while end > 0:
        start, piece = back[end]
        path.append((normalized[start:end], piece is None))
        end = start
    path.reverse()
    tokens: list[str] = []
    previous_unknown = False
    for piece, is_unknown in path:
        if is_unknown and previous_unknown:
            tokens[-1] += piece
        else:
            tokens.append(piece)
        previous_unknown = is_unknown
    return tokens, float(best[size] or 0.0)


def segment(text: str, pieces: Pieces) -> list[str]:
    """The Viterbi best segmentation of ``text`` under the log-probabilities ``pieces``."""
    return viterbi(text, pieces)[0]


def log_sum_exp(values: Sequence[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(value - top) for value in values))


def _forward(normalized: str, edges: list[list[Edge]]) -> list[Optional[float]]:
    incoming: list[list[float]] = [[] for _ in range(len(normalized) + 1)]
    alpha: list[Optional[float]] = [None] * (len(normalized) + 1)
    alpha[0] = 0.0
    for start, here in enumerate(edges):
        if incoming[start]:
            alpha[start] = log_sum_exp(incoming[start])
        if alpha[start] is None:
            continue
        for end, _, score in here:
            incoming[end].append(alpha[start] + score)  # type: ignore[operator]
    if incoming[-1]:
        alpha[-1] = log_sum_exp(incoming[-1])
    return alpha


def _backward(normalized: str, edges: list[list[Edge]]) -> list[Optional[float]]:
    size = len(normalized)
    beta: list[Optional[float]] = [None] * (size + 1)
    beta[size] = 0.0
    for start in range(size - 1, -1, -1):
        outgoing = [score + beta[end] for end, _, score in edges[start]  # type: ignore[operator]
                    if beta[end] is not None]
        if outgoing:
            beta[start] = log_sum_exp(outgoing)
    return beta


def log_likelihood(text: str, pieces: Pieces) -> float:
    """The log of the total probability of every segmentation of ``text`` (0.0 when empty)."""
    normalized = normalize(text)
    alpha = _forward(normalized, lattice(normalized, pieces))
    return float(alpha[-1] or 0.0)


def expected_counts(corpus: Sequence[str], pieces: Pieces) -> dict[str, float]:
    """Each piece's expected number of occurrences over every segmentation of every text,
    for the pieces that occur somewhere (unknown characters are no piece)."""
    counts: dict[str, float] = {}
    for text in corpus:
        normalized = normalize(text)
        edges = lattice(normalized, pieces)
        alpha, beta = _forward(normalized, edges), _backward(normalized, edges)
        total = alpha[-1]
        if total is None or not normalized:
            continue
        for start, here in enumerate(edges):
            if alpha[start] is None:
                continue
            for end, piece, score in here:
                if piece is None or beta[end] is None:
                    continue
                weight = math.exp(alpha[start] + score + beta[end] - total)  # type: ignore[operator]
                counts[piece] = counts.get(piece, 0.0) + weight
    return counts


def em_step(corpus: Sequence[str], pieces: Pieces) -> dict[str, float]:
    """The log-probabilities after one EM iteration: expected counts, normalized."""
    counts = expected_counts(corpus, pieces)
    total = sum(counts.values())
    return {piece: math.log(count / total) for piece, count in counts.items() if count > 0}


def corpus_log_likelihood(corpus: Sequence[str], pieces: Pieces) -> float:
    return sum(log_likelihood(text, pieces) for text in corpus)


def piece_losses(corpus: Sequence[str], pieces: Pieces) -> dict[str, float]:
    """For every multi-character piece, how much corpus log-likelihood its removal costs."""
    whole = corpus_log_likelihood(corpus, pieces)
    losses: dict[str, float] = {}
    for piece in pieces:
        if len(piece) > 1:
            without = {other: score for other, score in pieces.items() if other != piece}
            losses[piece] = whole - corpus_log_likelihood(corpus, without)
    return losses


def removal_order(corpus: Sequence[str], pieces: Pieces) -> list[str]:
    """The multi-character pieces in the order pruning removes them."""
    losses = piece_losses(corpus, pieces)
    return sorted(losses, key=lambda piece: (round(losses[piece], LOSS_DIGITS), piece))


def prune(corpus: Sequence[str], pieces: Pieces, keep: int) -> dict[str, float]:
    """The pieces kept when the cheapest multi-character ones are removed down to ``keep``."""
    removable = max(0, len(pieces) - keep)
    removed = set(removal_order(corpus, pieces)[:removable])
    return {piece: score for piece, score in pieces.items() if piece not in removed}
