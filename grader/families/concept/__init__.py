"""Concept checks: the lesson's quiz items, answered in a YAML file, options shuffled per student.

No code runs: like the hand exercises (which this family builds on for reading answers files
safely and seeding per-student draws), the submission is a data file read in the trusted
process (``submission``). Its folder holds the spec model and rules (``spec``, ``rules``),
each student's order of options (``variants``), the right answers and how written answers are
read (``answers``), the sheet (``sheet``, ``sheet.yaml.j2``), the ``answers`` check
(``judges``), the known wrong answers (``mistakes``) and the audit (``audit``).
"""

from __future__ import annotations

from typing import Optional

from grader.families.concept import audit, judges, rules
from grader.families.concept.sheet import render_sheet
from grader.families.concept.spec import ConceptExercise
from grader.families.concept.submission import SHEET_FILE
from grader.families.concept.variants import draw_sheet
from grader.families.api import (
    CheckKind,
    Exercise,
    Family,
    StubNeedsStudent,
    Verification,
    course_secret,
)


def answer_sheet(exercise: Exercise, student: Optional[str], secret: Optional[str]) -> str:
    """The answers file of ``student``, their order drawn with the course secret."""
    if not student:
        raise StubNeedsStudent(f"{exercise.id} shows each student the options in an order of "
                               "their own: pass --student ID")
    return render_sheet(exercise, draw_sheet(exercise, student, course_secret(secret)))


def verify(exercise: Exercise) -> Verification:
    return Verification(summary=(f"an answers file of {len(exercise.items)} concept items; each "
                                 "student's options are shuffled and graded against the spec's answers"))


FAMILY = Family(
    name="concept",
    summary="concept checks: choice, rule-out, match, short-answer and table items, in a YAML file",
    roles=(),
    exercise=ConceptExercise,
    builds_on=(),
    kind="concept",
    spec_problems=rules.spec_problems,
    verify=verify,
    stub=answer_sheet,
    submission=SHEET_FILE,
    check_kinds={judges.CHECK_ID: CheckKind(judges.TITLE, judges.run)},
    audit=audit.run_concept_audit,
)
