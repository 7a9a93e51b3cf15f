"""What a WordPiece stub says: BPE's conventions with pairs ranked by score, and doctests.

``train_wordpiece``'s doctest is a public case's merge list; ``first_divergence``'s the step
and both pairs, or None.
"""

from __future__ import annotations

from grader.families.bpe import stub as bpe_stub
from grader.families.bpe.spec import BpeCase as Case
from grader.families.wordpiece.expected import reference_divergence, reference_wordpiece
from grader.families.api import Doctest, Exercise, StubText


def stub_text(exercise: Exercise) -> StubText:
    return bpe_stub.stub_text(exercise, ranked_by="score (WordPiece) or count (BPE)")


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
