"""Character BPE's mistakes as one book: the catalogue, its references and canonical forms.

A student's merges are compared as ``(str, str)`` tuples, tokens as a list of ``str``, lengths
as a dict of ``str`` to ``int``, pair counts as a dict of pairs to ``int``, merged words as a dict of symbol tuples to ``int``,
trade-off rows with their averages rounded to 9 decimals;
the references are the fast trainer, the encoder, the sequence-length counter, the lessons'
pair counter, one merge over every word and the trade-off table, with the exercise's marker
(and tie rule, for training and the trade-off) as options. Combinations of two mistakes come from :mod:`grader.families.bpe.compound`; a crash
of the student's trainer that looks like "no pair left" is reproduced by the mistakes that
raise :class:`~grader.families.bpe.real_code.NoPairLeft`. Mistakes are named from all of a
milestone's failing inputs at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from grader.families.bpe.catalogue import CATALOGUE, ROLES
from grader.families.bpe.compound import combinations
from grader.families.bpe.evidence import trivial_answer
from grader.families.bpe.merging import merge_pair
from grader.families.bpe.real_code import NoPairLeft, crash_looks_like_no_pair_left
from grader.families.bpe.signals import train_signals
from grader.families.bpe.tradeoff import canonical_rows, shape as tradeoff_shape, trivial_rows
from grader.families.api import Exercise, MistakeBook, NOT_COMPARABLE, Observation, ShapeError
from reference import encode, train_bpe
from reference.corpus import word_counts
from reference.plain import count_pairs
from reference.sequence_lengths import sequence_lengths
from reference.vocab_tradeoff import vocab_tradeoff

TRAIN, ENCODE, LENGTHS, COUNT, MERGE, TRADEOFF = ROLES


def canonical_merges(value: object) -> object:
    """A list of ``(str, str)`` tuples (2-item lists accepted), else ``NOT_COMPARABLE``."""
    if not isinstance(value, (list, tuple)):
        return NOT_COMPARABLE
    pairs = []
    for item in value:
        if not (
            isinstance(item, (list, tuple))
            and len(item) == 2
            and all(isinstance(part, str) for part in item)
        ):
            return NOT_COMPARABLE
        pairs.append((item[0], item[1]))
    return pairs


def canonical_tokens(value: object) -> object:
    if not isinstance(value, (list, tuple)) or not all(isinstance(t, str) for t in value):
        return NOT_COMPARABLE
    return list(value)


def canonical_lengths(value: object) -> object:
    """A dict of str -> int (no bools), else ``NOT_COMPARABLE``."""
    if not isinstance(value, Mapping):
        return NOT_COMPARABLE
    for key, count in value.items():
        if not isinstance(key, str) or isinstance(count, bool) or not isinstance(count, int):
            return NOT_COMPARABLE
    return dict(value)


def canonical_pair_counts(value: object) -> object:
    """A dict of (str, str) pairs -> int (no bools), else ``NOT_COMPARABLE``."""
    if not isinstance(value, Mapping):
        return NOT_COMPARABLE
    for key, count in value.items():
        if not (isinstance(key, tuple) and len(key) == 2 and all(isinstance(p, str) for p in key)):
            return NOT_COMPARABLE
        if isinstance(count, bool) or not isinstance(count, int):
            return NOT_COMPARABLE
    return dict(value)


def canonical_words(value: object) -> object:
    """A dict of symbol tuples -> int (no bools), else ``NOT_COMPARABLE``."""
    if not isinstance(value, Mapping):
        return NOT_COMPARABLE
    for key, count in value.items():
        if not (isinstance(key, tuple) and all(isinstance(p, str) for p in key)):
            return NOT_COMPARABLE
        if isinstance(count, bool) or not isinstance(count, int):
            return NOT_COMPARABLE
    return dict(value)


def canonical_tradeoff(value: object) -> object:
    """Rows of three keys (averages rounded to 9 decimals), else ``NOT_COMPARABLE``."""
    try:
        return canonical_rows(tradeoff_shape(None, value, TRADEOFF))
    except ShapeError:
        return NOT_COMPARABLE


CANONICAL = {TRAIN: canonical_merges, ENCODE: canonical_tokens, LENGTHS: canonical_lengths,
             COUNT: canonical_pair_counts, MERGE: canonical_words, TRADEOFF: canonical_tradeoff}


def canonical(role: str, value: object) -> object:
    form = CANONICAL.get(role)
    return form(value) if form is not None else NOT_COMPARABLE


def options(exercise: Exercise, role: str) -> dict[str, Any]:
    """The exercise's conventions as keyword arguments of a mistake of ``role`` (pairs are
    counted on words already segmented: no convention left to pass)."""
    if role in (COUNT, MERGE):
        return {}
    given: dict[str, Any] = {"end_of_word": exercise.conventions.end_of_word}
    if role in (TRAIN, TRADEOFF):
        given["tie_break"] = exercise.conventions.tie_break
    return given


_TRIVIAL_INPUTS = {TRAIN: ("corpus", "num_merges"), ENCODE: ("word",), LENGTHS: ("sentence",),
                   COUNT: ("words",), MERGE: ("pair", "words")}


def trivial(exercise: Exercise, role: str, inputs: Mapping[str, Any], value: Any) -> bool:
    """Whether a student's ``value`` on ``inputs`` is what do-nothing code also returns."""
    names = _TRIVIAL_INPUTS.get(role)
    form = canonical(role, value)
    if form is NOT_COMPARABLE:
        return True
    if role == TRADEOFF:
        return trivial_rows(exercise, inputs["corpus"], form)
    if names is None:
        return True
    return trivial_answer(exercise, role, tuple(inputs[name] for name in names), form)


def signals(role: str, observations: Any, options_given: Mapping[str, Any]) -> list:
    """Structural signals of wrong training answers that no mistake explains."""
    if role != TRAIN:
        return []
    merges = [Observation(o.inputs, actual=canonical_merges(o.actual)) for o in observations]
    return train_signals(merges, options_given)


def in_form(exercise: Exercise, role: str, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """A witness's inputs with its corpus in the exercise's corpus form."""
    given = dict(inputs)
    corpus = given.get("corpus")
    if corpus is None:
        return given
    counts = word_counts(corpus)
    if exercise.conventions.corpus_form == "word-counts":
        given["corpus"] = dict(counts)
    else:
        given["corpus"] = [" ".join(word for word, count in counts.items() for _ in range(count))]
    return given


def telling_crash(role: str, crash: str) -> bool:
    return role == TRAIN and crash_looks_like_no_pair_left(crash)


BOOK = MistakeBook(
    entries=CATALOGUE,
    reference={TRAIN: train_bpe, ENCODE: encode, LENGTHS: sequence_lengths, COUNT: count_pairs,
               MERGE: merge_pair, TRADEOFF: vocab_tradeoff},
    canonical=canonical,
    options=options,
    combinations=combinations,
    telling_crash=telling_crash,
    crash=(NoPairLeft,),
    trivial=trivial,
    signals=signals,
    in_form=in_form,
)
