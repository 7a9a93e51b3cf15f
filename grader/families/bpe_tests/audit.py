"""The audit of a test-writing exercise: known test files, each graded as a student's.

- ``thorough`` (the correct submission): tests that catch every catalogued mistake; full marks.
- ``tie-blind``: careful tests on corpora without a tie; the milestone grading the ties group
  must fail, and its feedback must say that a trainer breaking ties by the pair met first
  passes them, and what to add.
- ``fails-on-reference``: a test expecting the wrong tokens; the milestone grading the tests
  must fail and show what the correct BPE returns.
- do-nothing files, none of which may earn a point: ``no-tests`` (the import alone),
  ``assert-true`` (tests that assert nothing, run without checking, or catch every exception).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from grader.families.api import (
    AuditReport,
    Exercise,
    GradeReport,
    MistakeAudit,
    chosen_mistakes,
    grade_submission,
    jinja_environment,
    points_earned,
    reference_audit,
)

ROLE = "tests"
HERE = Path(__file__).parent


def suite_text(exercise: Exercise, name: str) -> str:
    """An audit suite's source for ``exercise`` (its id and served module filled in)."""
    template = (HERE / f"suite_{name.replace('-', '_')}.py.j2").read_text(encoding="utf-8")
    environment = jinja_environment()
    return environment.from_string(template).render(exercise=exercise.id,
                                                    module=exercise.tests.module) + "\n"


def _milestone_of(exercise: Exercise, check: str, group: Optional[str] = None) -> Optional[str]:
    return next((m.id for m in exercise.milestones
                 if any(c.kind == check for c in m.checks)
                 and (group is None or group in m.groups)), None)


@dataclass(frozen=True)
class BadSuite:
    """A known flawed suite: the milestone it must fail, and what that failure must say."""

    id: str
    title: str
    milestone: Callable[[Exercise], Optional[str]]
    says: str
    """Words a failing check of that milestone must carry."""


BAD_SUITES = (
    BadSuite("tie-blind", "Tests without a tie corpus",
             lambda exercise: _milestone_of(exercise, "catches", "ties"),
             "passes all your tests: add a test with a corpus where several pairs tie for the "
             "highest count"),
    BadSuite("fails-on-reference", "A test that fails on the correct BPE",
             lambda exercise: _milestone_of(exercise, "valid"),
             "the correct BPE returns ['low', 'e', 'r', '</w>']"),
)
DO_NOTHING = ("no-tests", "assert-true")


def run_tests_audit(exercise: Exercise, *, mistake_ids: Optional[list[str]] = None,
                    secret: Optional[str] = None) -> AuditReport:
    suites = chosen_mistakes(exercise, list(BAD_SUITES), mistake_ids)
    audits: list[MistakeAudit] = []
    reports: dict[str, GradeReport] = {}
    with tempfile.TemporaryDirectory(prefix="grade-audit-") as directory:
        def grade(name: str) -> GradeReport:
            path = Path(directory) / f"test_{name.replace('-', '_')}.py"
            path.write_text(suite_text(exercise, name), encoding="utf-8")
            reports[name] = grade_submission(path, exercise, seed_secret=secret, helper=False)
            return reports[name]

        reference = grade("thorough")
        for suite in suites:
            audits.append(_judged(suite, exercise, grade(suite.id)))
        do_nothing = {name: points_earned(grade(name)) for name in DO_NOTHING}
    reports["reference"] = reports.pop("thorough")
    return AuditReport(exercise=exercise.id, reference=reference_audit([reference]),
                       mistakes=audits, reports=reports, do_nothing=do_nothing)


def _judged(suite: BadSuite, exercise: Exercise, report: GradeReport) -> MistakeAudit:
    milestone_id = suite.milestone(exercise)
    audit = MistakeAudit(id=suite.id, title=suite.title, role=ROLE,
                         affected=[milestone_id] if milestone_id else [],
                         advice="a milestone grading it")
    if milestone_id is None:
        audit.error = "no milestone of the exercise grades what this suite gets wrong"
        return audit
    milestone = next(m for m in report.milestones if m.id == milestone_id)
    failing = [check for check in milestone.checks if not check.passed]
    if failing:
        audit.failed = [milestone_id]
        audit.catching_checks[milestone_id] = [check.id for check in failing]
        audit.named_in = [check.id for check in failing if suite.says in check.message]
        if not audit.named_in:
            audit.error = f"its failing checks do not say {suite.says!r}"
    return audit
