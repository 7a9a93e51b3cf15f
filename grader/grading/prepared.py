"""What a grading can compute before its checks need it, as work for :mod:`grader.grading.ahead`.

The generated inputs of every role that a differential or property check searches (with the
reference values their family computes for them), then the family's own pieces (for example
the efficiency check's corpus, and the reference's timing on it, which waits for the check's
go). All of it depends only on the exercise and the seed secret.
"""

from __future__ import annotations

from typing import Optional

from grader.grading import ahead, search
from grader.grading.secrets import inputs_seed
from grader.spec import Exercise
from grader.spec.family import family_of

GENERATING_CHECKS = frozenset({"differential", "properties"})


def generated_roles(exercise: Exercise) -> list[str]:
    """The roles whose checks search generated inputs, in the order the milestones need them."""
    family = family_of(exercise)
    roles = [milestone.function for milestone in exercise.milestones
             if family.has_role(milestone.function)
             and family.role(milestone.function).generated is not None
             and any(check.kind in GENERATING_CHECKS for check in milestone.checks)]
    return list(dict.fromkeys(role for role in roles if role is not None))


def work(exercise: Exercise, secret: Optional[str], *, time_reference: bool) -> ahead.Work:
    """Each piece of the grading's work as ``(key, compute)``, in the order it is needed."""
    seed = None if secret is None else inputs_seed(secret, exercise.id)
    pieces: ahead.Work = [
        (ahead.generated_key(role, seed), lambda progress=None, role=role:
         search.generated_ahead(exercise, role, seed, progress))
        for role in generated_roles(exercise)
    ]
    pieces += list(family_of(exercise).ahead(exercise, secret, time_reference))
    return pieces


def prepare(exercise: Exercise, secret: Optional[str]) -> None:
    """Fill this process's caches with the exercise's generated inputs and timed input."""
    ahead.prepare(work(exercise, secret, time_reference=False))


def start_helper(exercise: Exercise, secret: Optional[str]) -> Optional[ahead.Helper]:
    """A helper process computing the grading's work (see :func:`ahead.start_helper`)."""
    return ahead.start_helper(work(exercise, secret, time_reference=True))
