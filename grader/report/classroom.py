"""GitHub Classroom's grader-runner result, as ``autograding-grading-reporter`` reads it.

A grading step puts this JSON, base64-encoded, in a step output; the reporter action
sums each test's ``score`` against ``max_score`` and posts the total to Classroom. Shape
(from the classroom-resources grader actions)::

    {"version": 1, "status": "pass" | "fail" | "error", "max_score": 100,
     "tests": [{"name": ..., "status": "pass" | "fail" | "error", "score": 10,
                "message": ..., "test_code": "", "filename": "", "line_no": 0}]}

``status`` is ``error`` when the submission could not be graded at all. Points are rounded to
two decimals, the checks' by largest remainder so that they add up to the rounded total. The
reporter records the sum of the tests' scores, added one by one in floating point
(``totalScore += score``); where that sum would come out as ``99.99999999999999``, the last
non-zero score is nudged by the difference (far below a millionth of a point) so that what
is recorded is exactly the rounded total. The workflow a
student template repository needs is rendered from ``templates/classroom/classroom.yml.j2``
by :func:`render_workflow`.
"""

from __future__ import annotations

import functools
import json
import math
import operator
from typing import Any

from grader.report.feedback import check_feedback
from grader.report.options import ReportOptions
from grader.report.safety import safe_text
from grader.result import CheckResult, GradeReport, MilestoneResult, display_error

MESSAGE_LIMIT = 8_000
NOTE_TEST_NAME = "About your submission"  # the job log (templates/lms/entrypoint.py) shows it as a note


def render_classroom(report: GradeReport, options: ReportOptions) -> str:
    return json.dumps(classroom_result(report), indent=2, ensure_ascii=False) + "\n"


def classroom_result(report: GradeReport) -> dict[str, Any]:
    pairs = [(milestone, check) for milestone in report.milestones for check in milestone.checks]
    scores = rounded_scores([check.score for _, check in pairs], report.score)
    tests = [note_test(note) for note in report.notes]
    tests += [classroom_test(milestone, check, score) for (milestone, check), score in zip(pairs, scores)]
    tests += [error_test(error) for error in report.errors]
    return {
        "version": 1,
        "status": overall_status(report),
        "max_score": round(report.max_score, 2),
        "tests": tests,
    }


def rounded_scores(scores: list[float], total: float) -> list[float]:
    """``scores`` in hundredths, adjusted by largest remainder to add up to ``total`` rounded."""
    cents = [score * 100 for score in scores]
    floors = [int(c // 1) for c in cents]
    target = int(round(total * 100))
    order = sorted((i for i in range(len(cents)) if cents[i] - floors[i] > 1e-9),
                   key=lambda i: cents[i] - floors[i], reverse=True)
    missing = target - sum(floors)
    for index in order[:max(0, missing)]:
        floors[index] += 1
    rounded = [value / 100 if value % 100 else value // 100 for value in floors]
    return exact_for_reporter(rounded, target / 100 if target % 100 else target // 100)


def reporter_sum(scores: list[float]) -> float:
    """The sum as the reporter computes it: left to right in floating point, from 0."""
    return functools.reduce(operator.add, scores, 0)


def exact_for_reporter(scores: list[float], total: float) -> list[float]:
    """``scores`` with the last non-zero one replaced by the nearest value (in practice a
    difference far below 0.000001 points) that makes :func:`reporter_sum` exactly ``total``;
    when rounding makes that impossible, an earlier score moves by a few floating-point steps
    first. Unchanged when nothing is found."""
    if reporter_sum(scores) == total:
        return list(scores)
    nonzero = [index for index, score in enumerate(scores) if score]
    if not nonzero:
        return list(scores)
    found = _fix_last(scores, nonzero[-1], total)
    for earlier in nonzero[-2:-5:-1]:
        for direction in (math.inf, -math.inf):
            trial = list(scores)
            for _ in range(4):
                if found is not None:
                    return found
                trial[earlier] = math.nextafter(trial[earlier], direction)
                found = _fix_last(trial, nonzero[-1], total)
    return found if found is not None else list(scores)


def _fix_last(scores: list[float], last: int, total: float) -> list[float] | None:
    before = reporter_sum(scores[:last])
    candidate = total - before
    for direction in (math.inf, -math.inf):
        value = candidate
        for _ in range(64):
            if value >= 0 and before + value == total:
                return [*scores[:last], value, *scores[last + 1:]]
            value = math.nextafter(value, direction)
    return None


def overall_status(report: GradeReport) -> str:
    if not report.gradable:
        return "error"
    all_passed = all(check.passed for check in report.checks) and not report.errors
    return "pass" if all_passed else "fail"


def classroom_test(milestone: MilestoneResult, check: CheckResult, score: float) -> dict[str, Any]:
    return {
        "name": safe_text(f"{milestone.title}: {check.title or check.id}", 300),
        "status": "pass" if check.passed else "fail",
        "score": score,
        "message": safe_text("\n".join(check_feedback(check, include_measurements=False)), MESSAGE_LIMIT),
        "test_code": "",
        "filename": "",
        "line_no": 0,
    }


def note_test(note: str) -> dict[str, Any]:
    """How the submission was read and run, listed first so the reporter prints it; it
    carries no points and fails nothing."""
    return {
        "name": NOTE_TEST_NAME,
        "status": "pass",
        "score": 0,
        "message": safe_text(note, MESSAGE_LIMIT),
        "test_code": "",
        "filename": "",
        "line_no": 0,
    }


def error_test(error: str) -> dict[str, Any]:
    """A submission-level problem, listed so the reporter prints it; it carries no points."""
    return {
        "name": "Submission",
        "status": "error",
        "score": 0,
        "message": safe_text(display_error(error), MESSAGE_LIMIT),
        "test_code": "",
        "filename": "",
        "line_no": 0,
    }
