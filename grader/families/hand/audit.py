"""The audit of an answers exercise: do its checks catch every known hand-exercise mistake?

Each student's variant differs, so the audit grades several variants (fixed audit student
ids under the given secret). For each variant it writes the correct answers file, which must
score full marks, and one file per known mistake (:mod:`grader.families.hand.mistakes`). A
mistake *affects* a milestone in a variant when its answer to one of the milestone's questions
differs from the reference's there and does not follow from the mistake's own first merge
(follow-through earns those answers their part); it is *caught* when, in every variant,
each milestone it affects fails and the others pass. A mistake that changes no answer in any audited variant is
a gap: the variants never expose it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Optional

import yaml

from grader.families.hand.expected import expected_answers
from grader.families.hand.judges import FILE_KEYS, answer_passes, own_run
from grader.families.api import (
    AUDIT_STUDENTS,
    AuditReport,
    Exercise,
    GradeReport,
    MistakeAudit,
    chosen_mistakes,
    course_secret,
    grade_submission,
    judge_answers_mistake,
    reference_audit,
)
from grader.families.hand.mistakes import applicable, diagnostic_variant, same_answer

ROLE = "answers"
"""What the audit's lines say a hand mistake is of (the file, not a function)."""
ADVICE = "a variant setting (word_pool, max_count, num_merges) that shows it"


def sheet_text(exercise: Exercise, student: str, answers: dict[str, Any]) -> str:
    """An answers file holding ``answers`` (question id -> answer) for ``student``."""
    data: dict[str, Any] = {"student": student}
    data.update({FILE_KEYS[question]: answer for question, answer in answers.items()})
    return f"# exercise: {exercise.id}\n" + yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


def run_answers_audit(exercise: Exercise, *, mistake_ids: Optional[list[str]] = None,
                      secret: Optional[str] = None,
                      students: tuple[str, ...] = AUDIT_STUDENTS) -> AuditReport:
    secret = course_secret(secret)
    mistakes = chosen_mistakes(exercise, applicable(exercise), mistake_ids)
    milestone_of = {q: m.id for m in exercise.milestones for q in m.questions}
    audits = {m.id: MistakeAudit(id=m.id, title=m.title, role=ROLE, affected=[], advice=ADVICE)
              for m in mistakes}
    missed: dict[str, set[str]] = {m.id: set() for m in mistakes}
    unexpected: dict[str, list[str]] = {}
    references: list[GradeReport] = []
    reports: dict[str, GradeReport] = {}
    with tempfile.TemporaryDirectory(prefix="grade-audit-") as directory:
        for student in students:
            variant = diagnostic_variant(exercise, student, secret)
            expected = expected_answers(exercise, variant)
            references.append(_grade(exercise, Path(directory), student, "correct", expected, secret))
            for mistake in mistakes:
                answers = {**expected, **mistake.sheet(exercise, variant)}
                report = _grade(exercise, Path(directory), student, mistake.id, answers, secret)
                reports.setdefault(mistake.id, report)
                own = own_run(exercise, variant, {FILE_KEYS[q]: a for q, a in answers.items()})
                affected = {milestone_of[q] for q in expected
                            if not same_answer(q, answers[q], expected[q])
                            and not answer_passes(exercise, variant, q, answers[q], own)}
                judge_answers_mistake(audits[mistake.id], missed[mistake.id], unexpected, affected, report)
    for mistake_id, audit in audits.items():
        audit.failed = [m for m in audit.affected if m not in missed[mistake_id]]
        if not audit.affected:
            audit.error = (f"changes no answer in the {len(students)} audited variants: the "
                           "variants never expose it")
    return AuditReport(exercise=exercise.id, reference=reference_audit(references),
                       mistakes=list(audits.values()), unexpected=unexpected,
                       reports={"reference": references[0], **reports})


def _grade(exercise: Exercise, directory: Path, student: str, name: str, answers: dict,
           secret: str) -> GradeReport:
    path = directory / f"{student}-{name}.yaml"
    path.write_text(sheet_text(exercise, student, answers), encoding="utf-8")
    return grade_submission(path, exercise, seed_secret=secret, helper=False)


