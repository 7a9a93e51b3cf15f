"""Every kind of check a milestone can hold, behind one interface and one registry.

A check kind is a title and a function from a :class:`CheckContext` (the student's calls, the
sandbox, the exercise, the milestone, the check and its share of the points) to the check's
results. :data:`CHECK_KINDS` is the one registry: the engine dispatches through it, and a new
kind is one module with a ``TITLE`` and a ``run(context)`` plus one entry here. A family may
bring kinds of its own (``Family.check_kinds``, e.g. the questions of an answers file), which
only its exercises use. Each built-in kind asks the milestone's role, through its family's
record, for what is particular to it (judges, generated inputs, properties, the timed run).
"""

from __future__ import annotations

from typing import Optional

from grader.grading.checks import cases, differential, efficiency, properties
from grader.spec.hooks import CheckContext, CheckKind
from grader.spec import Exercise
from grader.spec.registry import family_of

CHECK_KINDS: dict[str, CheckKind] = {
    module.CHECK_ID: CheckKind(module.TITLE, module.run)
    for module in (cases, differential, properties, efficiency)
}


def check_kind(kind: str, exercise: Optional[Exercise] = None) -> CheckKind:
    """The check kind named ``kind`` (the spec's ``checks[].kind``): ``exercise``'s family's
    own, else the registered one."""
    if exercise is not None:
        own = family_of(exercise).check_kinds.get(kind)
        if own is not None:
            return own
    return CHECK_KINDS[kind]


__all__ = ["CHECK_KINDS", "CheckContext", "CheckKind", "check_kind"]
