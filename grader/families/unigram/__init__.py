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
(``mistakes``) and the student-style submissions that make them (``students``).
"""

from grader.families.unigram import do_nothing, mistakes, rules, students, stub, verify
from grader.families.unigram.roles import ROLES
from grader.families.unigram.spec import UnigramExercise
from grader.mistakes.kinds import Students
from grader.spec import Family

FAMILY = Family(
    name="unigram",
    summary="a Unigram language model: Viterbi segmentation, likelihood, EM and pruning",
    roles=ROLES,
    exercise=UnigramExercise,
    spec_problems=rules.spec_problems,
    verify=verify.verify,
    conventions=stub.stub_text,
    mistakes=mistakes.BOOK,
    students=Students(applicable=students.applicable_mistakes, source=students.student_source),
    do_nothing=do_nothing.sources,
    placeholder_case=rules.placeholder_case,
)
