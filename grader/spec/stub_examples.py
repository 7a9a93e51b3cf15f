"""Doctest examples in the stub for the roles beyond BPE's three, keyed by role.

:mod:`grader.spec.stubs` asks here first: each entry turns one public case into the doctest
blocks of one function, with expected values from the reference (``train_wordpiece``: the
merge list; ``first_divergence``: the step and both pairs, or None).
"""

from __future__ import annotations

from collections.abc import Callable
from grader.spec import Case, Exercise
from grader.spec.expected import reference_divergence, reference_wordpiece


def _wordpiece(exercise: Exercise, name: str, case: Case, statement: Callable, call: Callable) -> list[str]:
    merges = reference_wordpiece(exercise, case)
    return [statement("corpus", case.corpus) + call(f"{name}(corpus, {case.num_merges})", merges)]


def _divergence(exercise: Exercise, name: str, case: Case, statement: Callable, call: Callable) -> list[str]:
    found = reference_divergence(exercise, case)
    text = statement("corpus", case.corpus)
    if found is None:
        return [text + f"\n>>> print({name}(corpus, {case.num_merges}))\nNone"]
    return [text + call(f"{name}(corpus, {case.num_merges})", found)]


EXAMPLES: dict[str, Callable[..., list[str]]] = {
    "train_wordpiece": _wordpiece,
    "first_divergence": _divergence,
}


def examples(exercise: Exercise, role: str, name: str, case: Case, statement: Callable,
             call: Callable) -> list[str]:
    """The doctest blocks for ``role`` from ``case``."""
    return EXAMPLES[role](exercise, name, case, statement, call)


__all__ = ["EXAMPLES", "examples"]
