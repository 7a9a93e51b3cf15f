"""Follow-through for hand work: later answers judged on the student's own first merge.

A student who merges the wrong pair first and then carries on correctly has done every later
step right, on their own corpus state. :func:`run_from` recomputes the variant's run as if
the first merge had been the student's (a real pair of the corpus), the exercise's rule
deciding every merge after it; an answer that is right for that run earns its part, with a
note that it follows from the first merge, which the first milestone charges.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from grader.families.hand.variants import Variant, decided_tie
from grader.families.api import Exercise
from reference.corpus import word_counts
from reference.plain import Step, count_pairs, initial_segmentation, merge_words
from reference.tie_breaks import best_pair, order_tied

Pair = tuple[str, str]


def run_from(exercise: Exercise, variant: Variant, first: Pair) -> Optional[Variant]:
    """``variant`` with ``first`` as its first merge and the rule after it, or None when
    ``first`` is the rule's own first merge or no pair of the corpus."""
    rule = exercise.conventions.tie_break
    words = initial_segmentation(word_counts(variant.corpus), exercise.conventions.end_of_word)
    if first == variant.steps[0].pair or first not in count_pairs(words):
        return None
    steps: list[Step] = []
    for number in range(1, variant.num_merges + 1):
        counts = count_pairs(words)
        if not counts:
            break
        pair = first if number == 1 else best_pair(counts, rule)
        tied = order_tied([p for p, c in counts.items() if c == counts[pair]], rule)
        words = merge_words(words, pair)
        steps.append(Step(number, counts, counts[pair], tied, pair, words))
    tie_step = next((step.number for step in steps[1:] if decided_tie(step, rule)), None)
    if len(steps) < max(variant.pair_counts_step, 1):
        return None
    return replace(variant, steps=tuple(steps), tie_step=tie_step or 0)
