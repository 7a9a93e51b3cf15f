"""The ``cases`` check: the student's output on each case of the spec equals the reference's.

The family of the milestone's role turns each case it serves into graded items (a case's
merge list, each word of a case, ...: :class:`~grader.spec.hooks.CaseItem`); the
check's points are split evenly over them. A failed visible item shows its input, expected
and actual values, the evidence its family writes and, when its family replays runs, the two
runs step by step; its observation is noted for naming
the milestone's mistakes; a hidden item shows pass/fail only, and hidden cases are numbered
exercise-wide so their titles say nothing about their inputs. An item whose right answer is
not a do-nothing one is marked as real work (:mod:`grader.grading.evidence`).
"""

from __future__ import annotations

from contextlib import nullcontext

from grader.spec.hooks import CheckContext
from grader.spec.hooks import CaseItem, CaseLabel
from grader.grading.feedback import graded, timed
from grader.grading.naming import note
from grader.grading.search import prefetch_remembered
from grader.grading.scoring import split_evenly
from grader.grading.student_calls import StudentCalls
from grader.result import CheckResult, Visibility
from grader.spec.registry import cases_for, role_of

CHECK_ID = "cases"
TITLE = "Cases"


def run(context: CheckContext) -> list[CheckResult]:
    """Grade every case input for the milestone's function, the check's points split evenly."""
    items = case_items(context.calls, context.milestone.function)
    shares = split_evenly(context.points, len(items))
    for visibility in ("visible", "hidden"):
        made_ahead(context, [item for item in items if item.visibility == visibility])
    try:
        return [
            timed(lambda item=item, share=share: grade_item(context, item, share))
            for item, share in zip(items, shares)
        ]
    finally:
        context.calls.drop_unused_calls()


def made_ahead(context: CheckContext, items: list[CaseItem]) -> None:
    """The first call each of ``items`` makes, made ahead in one batch per role, then the
    remembered calls that depend on those answers (a trainer judged on the student's own
    helpers), in batched rounds (:func:`grader.grading.search.prefetch_remembered`): public
    and hidden items in batches of their own, so what a batch prints stays attributable.
    Whatever a batch leaves unanswered is called one by one as the items are judged."""
    calls = context.calls
    noted = calls.asked_first((item.judge for item in items), fresh_calls=True)
    if not noted:
        return
    with calls.output.visible_inputs() if items[0].visibility == "visible" else nullcontext():
        calls.prefetch_calls(noted)
        prefetch_remembered(calls, lambda: (item.judge for item in items))


def grade_item(context: CheckContext, item: CaseItem, share: float) -> CheckResult:
    """One item judged: visible output kept, a visible failure noted for naming."""
    if item.visibility == "visible":
        with context.calls.output.visible_inputs():
            verdict = item.judge()
    else:
        verdict = item.judge()
    shows_steps = item.visibility == "visible" and not verdict.passed and verdict.steps
    result = graded(
        item.check_id, item.title, share, verdict.passed, visibility=item.visibility,
        message=verdict.message, details=verdict.details,
        steps=verdict.steps() if shows_steps else None,
    )
    result.real_work = item.real_work
    result.trivial_pass = verdict.trivial
    seen = [verdict.observation] if verdict.observation is not None else []
    return note(context, result, context.milestone.function, seen)


def case_items(calls: StudentCalls, role: str) -> list[CaseItem]:
    """The graded items of every case serving ``role``, hidden ones numbered exercise-wide."""
    exercise = calls.exercise
    judges = role_of(exercise, role).case_items
    hidden_numbers = {id(case): number for number, case in enumerate(exercise.hidden_cases, 1)}
    items: list[CaseItem] = []
    for case in cases_for(exercise, role):
        visibility: Visibility = "visible" if case.public else "hidden"
        number = hidden_numbers.get(id(case))
        label = CaseLabel(
            check_id=f"cases:{case.id}" if case.public else f"cases:hidden-{number}",
            name=case.id if case.public else f"Hidden case {number}",
            visibility=visibility,
        )
        items.extend(judges(calls, case, label))
    return items
