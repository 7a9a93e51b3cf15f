"""What a grading can compute before its checks need it, as work for :mod:`grader.grading.ahead`.

The generated inputs of every role that a differential or property check searches (with the
reference values their family computes for them), then the family's own pieces (for example
the efficiency check's corpus, and the reference's timing on it, which waits for the check's
go). All of it depends only on the exercise and the seed secret.
"""

from __future__ import annotations

from typing import Optional

from grader.grading import ahead, prepared_cache, search
from grader.grading.secrets import inputs_seed
from grader.spec import Exercise
from grader.spec.registry import family_of

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
    ahead.prepare(_stored_or_kept(exercise, secret, work(exercise, secret, time_reference=False)))


def start_helper(exercise: Exercise, secret: Optional[str]) -> Optional[ahead.Helper]:
    """A helper process computing the grading's work (see :func:`ahead.start_helper`): only
    what the cache of prepared work does not hold already, and the reference's timing."""
    return ahead.start_helper(_stored_or_kept(exercise, secret,
                                              work(exercise, secret, time_reference=True)))


def load_stored(exercise: Exercise, secret: Optional[str]) -> None:
    """Load what the cache of prepared work holds for the grading, computing nothing."""
    loaded = prepared_cache.load(exercise, secret)
    ahead.preload({key: loaded[key] for key, _ in work(exercise, secret, time_reference=False)
                   if key in loaded})


def _stored_or_kept(exercise: Exercise, secret: Optional[str], pieces: ahead.Work) -> ahead.Work:
    """``pieces`` less those the cache holds (loaded for :func:`ahead.collect`); when some are
    missing, the rest computed and then, before any timing, stored for later gradings."""
    loaded = prepared_cache.load(exercise, secret)
    wanted = [key for key, _ in pieces if key[0] != "timing"]
    if all(key in loaded for key in wanted):
        ahead.preload({key: loaded[key] for key in wanted})
        return [(key, compute) for key, compute in pieces if key[0] == "timing"]
    computed: dict = {}

    def kept(key: tuple, compute):
        def compute_and_keep(progress=None):
            value = compute(progress)
            computed[key] = value
            ahead.preload({key: value})
            if len(computed) == len(wanted):
                prepared_cache.store(exercise, secret, computed)
            return value
        return compute_and_keep

    return [(key, compute if key[0] == "timing" else kept(key, compute)) for key, compute in pieces]
