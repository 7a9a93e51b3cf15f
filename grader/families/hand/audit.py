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
from grader.grading.audit import AuditReport, MistakeAudit, ReferenceAudit, UnknownMistake
from grader.grading.engine import grade_submission
from grader.families.hand.mistakes import applicable, diagnostic_variant, same_answer
from grader.result import GradeReport
from grader.families.hand.variants import course_secret
from grader.spec import Exercise

AUDIT_STUDENTS = tuple(f"audit-{number}" for number in range(1, 9))
ROLE = "answers"
"""What the audit's lines say a hand mistake is of (the file, not a function)."""
ADVICE = "a variant setting (word_pool, max_count, num_merges) that shows it"


def sheet_text(exercise: Exercise, student: str, answers: dict[str, Any]) -> str:
    """An answers file holding ``answers`` (question id -> answer) for ``student``."""
    data: dict[str, Any] = {"student": student}
    data.update({FILE_KEYS[question]: answer for question, answer in answers.items()})
    return f"# exercise: {exercise.id}\n" + yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


def chosen_mistakes(exercise: Exercise, mistakes: list, mistake_ids: Optional[list[str]]) -> list:
    """``mistakes`` (records with an ``id``), only those of ``mistake_ids`` when given;
    :class:`UnknownMistake` for an id that is not among them."""
    if mistake_ids is None:
        return mistakes
    unknown = sorted(set(mistake_ids) - {m.id for m in mistakes})
    if unknown:
        raise UnknownMistake(f"no applicable mistake {', '.join(unknown)} for {exercise.id}; "
                             f"known: {', '.join(m.id for m in mistakes)}")
    return [m for m in mistakes if m.id in mistake_ids]


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


def judge_answers_mistake(audit: MistakeAudit, missed: set[str], unexpected: dict[str, list[str]],
                          affected: set[str], report: GradeReport) -> None:
    """Record in ``audit`` how ``report`` (a file making the mistake) fared: each ``affected``
    milestone must fail (else it joins ``missed``), any other failing one is ``unexpected``,
    and a failing check whose diagnosis names the mistake marks it named."""
    for milestone in report.milestones:
        failing = [check for check in milestone.checks if not check.passed]
        if milestone.id in affected:
            if milestone.id not in audit.affected:
                audit.affected.append(milestone.id)
            if not failing:
                missed.add(milestone.id)
                continue
            audit.catching_checks.setdefault(milestone.id, sorted({c.id for c in failing}))
            if any(d.id == audit.id for check in failing for d in check.diagnoses):
                if milestone.id not in audit.named_in:
                    audit.named_in.append(milestone.id)
        elif failing and milestone.id not in unexpected.setdefault(audit.id, []):
            unexpected[audit.id].append(milestone.id)
    if not unexpected.get(audit.id):
        unexpected.pop(audit.id, None)


def reference_audit(reports: list[GradeReport]) -> ReferenceAudit:
    return ReferenceAudit(
        score=sum(r.score for r in reports) / len(reports),
        max_score=reports[0].max_score,
        failed_checks=[f"{m.id}/{c.id}: {c.message}" for r in reports for m in r.milestones
                       for c in m.checks if not c.passed],
        errors=[error for r in reports for error in r.errors],
    )
