"""Whether a submission could be graded at all, as PrairieLearn's ``gradable`` flag needs.

A submission that does not import, or lacks a function the exercise requires, is not
worth an attempt on platforms that distinguish "invalid" from "wrong". The engine signals
it in either of two ways (the first is preferred once ``GradeReport`` has the field):

- ``report.gradable is False`` — every entry of ``report.errors`` is then a format error;
- an entry of ``report.errors`` that starts with :data:`NOT_GRADABLE_PREFIX`
  (``"Not gradable: "``), e.g. ``"Not gradable: student.py line 3: invalid syntax"``.

Human formats show such errors without the prefix.
"""

from __future__ import annotations

from grader.result import GradeReport

NOT_GRADABLE_PREFIX = "Not gradable: "


def display_error(error: str) -> str:
    """The error as a student should read it (without the machine marker)."""
    return error[len(NOT_GRADABLE_PREFIX):] if error.startswith(NOT_GRADABLE_PREFIX) else error


def format_errors(report: GradeReport) -> list[str]:
    """The reasons the submission cannot be graded; empty when it can be."""
    marked = [display_error(e) for e in report.errors if e.startswith(NOT_GRADABLE_PREFIX)]
    if getattr(report, "gradable", True) is False and not marked:
        return [display_error(e) for e in report.errors] or ["The submission could not be graded."]
    return marked


def is_gradable(report: GradeReport) -> bool:
    return not format_errors(report)
