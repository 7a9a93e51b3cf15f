"""The test-adequacy audit: do an exercise's checks catch every known mistake?

For each catalogued mistake that can happen under the exercise's conventions, and for each
combination of two that published code makes, a student-style submission making exactly that
(its family's ``Students``) is graded through the real grading path, sandbox included; a
combination is named when the diagnosis names both mistakes together. A mistake *affects* the milestones that check the
function it lives in; it is *caught* when each of them fails at least one check. A milestone
it passes is a gap in the exercise: its checks cannot tell the mistake from the reference.
A correct student-style submission must score full marks, or nothing here means anything.

Efficiency checks time a correct trainer and are not meant to catch mistakes, so mistaken
submissions are graded without them (which also keeps the audit quick); the correct
submission is graded with every check.

The family's do-nothing submissions (for character BPE: empty, constant, identity, echo) are
graded with every check too: the audit fails when any of them earns a point. The other half of
fairness: a mistaken submission that passes some check of a milestone it affects must earn
there (``MistakeAudit.unpaid``), since its mistake is made on top of real work, unless every
answer it gets wrong is a do-nothing answer. A family whose
students hand in something else than code audits its own way (``Family.audit``).
"""

from __future__ import annotations

import os
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Optional

from grader.grading import prepared
from grader.grading.engine import grade_submission
from grader.grading.secrets import SeedSecretError, resolve_secret
from grader.grading.submissions import submission_kind
from grader.spec.mistake_book import EMPTY_BOOK, StudentMistake
from grader.result import GradeReport
from grader.spec.hooks import (
    AuditReport,
    MistakeAudit,
    ReferenceAudit,
    UnknownMistake,
    points_earned,
)
from grader.spec import Exercise
from grader.spec.registry import depends_on, family_of


# --------------------------------------------------------------------------- running


def run_audit(
    exercise: Exercise,
    *,
    mistake_ids: Optional[list[str]] = None,
    jobs: Optional[int] = None,
    reference_submission: Optional[Path] = None,
) -> AuditReport:
    """Grade the correct submission and every applicable mistake (or only ``mistake_ids``).

    ``jobs`` gradings run at once (default: one per core). ``reference_submission`` replaces
    the generated correct submission, e.g. with the exercise's sample in ``examples/``.
    """
    family = family_of(exercise)
    if family.audit is not None:
        return family.audit(exercise, mistake_ids=mistake_ids)
    students = family.students
    book = family.mistakes or EMPTY_BOOK
    catalogue = {m.id: m for role in exercise.roles() for m in book.for_role(role)}
    applicable = students.applicable(exercise) if students is not None else []
    mistakes = [m for m in applicable if m.id in catalogue]
    combined = students.combined(exercise) if students is not None else []
    for combination in combined:  # two mistakes at once, as real code has
        if students.combination is not None:
            catalogue[combination.id] = students.combination(combination.id)
            mistakes.append(combination)
    if mistake_ids is not None:
        unknown = sorted(set(mistake_ids) - {m.id for m in mistakes})
        if unknown:
            known = ", ".join(m.id for m in mistakes)
            raise UnknownMistake(f"no applicable mistake {', '.join(unknown)} for {exercise.id}; "
                             f"known: {known}")
        mistakes = [m for m in mistakes if m.id in mistake_ids]
    without_timing = exercise_without_efficiency(exercise)
    idle = dict(family.do_nothing(exercise))
    with tempfile.TemporaryDirectory(prefix="grade-audit-") as directory:
        folder = Path(directory)
        reference_path = reference_submission or write_student(exercise, folder)
        tasks = [(str(reference_path), exercise)] + [
            (str(write_student(exercise, folder, m.id)), without_timing)
            for m in mistakes
        ] + [
            (str(_write(folder, f"do_nothing_{kind}", exercise, source)), exercise)
            for kind, source in idle.items()
        ]
        reports = _grade_all(tasks, jobs)
    idle_kinds = list(idle)
    idle_reports = reports[len(reports) - len(idle_kinds):]
    reports = reports[: len(reports) - len(idle_kinds)]
    reference_report, mistake_reports = reports[0], reports[1:]
    audits = [
        judge_mistake(exercise, mistake, catalogue[mistake.id], report)
        for mistake, report in zip(mistakes, mistake_reports)
    ]
    return AuditReport(
        exercise=exercise.id,
        reference=judge_reference(reference_report),
        mistakes=audits,
        unexpected={
            audit.id: failures
            for mistake, audit, report in zip(mistakes, audits, mistake_reports)
            if (failures := unexpected_failures(exercise, mistake, report))
        },
        reports={"reference": reference_report}
        | {m.id: r for m, r in zip(mistakes, mistake_reports)}
        | {f"do-nothing-{kind}": r for kind, r in zip(idle_kinds, idle_reports)},
        do_nothing={kind: points_earned(r) for kind, r in zip(idle_kinds, idle_reports)},
    )


def student_source(exercise: Exercise, mistake_id: Optional[str] = None) -> str:
    """The student-style submission to ``exercise`` making ``mistake_id`` (None: correct)."""
    students = family_of(exercise).students
    if students is None:
        raise UnknownMistake(f"the {exercise.family} family writes no student-style submissions")
    return students.source(exercise, mistake_id)


def write_student(exercise: Exercise, directory: Path, mistake_id: Optional[str] = None) -> Path:
    """Write the student-style submission to ``directory``/student_<mistake>.py."""
    name = "student_" + (mistake_id or "correct").replace("-", "_")
    return _write(directory, name, exercise, student_source(exercise, mistake_id))


def _write(directory: Path, name: str, exercise: Exercise, source: str) -> Path:
    path = Path(directory) / f"{name}{submission_kind(exercise).suffixes[0]}"
    path.write_text(source, encoding="utf-8")
    return path


def exercise_without_efficiency(exercise: Exercise) -> Exercise:
    """A copy of ``exercise`` without efficiency checks (and milestones left empty by that)."""
    milestones = []
    for milestone in exercise.milestones:
        checks = [check for check in milestone.checks if check.kind != "efficiency"]
        if checks:
            milestones.append(milestone.model_copy(update={"checks": checks}))
    return exercise.model_copy(update={"milestones": milestones})


def _grade_all(tasks: list[tuple[str, Exercise]], jobs: Optional[int]) -> list[GradeReport]:
    workers = max(1, min(jobs or os.cpu_count() or 1, len(tasks)))
    try:
        secret = resolve_secret()
    except SeedSecretError:
        pass  # every grading reports it
    else:
        for exercise in {id(exercise): exercise for _, exercise in tasks}.values():
            prepared.prepare(exercise, secret)  # once here rather than in every grading
    if workers == 1:
        return [_grade(task) for task in tasks]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_grade, tasks))


def _grade(task: tuple[str, Exercise]) -> GradeReport:
    path, exercise = task
    return grade_submission(path, exercise, helper=False)


# --------------------------------------------------------------------------- judging


def affected_milestones(exercise: Exercise, role: str) -> list[str]:
    """Milestones that check the function of ``role`` with something other than timing."""
    return [
        milestone.id
        for milestone in exercise.milestones
        if milestone.function == role and any(c.kind != "efficiency" for c in milestone.checks)
    ]


def judge_mistake(exercise: Exercise, mistake: StudentMistake, entry: Any, report: GradeReport) -> MistakeAudit:
    family = family_of(exercise)
    audit = MistakeAudit(
        id=mistake.id,
        title=getattr(entry, "title", mistake.id),
        role=mistake.role,
        affected=affected_milestones(exercise, mistake.role),
        witness=dict(getattr(entry, "witness", {}) or {}),
        advice=family.role(mistake.role).audit_advice if family.has_role(mistake.role)
        else MistakeAudit.advice,
    )
    if report.errors:
        audit.error = "; ".join(report.errors)
    for milestone in report.milestones:
        if milestone.id in audit.affected:
            audit.kept[milestone.id] = f"{milestone.score:g}/{milestone.max_score:g}"
            if milestone.score == 0 and any(check.passed for check in milestone.checks):
                if milestone.answers_trivial:
                    audit.kept[milestone.id] += " (its answers are what do-nothing code returns)"
                else:
                    audit.unpaid.append(milestone.id)
        failing = [check for check in milestone.checks if not check.passed]
        if not failing:
            continue
        audit.failed.append(milestone.id)
        audit.catching_checks[milestone.id] = [check.id for check in failing]
        if any(d.id == mistake.id for check in failing for d in check.diagnoses):
            audit.named_in.append(milestone.id)
        if milestone.id in audit.affected:
            audit.other_names += sorted({
                d.id for check in failing if check.visibility == "visible"
                for d in check.diagnoses
                if d.id != mistake.id and not d.id.startswith("signal-")
                and d.id not in audit.other_names})
    audit.published = mistake.published
    return audit


def unexpected_failures(exercise: Exercise, mistake: StudentMistake, report: GradeReport) -> list[str]:
    """Milestones the mistake should not touch that failed anyway."""
    roles = {mistake.role}
    by_id = {m.id: m for m in exercise.milestones}
    failed = []
    for milestone in report.milestones:
        role = by_id[milestone.id].function
        may_fail = role in roles or mistake.role in depends_on(exercise, role)
        if not milestone.passed and not may_fail:
            failed.append(milestone.id)
    return failed


def judge_reference(report: GradeReport) -> ReferenceAudit:
    return ReferenceAudit(
        score=report.score,
        max_score=report.max_score,
        failed_checks=[
            f"{milestone.id}/{check.id}: {check.message}"
            for milestone in report.milestones
            for check in milestone.checks
            if not check.passed
        ],
        errors=list(report.errors),
    )


# --------------------------------------------------------------------------- text


def render_text(audit: AuditReport, exercise: Exercise) -> str:
    """The audit for a terminal: one line per mistake, then what to fix."""
    caught = sum(m.caught for m in audit.mistakes)
    lines = [
        f"Audit of {exercise.id}: {caught} of {len(audit.mistakes)} known mistakes caught",
        _reference_line(audit.reference),
    ]
    lines += _reference_problems(audit.reference)
    for mistake in audit.mistakes:
        lines.append(_mistake_line(mistake))
        lines += [f"      {line}" for line in _gap_advice(mistake, exercise)]
    for kind, earned in audit.do_nothing.items():
        if earned:
            lines.append(f"  ✗ the do-nothing submission '{kind}' earns points: {'; '.join(earned)}; "
                         "add a case whose right answer needs real work to that milestone")
        else:
            lines.append(f"  ✓ the do-nothing submission '{kind}' scores 0")
    for mistake_id, milestones in audit.unexpected.items():
        lines.append(
            f"  ! {mistake_id} also fails {', '.join(milestones)}, which it should not touch: "
            "the mistaken submission or those milestones' checks need a look"
        )
    lines.append("Audit passed." if audit.ok else "Audit FAILED: see the lines marked ✗ and !.")
    return "\n".join(lines) + "\n"


def _reference_line(reference: ReferenceAudit) -> str:
    mark = "✓" if reference.full_marks else "✗"
    return (f"{mark} a correct student-style submission scores "
            f"{reference.score:g}/{reference.max_score:g}")


def _reference_problems(reference: ReferenceAudit) -> list[str]:
    return [f"      {line}" for line in reference.errors + reference.failed_checks]


def _mistake_line(mistake: MistakeAudit) -> str:
    mark = "✓" if mistake.caught else "✗"
    caught_by = "; ".join(
        f"{milestone} ({summarize_checks(checks)})"
        for milestone, checks in mistake.catching_checks.items()
    )
    mark = mark if mistake.fair and mistake.truly_named else "✗"
    text = f"  {mark} {mistake.id} [{mistake.role}]: fails {caught_by or 'nothing'}"
    if mistake.kept:
        text += "; keeps " + ", ".join(f"{milestone} {points}"
                                     for milestone, points in mistake.kept.items())
    if mistake.unpaid:
        text += (f"; EARNS NOTHING on {', '.join(mistake.unpaid)} though it passes checks there "
                 "(the real work its answers show is not recognised)")
    if mistake.missed:
        text += f"; PASSES {', '.join(mistake.missed)}"
    if mistake.error:
        text += f"; could not be graded: {mistake.error}"
    elif mistake.caught and not mistake.named:
        text += ("; caught, but no visible check names it"
                 + (" (A PUBLISHED PATTERN: it must be named)" if mistake.published else ""))
    if mistake.other_names:
        text += f"; FALSELY NAMED {', '.join(mistake.other_names)}"
    return text


def summarize_checks(check_ids: list[str]) -> str:
    """``cases:a, cases:b, differential`` -> ``2 cases, differential`` (other ids as they are)."""
    cases = sum(check_id.split(":")[0] == "cases" for check_id in check_ids)
    others = [check_id for check_id in check_ids if check_id.split(":")[0] != "cases"]
    parts = [f"{cases} case{'s' if cases > 1 else ''}"] if cases else []
    return ", ".join(parts + others)


def _gap_advice(mistake: MistakeAudit, exercise: Exercise) -> list[str]:
    advice = []
    for milestone_id in mistake.missed:
        milestone = exercise.milestone(milestone_id)
        kinds = [check.kind for check in milestone.checks if check.kind != "efficiency"]
        line = (f"no check of {milestone_id!r} ({', '.join(kinds)}) tells it from the reference: "
                f"add {mistake.advice} to the cases check")
        if mistake.witness:
            line += f", e.g. the catalogue's witness {_short(mistake.witness)}"
        advice.append(line)
    return advice


def _short(value: Any, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
