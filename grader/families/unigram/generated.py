"""Generated inputs for the Unigram roles: small models over a few letters, texts and corpora.

A model holds ``▁`` and every letter of the exercise's alphabet as pieces (for a text to
segment, sometimes all but its last letter, so unknown characters occur), and up to
``max_pieces`` longer pieces made of the letters, some with a leading ``▁``. Log-probabilities
are multiples of 0.5 between -10 and -0.5: sums of them are exact in floating point, so paths
that score the same really tie and the tie rule decides. Texts are a few words of the letters,
sometimes with extra spaces around them (which normalization removes). Corpora are lists of
such texts over the model's own letters, as EM and pruning take. A few targeted inputs go
early: the ones the catalogued mistakes show on.
"""

from __future__ import annotations

from typing import Any

from grader.families.api import st
from reference.unigram import SPACE

HALF_STEPS = 20  # log-probabilities -0.5, -1.0, ..., -10.0


def _letters(exercise: Any) -> str:
    return "".join(sorted(set(exercise.properties.alphabet)))


def score_strategy() -> Any:
    return st.integers(1, HALF_STEPS).map(lambda steps: -steps / 2)


def piece_strategy(exercise: Any) -> Any:
    """A piece of two or more characters: letters, maybe after a ``▁``."""
    props = exercise.properties
    letters = st.lists(st.sampled_from(_letters(exercise)), min_size=1,
                       max_size=props.max_piece_length)
    return st.tuples(st.booleans(), letters).map(
        lambda drawn: (SPACE if drawn[0] else "") + "".join(drawn[1])).filter(
        lambda piece: 2 <= len(piece) <= props.max_piece_length)


def pieces_strategy(exercise: Any, unknown: bool) -> Any:
    """A model: the single characters (the last letter left out when ``unknown`` draws True)
    and some longer pieces, each with a log-probability."""
    letters = _letters(exercise)
    singles = [SPACE, *letters]

    def build(drawn: tuple) -> dict[str, float]:
        leave_out, single_scores, longer = drawn
        chosen = singles[:-1] if leave_out and len(letters) > 1 else singles
        model = dict(zip(chosen, single_scores))
        for piece, score in longer:
            model.setdefault(piece, score)
        return model

    return st.tuples(
        st.booleans() if unknown else st.just(False),
        st.lists(score_strategy(), min_size=len(singles), max_size=len(singles)),
        st.lists(st.tuples(piece_strategy(exercise), score_strategy()),
                 max_size=exercise.properties.max_pieces),
    ).map(build)


def text_strategy(exercise: Any) -> Any:
    props = exercise.properties
    word = st.lists(st.sampled_from(_letters(exercise)), min_size=1,
                    max_size=props.max_word_length).map("".join)
    spacing = st.sampled_from(["", "", "", " "])
    return st.tuples(spacing, st.lists(word, min_size=1, max_size=props.max_words), spacing).map(
        lambda drawn: drawn[0] + " ".join(drawn[1]) + drawn[2])


def text_example(exercise: Any) -> Any:
    """``(text, pieces)`` for segment and log_likelihood."""
    return st.tuples(text_strategy(exercise), pieces_strategy(exercise, unknown=True))


def corpus_example(exercise: Any) -> Any:
    """``(corpus, pieces)`` for em_step: every character of the corpus is a piece."""
    corpus = st.lists(text_strategy(exercise), min_size=1, max_size=exercise.properties.max_texts)
    return st.tuples(corpus, pieces_strategy(exercise, unknown=False))


def prune_example(exercise: Any) -> Any:
    """``(corpus, pieces, keep)``: keep between the single characters' count and all pieces."""
    def with_keep(drawn: tuple) -> Any:
        corpus, pieces = drawn
        return st.integers(0, len(pieces) + 1).map(lambda keep: (corpus, pieces, keep))

    return corpus_example(exercise).flatmap(with_keep)


_GREEDY = {SPACE: -1.0, "a": -2.0, "b": -2.0, SPACE + "a": -1.0, "ab": -0.5}
_TIE = {SPACE: -1.0, "a": -1.0, "b": -1.0, SPACE + "a": -2.0, "ab": -2.0}
_PRUNE = {SPACE: -1.0, "a": -1.0, "b": -1.0, "c": -1.0, "ab": -1.0, SPACE + "a": -1.5}

LONG_PIECES = {SPACE: -3.0, "a": -3.0, "b": -3.0, "c": -3.0, SPACE + "a": -4.0, "bc": -4.0}
LONG_TEXT = " ".join(["abc"] * 150)
"""Every path of it is less likely than the smallest float: products of probabilities are 0.0."""

TARGETED = {
    "text": [("ab ab", dict(_GREEDY)), ("ab", dict(_TIE)), ("a  zb ", dict(_GREEDY)),
             (LONG_TEXT, dict(LONG_PIECES))],
    "corpus": [(["ab", "ba ab"], dict(_TIE))],
    "prune": [(["ab ab", "b"], dict(_PRUNE), 4), (["ab"], dict(_PRUNE), 0)],
}
"""Inputs where the mistakes show: a shorter first piece wins, a tie, an unknown character,
pieces the corpus never uses, a text too long for products of probabilities."""


def settings_key(exercise: Any) -> tuple:
    return tuple(sorted(dict(exercise.properties).items()))


def count(exercise: Any) -> int:
    return exercise.properties.examples
