"""The half of a data-file exercise's audit that every such family shares.

An exercise whose students hand in a data file gives each student a variant, so its audit
grades several variants (fixed audit student ids under the given secret): the correct file of
each must score full marks, and each known mistake must fail the milestones it affects in
every variant and no other (:func:`judge_answers_mistake`). The family writes the files and
says which milestones a mistake affects; this module chooses the mistakes asked for and
records how each fared.
"""

from __future__ import annotations

from typing import Optional

from grader.result import GradeReport
from grader.spec.hooks import MistakeAudit, ReferenceAudit, UnknownMistake
from grader.spec.models import Exercise

AUDIT_STUDENTS = tuple(f"audit-{number}" for number in range(1, 9))


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
