"""No points without a solution: a milestone's points flow only from evidence of real work.

Some checks are passed by code that does nothing: an empty merge list is deterministic,
prefix-stable and at most ``k`` long; a word's bare characters join back to the word; a
case whose right answer is ``[]`` or the bare characters is answered by a stub. Such checks
earn their points only when the same milestone shows real work, in one of two ways:

- it passes a case item or the differential check whose right answer is not what a
  do-nothing implementation returns (each family says which right answers are trivial for
  its roles: they mark their case items and generated inputs);
- or one catalogued mistake explains every visible input it gets wrong, and on at least one
  of them the student's answer is not what do-nothing code returns
  (:meth:`grader.grading.naming.MilestoneObservations.work_explained`): a trainer right but
  for its tie rule, or for its marker, works; it loses the cases its mistake gets wrong, not
  the checks a do-nothing answer would also pass.

Each role says why its points are withheld (``Role.no_work``).

A milestone with no real-work check of its own (an efficiency milestone) takes the evidence
of the milestones checking the same function. A function none of whose checks is real work
(an exercise without a single non-trivial case or differential check) is left alone:
``grade audit`` reports it, since its do-nothing submissions then earn points.

A check whose points are withheld (passed, or a differential check's share of the inputs its
code answers) keeps its verdict, shows 0 points and says why; the milestone keeps the reason
(``withheld_because``) for the line of the human reports that sums up its passed checks.
"""

from __future__ import annotations

from grader.result import CheckResult, MilestoneResult
from grader.spec import Exercise
from grader.spec.registry import family_of

EVIDENCE_KINDS = frozenset({"cases", "differential"})
NO_WORK = "no points until the function does real work"


def _evidence(check: CheckResult) -> bool:
    return check.real_work and check.passed and not check.trivial_pass


def _shows_work(result: MilestoneResult) -> bool:
    return result.work_explained_by is not None or any(_evidence(c) for c in result.checks)


def withhold_unearned(milestones: list[MilestoneResult], exercise: Exercise) -> None:
    """Withhold the points of every milestone that shows no real work, as the grading settles
    its milestones' points (before their report is built)."""
    family = family_of(exercise)
    specs = {milestone.id: milestone for milestone in exercise.milestones}
    capable: dict[object, bool] = {}
    shown: dict[object, bool] = {}
    for result in milestones:
        role = specs[result.id].function
        capable[role] = capable.get(role, False) or any(c.real_work for c in result.checks)
        shown[role] = shown.get(role, False) or _shows_work(result)
    for result in milestones:
        role = specs[result.id].function
        if not capable.get(role):
            continue
        if any(c.real_work for c in result.checks):
            has_work = _shows_work(result)
        else:
            has_work = shown.get(role, False)
        if has_work:
            continue
        template = family.role(role).no_work if family.has_role(role) else NO_WORK
        reason = template.format(name=f"{exercise.function(role).name}()")
        result.withheld_because = reason
        for check in result.checks:
            if check.score > 0:
                check.score = 0.0
                check.message = f"{check.message.rstrip('.')}; {reason}." if check.message else reason
