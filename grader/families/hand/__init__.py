"""The hand exercises: BPE run by hand on each student's own corpus, answers in a YAML file.

No code runs: the family's submission is a data file read in the trusted process
(``submission``, ``answer_file``), graded by the same engine as code through the family's own
``answers`` check (``judges``). Its folder holds the spec model and rules (``spec``,
``rules``), how each student's variant is drawn (``variants``) and a roster's assigned
(``assignment``), the right answers
(``expected``), the student's answers sheet (``sheet``, ``answers.yaml.j2``), its mistakes
(``mistakes``) and its audit (``audit``). It builds on the bpe family's conventions.
"""

from __future__ import annotations

from typing import Optional

from grader.families.bpe import prose
from grader.families.hand import audit, judges, rules
from grader.families.hand.assignment import assign_variants, variant_check
from grader.families.hand.mistakes import diagnostic_variant
from grader.families.hand.sheet import render_answer_sheet
from grader.families.hand.spec import HandExercise
from grader.families.hand.submission import ANSWERS_FILE
from grader.families.api import (
    CheckKind,
    Exercise,
    Family,
    StubNeedsStudent,
    Verification,
    course_secret,
)


def answer_sheet(exercise: Exercise, student: Optional[str], secret: Optional[str]) -> str:
    """The answers file of ``student``, their variant drawn with the course secret."""
    if not student:
        raise StubNeedsStudent(f"{exercise.id} gives each student their own corpus: pass --student ID")
    secret = course_secret(secret)
    variant = diagnostic_variant(exercise, student, secret)
    return render_answer_sheet(exercise, variant, variant_check(exercise, secret, variant))


def roster_sheets(exercise: Exercise, students: list[str], secret: Optional[str]) -> dict[str, str]:
    """The answers files of a roster, their variants assigned so that classmates share no
    first merge, tie or vocabulary where the exercise has enough distinct ones (``assignment``)."""
    secret = course_secret(secret)
    variants = assign_variants(exercise, students, secret)
    return {student: render_answer_sheet(exercise, variant, variant_check(exercise, secret, variant))
            for student, variant in variants.items()}


def verify(exercise: Exercise) -> Verification:
    return Verification(summary=("an answers file; each student's variant is drawn from its "
                                 "answers settings and graded against the reference"))


FAMILY = Family(
    name="hand",
    summary="BPE by hand: answers about each student's own corpus, in a YAML file",
    roles=(),
    exercise=HandExercise,
    builds_on=("bpe",),
    kind="answers",
    spec_problems=rules.spec_problems,
    prose_problems=prose.prose_problems,
    verify=verify,
    stub=answer_sheet,
    roster_stubs=roster_sheets,
    submission=ANSWERS_FILE,
    check_kinds={judges.CHECK_ID: CheckKind(judges.TITLE, judges.run)},
    audit=audit.run_answers_audit,
)
