"""What a WordPiece stub says: BPE's conventions with pairs ranked by score, and doctests.

``train_wordpiece``'s doctest is a public case's merge list; ``first_divergence``'s the step
and both pairs, or None.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from grader.families.api import Doctest, Exercise, StubText
from grader.families.bpe import stub as bpe_stub
from grader.families.bpe.prose import Tie, tie_paragraph
from grader.families.bpe.spec import BpeCase as Case
from grader.families.wordpiece.expected import reference_divergence, reference_wordpiece
from reference.wordpiece import wordpiece_steps

PYTHON_SCORE_RULES = {
    "lexicographic": "min(scores, key=lambda p: (-scores[p], p))",
    "reverse-lexicographic": "max(scores, key=lambda p: (scores[p], p))",
    "concatenated": "min(scores, key=lambda p: (-scores[p], p[0] + p[1], p))",
    "first-seen": "max(scores, key=scores.get) over pairs scored in corpus order",
}
"""The tie rules in Python over exact scores (``scores``: pair -> Fraction)."""


def wordpiece_ties(corpus: Any, limit: int, rule: str, end_of_word: str) -> Iterator[Tie]:
    """WordPiece's steps: pairs tie on their exact score."""
    for step in wordpiece_steps(corpus, limit, tie_break=rule, end_of_word=end_of_word):
        tied = [pair for pair, score in step.scores.items() if score == step.score]
        yield Tie(step.number, tied, f"score {step.score}", step.pair)


def stub_text(exercise: Exercise) -> StubText:
    rule = exercise.conventions.tie_break
    ties = tie_paragraph(exercise, wordpiece_ties, "score",
                         python=PYTHON_SCORE_RULES.get(rule))
    return bpe_stub.stub_text(exercise, ranked_by="score (WordPiece) or count (BPE)", ties=ties)


def train_examples(exercise: Exercise, name: str, case: Case, doctest: Doctest) -> list[str]:
    merges = reference_wordpiece(exercise, case)
    return [doctest.statement("corpus", case.corpus)
            + doctest.call(f"{name}(corpus, {case.num_merges})", merges)]


def divergence_examples(exercise: Exercise, name: str, case: Case, doctest: Doctest) -> list[str]:
    found = reference_divergence(exercise, case)
    text = doctest.statement("corpus", case.corpus)
    if found is None:
        return [text + f"\n>>> print({name}(corpus, {case.num_merges}))\nNone"]
    return [text + doctest.call(f"{name}(corpus, {case.num_merges})", found)]
