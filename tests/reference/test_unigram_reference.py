"""``reference.unigram`` against brute force: every segmentation of small texts enumerated.

Viterbi is the best of them (ties as declared), the log-likelihood the log of their total
probability, EM's expected counts the probability-weighted counts over all of them, and
pruning's losses the corpus log-likelihood with and without each piece.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

import pytest

from reference.unigram import (
    SPACE,
    em_step,
    expected_counts,
    log_likelihood,
    normalize,
    piece_losses,
    prune,
    segment,
    unknown_score,
    viterbi,
)


def segmentations(text: str, pieces: dict[str, float]) -> Iterator[tuple[list[str], float]]:
    """Every segmentation of the normalized text (unknown characters one by one) and its
    log-probability."""
    normalized = normalize(text)
    unknown = unknown_score(pieces)

    def rest(at: int) -> Iterator[tuple[list[str], float]]:
        if at == len(normalized):
            yield [], 0.0
            return
        for end in range(at + 1, len(normalized) + 1):
            piece = normalized[at:end]
            score = pieces.get(piece)
            if score is None and end == at + 1 and piece not in pieces:
                score = unknown
            if score is not None:
                for tail, tail_score in rest(end):
                    yield [piece, *tail], score + tail_score

    yield from rest(0)


def random_model(draw: random.Random) -> tuple[str, dict[str, float]]:
    letters = "ab"[: draw.randint(1, 2)]
    text = " ".join("".join(draw.choice(letters) for _ in range(draw.randint(1, 4)))
                    for _ in range(draw.randint(1, 3)))
    pieces = {symbol: -draw.uniform(0.5, 4) for symbol in SPACE + letters}
    for _ in range(draw.randint(0, 5)):
        piece = (SPACE if draw.random() < 0.5 else "") + "".join(
            draw.choice(letters) for _ in range(draw.randint(1, 3)))
        if len(piece) > 1:
            pieces[piece] = -draw.uniform(0.5, 6)
    return text, pieces


MODELS = [random_model(random.Random(seed)) for seed in range(120)]


@pytest.mark.parametrize("text, pieces", MODELS[:60])
def test_viterbi_is_the_best_segmentation_and_the_likelihood_their_total(text, pieces):
    everything = list(segmentations(text, pieces))
    best = max(score for _, score in everything)
    tokens, score = viterbi(text, pieces)
    assert math.isclose(score, best, abs_tol=1e-9)
    assert tokens in [tokens for tokens, s in everything if math.isclose(s, best, abs_tol=1e-9)]
    total = math.log(sum(math.exp(s) for _, s in everything))
    assert math.isclose(log_likelihood(text, pieces), total, abs_tol=1e-9)
    assert log_likelihood(text, pieces) >= score


def test_ties_keep_the_longer_last_piece():
    tied = {SPACE: -1.0, "a": -1.0, "b": -1.0, SPACE + "a": -2.0, "ab": -2.0}
    assert segment("ab", tied) == [SPACE, "ab"]
    assert segment("aaa", {SPACE: -0.5, "a": -0.5, "aa": -0.5}) == [SPACE, "a", "aa"]


def test_normalization_and_unknown_characters():
    pieces = {SPACE: -1.0, "a": -1.0}
    assert normalize("  a   a ") == SPACE + "a" + SPACE + "a"
    assert segment("", pieces) == segment("   ", pieces) == []
    assert log_likelihood("", pieces) == 0.0
    assert segment("a zz", pieces) == [SPACE, "a", SPACE, "zz"]
    assert math.isclose(log_likelihood("z", pieces), -1.0 + (-11.0))


def test_em_counts_are_expectations_over_every_segmentation():
    for text, pieces in MODELS[60:90]:
        corpus = [text, text.split()[0]]
        counts: dict[str, float] = {}
        for line in corpus:
            everything = list(segmentations(line, pieces))
            total = sum(math.exp(s) for _, s in everything)
            for tokens, score in everything:
                for token in tokens:
                    if token in pieces:
                        counts[token] = counts.get(token, 0.0) + math.exp(score) / total
        found = expected_counts(corpus, pieces)
        assert set(found) == {piece for piece, count in counts.items() if count > 0}
        assert all(math.isclose(found[p], counts[p], rel_tol=1e-9) for p in found)
        new = em_step(corpus, pieces)
        assert math.isclose(sum(math.exp(v) for v in new.values()), 1.0)
        assert all(math.isclose(new[p], math.log(counts[p] / sum(counts.values()))) for p in new)


def test_pruning_removes_the_cheapest_longer_pieces_and_keeps_every_character():
    for text, pieces in MODELS[90:]:
        corpus = [text, "a b"]
        losses = piece_losses(corpus, pieces)
        assert set(losses) == {piece for piece in pieces if len(piece) > 1}
        for keep in range(len(pieces) + 2):
            kept = prune(corpus, pieces, keep)
            assert all(piece in kept for piece in pieces if len(piece) == 1)
            assert all(kept[p] == pieces[p] for p in kept)
            gone = [p for p in pieces if p not in kept]
            assert len(kept) == max(min(keep, len(pieces)), sum(len(p) == 1 for p in pieces))
            stayed = [p for p in losses if p in kept]
            assert all(losses[g] <= losses[s] + 1e-9 for g in gone for s in stayed)


def test_a_piece_the_corpus_never_uses_costs_nothing():
    pieces = {SPACE: -1.0, "a": -1.0, "b": -1.0, "ab": -1.0, "ba": -1.0}
    assert piece_losses(["ab"], pieces)["ba"] == 0.0
    assert prune(["ab"], pieces, 4) == {SPACE: -1.0, "a": -1.0, "b": -1.0, "ab": -1.0}
