"""WordPiece training step by step: the merge runs of :mod:`grader.families.bpe.steps`,
each pair valued by its score ``count(ab) / (count(a) * count(b))``, written as an exact
fraction with the counts it comes from (``3/(3*3)=1/3``)."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from grader.families.bpe.steps import MergeRule, character_words, merge_steps
from grader.families.wordpiece.feedback import score_text
from reference.plain import count_pairs
from reference.tie_breaks import DESCRIPTIONS, order_tied
from reference.wordpiece import symbol_counts, train_wordpiece, wordpiece_scores


def _score(pair: tuple, scores: dict, words: dict) -> str:
    symbols = symbol_counts(words)
    return score_text(scores[pair], count_pairs(words)[pair], symbols[pair[0]], symbols[pair[1]])


def scoring_rule(tie_break: str) -> MergeRule:
    return MergeRule(values=wordpiece_scores, tied=lambda pairs: order_tied(pairs, tie_break),
                     symbol=str, value_text=_score, value_name="score",
                     rule=tie_break, rule_text=DESCRIPTIONS[tie_break])


def training_steps(exercise: Any, corpus: Any, reference: Sequence, student: Optional[Sequence]) -> dict[str, Any]:
    conventions = exercise.conventions
    return merge_steps(character_words(corpus, conventions.end_of_word), reference, student,
                       scoring_rule(conventions.tie_break), title="WordPiece training, merge by merge")


def trace(exercise: Any, corpus: Any, num_merges: int) -> dict[str, Any]:
    """``grade trace --html``: the reference's run alone on any corpus."""
    conventions = exercise.conventions
    merges = train_wordpiece(corpus, num_merges, tie_break=conventions.tie_break,
                             end_of_word=conventions.end_of_word)
    return training_steps(exercise, corpus, merges, None)
