"""The expected answers of one variant of an answers exercise, computed with the reference.

Every answer is in the form the answers file uses: a pair is the string ``"a b"`` (its two
symbols separated by one space), tokens are lists of strings, the vocabulary is a list of
tokens in any order. The questions (ids of ``QUESTIONS`` in the spec model):

- ``first-merge``: the first merged pair and its count;
- ``pair-counts``: every adjacent pair and its count just before merge ``pair_counts_step``;
- ``vocabulary``: every token after ``num_merges`` merges: the characters, the marker and
  each merged token;
- ``tokens``: each variant word tokenized with the ``num_merges`` learned merges;
- ``tie``: the first step where pairs tie for the top count, the tied pairs, the pair the
  rule merges, and the rule's name.
"""

from __future__ import annotations

from typing import Any

from grader.families.api import Exercise
from grader.families.hand.variants import Variant
from reference import encode
from reference.corpus import segment

Pair = tuple[str, str]


def pair_text(pair: Pair) -> str:
    return f"{pair[0]} {pair[1]}"


def base_symbols(variant: Variant, end_of_word: str) -> list[str]:
    """The characters of the corpus and the marker, sorted."""
    symbols = {symbol for word in variant.corpus for symbol in segment(word, end_of_word)}
    return sorted(symbols)


def expected_answers(exercise: Exercise, variant: Variant) -> dict[str, Any]:
    """Question id -> the expected answer for ``variant``."""
    marker = exercise.conventions.end_of_word
    steps = variant.steps
    first = steps[0]
    counting = steps[variant.pair_counts_step - 1]
    tie = steps[variant.tie_step - 1]
    return {
        "first-merge": {"pair": pair_text(first.pair), "count": first.pair_counts[first.pair]},
        "pair-counts": {pair_text(pair): count for pair, count in counting.pair_counts.items()},
        "vocabulary": base_symbols(variant, marker) + [step.token for step in steps],
        "tokens": {word: encode(word, variant.merges, end_of_word=marker) for word in variant.words},
        "tie": {
            "step": tie.number,
            "tied": [pair_text(pair) for pair in tie.tied],
            "chosen": pair_text(tie.pair),
            "rule": exercise.conventions.tie_break,
        },
    }
