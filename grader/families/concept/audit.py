"""The audit of a concept sheet: right sheets score full marks, the untouched sheet nothing,
and each known wrong answer fails its own item's milestone and no other.

Every student's order differs, so the audit grades several sheets (fixed audit student ids
under the given secret). A mistake is *caught* when, on every sheet, the milestone asking its
item fails and the others pass; it is *named* when a failing part's diagnosis names it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Optional

import yaml

from grader.families.concept.answers import expected_answers
from grader.families.concept.mistakes import catalogue
from grader.families.concept.sheet import render_sheet
from grader.families.concept.spec import ConceptExercise
from grader.families.concept.variants import draw_sheet
from grader.families.api import (
    AUDIT_STUDENTS,
    AuditReport,
    GradeReport,
    MistakeAudit,
    chosen_mistakes,
    course_secret,
    grade_submission,
    judge_answers_mistake,
    points_earned,
    reference_audit,
)

ROLE = "answers"
ADVICE = "an item whose options or known answers show it"


def sheet_text(exercise: ConceptExercise, student: str, answers: dict[str, Any]) -> str:
    """An answers file holding ``answers`` (item id -> answer) for ``student``."""
    data: dict[str, Any] = {"student": student}
    data.update({exercise.item(item_id).key: answer for item_id, answer in answers.items()})
    return f"# exercise: {exercise.id}\n" + yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


def run_concept_audit(exercise: ConceptExercise, *, mistake_ids: Optional[list[str]] = None,
                      secret: Optional[str] = None,
                      students: tuple[str, ...] = AUDIT_STUDENTS[:4]) -> AuditReport:
    secret = course_secret(secret)
    mistakes = chosen_mistakes(exercise, catalogue(exercise), mistake_ids)
    milestone_of = {item_id: m.id for m in exercise.milestones for item_id in m.items}
    audits = {m.id: MistakeAudit(id=m.id, title=m.title, role=ROLE,
                                 affected=[milestone_of[m.item]], advice=ADVICE) for m in mistakes}
    missed: dict[str, set[str]] = {m.id: set() for m in mistakes}
    unexpected: dict[str, list[str]] = {}
    references: list[GradeReport] = []
    reports: dict[str, GradeReport] = {}
    with tempfile.TemporaryDirectory(prefix="grade-audit-") as directory:
        folder = Path(directory)
        for student in students:
            sheet = draw_sheet(exercise, student, secret)
            right = expected_answers(exercise, sheet)
            references.append(_grade(exercise, folder, f"{student}-correct",
                                     sheet_text(exercise, student, right), secret))
            for mistake in mistakes:
                answers = {**right, mistake.item: mistake.answer(sheet)}
                report = _grade(exercise, folder, f"{student}-{len(reports)}",
                                sheet_text(exercise, student, answers), secret)
                reports.setdefault(mistake.id, report)
                judge_answers_mistake(audits[mistake.id], missed[mistake.id], unexpected,
                                      set(audits[mistake.id].affected), report)
        untouched = _grade(exercise, folder, "untouched", render_sheet(
            exercise, draw_sheet(exercise, students[0], secret)), secret)
    for mistake_id, audit in audits.items():
        audit.failed = [m for m in audit.affected if m not in missed[mistake_id]]
    return AuditReport(exercise=exercise.id, reference=reference_audit(references),
                       mistakes=list(audits.values()), unexpected=unexpected,
                       reports={"reference": references[0], **reports,
                                "do-nothing-untouched": untouched},
                       do_nothing={"untouched": points_earned(untouched)})


def _grade(exercise: ConceptExercise, folder: Path, name: str, text: str,
           secret: str) -> GradeReport:
    path = folder / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return grade_submission(path, exercise, seed_secret=secret, helper=False)
