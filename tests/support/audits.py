"""Each shipped exercise's audit, run once per test process and read by every test that needs
one of its gradings: the correct sample of ``examples/``, every catalogued mistake and every
do-nothing submission, graded for real (``grader.grading.audit.run_audit``).

A test reading the audit of an exercise takes its parameters from :func:`in_audit_group` (or
carries ``pytest.mark.xdist_group(audit_group(ID))``), so under ``--dist loadgroup`` it runs in
the one test process that holds that audit, whichever module it lives in.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from grader.grading.audit import run_audit
from grader.spec import load_exercise
from grader.spec.hooks import AuditReport

ROOT = Path(__file__).resolve().parents[2]


def sample(exercise_id: str, kind: str) -> Path:
    """The sample ``student_KIND.py`` of exercise ``exercise_id`` under ``examples/``."""
    return ROOT / "examples" / exercise_id / f"student_{kind}.py"


@functools.cache
def audit_of(exercise_id: str) -> AuditReport:
    """The exercise audited once per test process; the correct sample of examples/ stands as
    the reference. Its gradings run one after the other in this process (the suite's workers
    already keep the cores busy), so they share what a process keeps: the inputs and reference
    values computed once, Hypothesis's searches replayed (``grader.grading.search_replay``)."""
    return run_audit(load_exercise(exercise_id), reference_submission=sample(exercise_id, "correct"),
                     jobs=1)


def audit_group(exercise_id: str) -> str:
    return f"audit-{exercise_id}"


def in_audit_group(cases) -> list:
    """Parameters (tuples whose first item is an exercise id) whose tests run in the test
    process holding that exercise's audit."""
    return [pytest.param(*case, marks=pytest.mark.xdist_group(audit_group(case[0])))
            for case in cases]


def audited(exercise_id: str, submission: str):
    """One grading of the audit: ``"reference"`` (the correct sample, on the whole exercise),
    ``"do-nothing-KIND"`` (on the whole exercise) or a mistake's id (its student-style file,
    ``grader.grading.audit.write_student``, graded without the efficiency milestone,
    ``exercise_without_efficiency``), all under the suite's seed secret."""
    return audit_of(exercise_id).reports[submission]
