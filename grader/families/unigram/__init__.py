"""Unigram language-model tokenization with SentencePiece's conventions (Kudo 2018).

Students write the four steps of a Unigram model over pieces with log-probabilities: the
Viterbi best segmentation (``segment``), the likelihood over every segmentation
(``log_likelihood``, the forward algorithm), one EM iteration (``em_step``, forward-backward
expected counts) and pruning (``prune``). The reference is :mod:`reference.unigram`, whose
segmentation equals SentencePiece's own on held-out text. The folder holds the spec model
(``spec``) and its rules (``rules``), what ``grade check`` verifies (``verify``), expected values and comparison within tolerance
(``expected``), answer shapes (``shapes``), the stub (``stub``), the cases' judges and the
generated inputs' records (``judges``, ``generated``) with their feedback (``feedback``),
properties (``properties``), do-nothing submissions (``do_nothing``), the mistakes
(``mistakes``, with those of published code in ``real_code``), the student-style
submissions that make them (``students``), and a segmentation step by step on its lattice
(``steps``).
"""

from grader.families.unigram import mistakes
from grader.families.unigram.roles import ROLES
from grader.families.unigram.spec import UnigramExercise
from grader.families.api import Family, Students, deferred

HERE = __name__

FAMILY = Family(
    name="unigram",
    summary="a Unigram language model: Viterbi segmentation, likelihood, EM and pruning",
    roles=ROLES,
    exercise=UnigramExercise,
    spec_problems=deferred(f"{HERE}.rules", "spec_problems"),
    verify=deferred(f"{HERE}.verify", "verify"),
    conventions=deferred(f"{HERE}.stub", "stub_text"),
    mistakes=mistakes.BOOK,
    students=Students(applicable=deferred(f"{HERE}.students", "applicable_mistakes"),
                      source=deferred(f"{HERE}.students", "student_source"),
                      combined=deferred(f"{HERE}.students", "combined_mistakes"),
                      combination=deferred(f"{HERE}.mistakes", "combination_by_id")),
    do_nothing=deferred(f"{HERE}.do_nothing", "sources"),
    placeholder_case=deferred(f"{HERE}.rules", "placeholder_case"),
    trace=deferred(f"{HERE}.steps", "trace"),
)
"""The authoring, checking and audit helpers are named, not imported (as in the bpe family)."""
