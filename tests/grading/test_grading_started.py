"""A grading's wall-clock limit counts from the moment its caller says it began (for
``grade submit``: the process's start), not from when ``grade_submission`` is entered."""

from __future__ import annotations

import time
from pathlib import Path

from grader.grading.engine import grade_submission

REPOSITORY = Path(__file__).resolve().parents[2]
CORRECT = REPOSITORY / "examples" / "bpe-train-encode" / "student_correct.py"


def test_a_grading_that_began_past_its_limit_runs_no_check_and_says_so():
    long_ago = time.monotonic() - 10_000
    report = grade_submission(CORRECT, "bpe-train-encode", seed_secret="started",
                              helper=False, started=long_ago)
    assert report.score == 0
    assert report.milestones, "every milestone is still reported"
    checks = [check for milestone in report.milestones for check in milestone.checks]
    assert checks, "every check is still reported"
    for check in checks:
        assert check.score == 0 and not check.passed
        assert "time limit" in check.message, check.message

