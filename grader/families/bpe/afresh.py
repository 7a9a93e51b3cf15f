"""The reference's answers on a role's arguments, computed afresh (nothing remembered), for
the roles' ``reference`` hook: how much CPU time the reference needs on an input."""

from __future__ import annotations

from typing import Any

from grader.families.api import Exercise
from reference import train_bpe
from reference.plain import count_pairs
from reference.vocab_tradeoff import vocab_tradeoff


def train(exercise: Exercise, args: Any) -> Any:
    corpus, num_merges = args
    conventions = exercise.conventions
    return train_bpe(corpus, num_merges, tie_break=conventions.tie_break,
                     end_of_word=conventions.end_of_word)


def pairs(exercise: Exercise, args: Any) -> Any:
    (words,) = args
    return count_pairs(words)


def tradeoff(exercise: Exercise, args: Any) -> Any:
    documents, sizes, d_model = args
    conventions = exercise.conventions
    return vocab_tradeoff(list(documents), list(sizes), d_model, tie_break=conventions.tie_break,
                          end_of_word=conventions.end_of_word)
