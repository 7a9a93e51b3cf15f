"""Test-writing exercises: students hand in tests of character BPE, graded by the known
mistakes their tests catch.

The submission is a Python file of ``test_*`` functions that import ``train_bpe`` and
``encode`` from a module the grader serves (``submission``): the file runs only in the
sandbox, and each call of those functions is answered on the grader's side by one
implementation (``implementations``): the reference, a do-nothing one, or one of the character
BPE family's catalogued mistakes, in groups (``groups``). Its folder also holds how the file
is read (``test_file``), a run's outcome (``outcomes``), running a test (``runner``), the
verdicts (``verdicts``), what the student reads (``feedback``), the two check kinds
(``judges``), the spec model and rules (``spec``, ``rules``), the stub (``stub``) and the audit
with its known suites (``audit``, ``suite_*.py.j2``). It builds on the bpe family's catalogue.
"""

from __future__ import annotations

from grader.families.api import CheckKind, Exercise, Family, Verification
from grader.families.bpe_tests import audit, judges, rules
from grader.families.bpe_tests.groups import GROUPS
from grader.families.bpe_tests.spec import BpeTestsExercise
from grader.families.bpe_tests.stub import test_stub
from grader.families.bpe_tests.submission import TEST_FILE


def verify(exercise: Exercise) -> Verification:
    graded = [group for milestone in exercise.milestones for group in milestone.groups]
    mistakes = sum(len(group.mistakes) for group in GROUPS if group.id in graded)
    return Verification(summary=(f"a test file graded on {mistakes} catalogued mistakes in "
                                 f"{len(graded)} groups"))


FAMILY = Family(
    name="bpe_tests",
    summary="tests of character BPE, graded by the catalogued mistakes they catch",
    roles=(),
    exercise=BpeTestsExercise,
    builds_on=("bpe",),
    kind="tests",
    spec_problems=rules.spec_problems,
    verify=verify,
    stub=test_stub,
    submission=TEST_FILE,
    check_kinds={judges.VALID: CheckKind(judges.VALID_TITLE, judges.run_valid),
                 judges.CATCHES: CheckKind(judges.CATCHES_TITLE, judges.run_catches)},
    audit=audit.run_tests_audit,
)
