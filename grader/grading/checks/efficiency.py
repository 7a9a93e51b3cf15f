"""The ``efficiency`` check: is the student's function fast enough on a large input?

The run is the role's own (``Role.timed``: its family knows what large input is fair, how to
tell an honest answer and what advice helps), timed with :mod:`grader.grading.timing`: the
student's function once in the sandbox, the reference in a trusted process, side by side.
"""

from __future__ import annotations

from grader.spec.hooks import CheckContext
from grader.result import CheckResult
from grader.spec.registry import role_of

CHECK_ID = "efficiency"
TITLE = "Training speed on a large corpus"


def run(context: CheckContext) -> list[CheckResult]:
    """Grade the ``efficiency`` check of the milestone: the role's timed run."""
    timed = role_of(context.exercise, context.milestone.function).timed
    assert timed is not None, "the spec rules let efficiency checks grade only timed roles"
    return timed(context)
