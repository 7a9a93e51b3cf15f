"""Naming a milestone's mistake from all its failing inputs at once, contradicted names dropped.

One failing input often fits several known mistakes by coincidence; all the failing inputs of
a milestone rarely do. Each :class:`Observation` is one failing call: its inputs and what the
student's function returned, or that it crashed. Every catalogued mistake of the role is run
on each observation and gets a verdict there: it *explains* it (same output, or the same
crash), *contradicts* it (another output), or says nothing (it raised, or ran too long).

:func:`name_for_milestone` keeps the mistakes that explain at least one observation and
contradict none, ranked by how many they explain, then single mistakes before combinations,
then catalogue order. A call the student got right contradicts the mistakes that would have
got it wrong. Combinations of two mistakes (``MistakeBook.combinations``) are tried only when
no single one survives, and only within a time budget.

When nothing survives, code with a second quirk on top of a known mistake would get no name
at all; so the single mistakes that explain at least half of the failing inputs (two or
more) are kept as *partial* names, most explained first, and say what they leave unexplained
("reproduces your output on 14 of the 16 failing inputs; the other 2 differ from it too").
A partial name is never evidence of work (:mod:`grader.grading.evidence`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional

from grader.mistakes.diagnosis import DEFAULT_TIME_LIMIT, run_bounded
from grader.spec.mistake_book import NOT_COMPARABLE, Mistake, MistakeBook, Observation

COMBINATION_BUDGET = 0.8
"""Seconds the search over combinations may take for one milestone."""

EXPLAINS, CONTRADICTS, SILENT = "explains", "contradicts", "silent"
_CRASHED = object()



def key(observation: Observation) -> str:
    """Equal for observations of the same call with the same outcome."""
    return observation.key


@dataclass(frozen=True)
class Named:
    """A surviving mistake and how many of the milestone's observations it explains."""

    mistake: Mistake
    explained: int
    observed: int
    combined: bool
    explained_keys: frozenset[str]  # the :func:`key` of each observation it explains
    contradicted: int = 0  # observations it gets otherwise (a partial name)

    @property
    def partial(self) -> bool:
        return self.contradicted > 0

    def evidence(self) -> str:
        if self.partial:
            other = self.observed - self.explained
            return (f"reproduces your output on {self.explained} of the {self.observed} failing "
                    f"inputs; on the other {other} your code differs from it too, so there is "
                    "more than this one mistake")
        if self.explained == self.observed:
            every = {1: "the", 2: "both"}.get(self.observed, f"all {self.observed}")
            noun = "input" if self.observed == 1 else "inputs"
            return f"reproduces your output on {every} failing {noun} it was tried on"
        return (f"reproduces your output on {self.explained} of the {self.observed} failing "
                "inputs, and contradicts none")


def usable(book: MistakeBook, role: str, observation: Observation) -> bool:
    """Whether an observation can tell mistakes apart: a comparable value, or a crash the
    family says a mistake reproduces."""
    if observation.crashed:
        return book.telling_crash(role, observation.crash or "")
    return observation.form(book, role) is not NOT_COMPARABLE


def name_for_milestone(
    book: MistakeBook,
    role: str,
    observations: Sequence[Observation],
    options: Mapping[str, Any],
    *,
    agreeing: Sequence[Observation] = (),
    budget: float = COMBINATION_BUDGET,
) -> list[Named]:
    """The mistakes that explain the observations, best first (see the module docstring).

    ``book`` is the family's; ``options`` are the exercise's conventions as keyword arguments
    of the role's ``run`` (``book.options``). ``agreeing`` are calls the student got right: a
    mistake that would have got one of them wrong is contradicted too.
    """
    kept = wrong_outputs(book, role, [o for o in observations if usable(book, role, o)], options)
    if not kept:
        return []
    right = [o for o in agreeing if not o.crashed and usable(book, role, o)]
    singles = [m for m in book.for_role(role) if not m.is_convention_of(options)]
    named = _survivors(book, role, singles, kept, right, options, combined=False, deadline=None)
    if not named:
        deadline = time.perf_counter() + budget
        named = _survivors(book, role, book.combinations(role, options), kept, right, options,
                           combined=True, deadline=deadline)
    if not named:
        named = _partial(book, role, singles, kept, right, options)
    order = {id(named_one): index for index, named_one in enumerate(named)}
    return sorted(named, key=lambda n: (-n.explained, n.combined, order[id(n)]))


def wrong_outputs(book: MistakeBook, role: str, observations: list[Observation],
                   options: Mapping[str, Any]) -> list[Observation]:
    """The observations whose output is not the reference's (a crash always counts)."""
    kept, seen = [], set()
    for observation in observations:
        if key(observation) in seen:
            continue
        seen.add(key(observation))
        if not observation.crashed:
            expected = _output(book, role, book.reference[role], observation.inputs, options)
            if expected is NOT_COMPARABLE or expected == observation.form(book, role):
                continue
        kept.append(observation)
    return kept


def _survivors(
    book: MistakeBook, role: str, candidates: Sequence[Mistake], observations: list[Observation],
    agreeing: list[Observation], options: Mapping[str, Any], *, combined: bool,
    deadline: Optional[float],
) -> list[Named]:
    named = []
    for mistake in candidates:
        if deadline is not None and time.perf_counter() > deadline:
            break
        explains: list[str] = []
        for observation in observations:
            verdict = _verdict(book, role, mistake, observation, options)
            if verdict == CONTRADICTS:
                break
            if verdict == EXPLAINS:
                explains.append(key(observation))
        else:
            if explains and not any(
                _verdict(book, role, mistake, observation, options) == CONTRADICTS
                for observation in agreeing
            ):
                named.append(Named(mistake, len(explains), len(observations), combined,
                                   frozenset(explains)))
    return named


PARTIAL_LIMIT = 2
"""Partial names shown at most, the best first."""


def _partial(book: MistakeBook, role: str, candidates: Sequence[Mistake],
             observations: list[Observation], agreeing: list[Observation],
             options: Mapping[str, Any]) -> list[Named]:
    """The single mistakes that explain at least half of ``observations`` (two or more) and
    contradict no call the student got right."""
    needed = max(2, (len(observations) + 1) // 2)
    if len(observations) < 2:
        return []
    found = []
    for mistake in candidates:
        verdicts = {key(o): _verdict(book, role, mistake, o, options) for o in observations}
        explains = frozenset(k for k, verdict in verdicts.items() if verdict == EXPLAINS)
        if len(explains) < needed:
            continue
        if any(_verdict(book, role, mistake, o, options) == CONTRADICTS for o in agreeing):
            continue
        contradicted = sum(verdict == CONTRADICTS for verdict in verdicts.values())
        found.append(Named(mistake, len(explains), len(observations), False, explains,
                           contradicted=contradicted))
    found.sort(key=lambda n: -n.explained)
    return found[:PARTIAL_LIMIT]


def _verdict(book: MistakeBook, role: str, mistake: Mistake, observation: Observation,
             options: Mapping[str, Any]) -> str:
    output = _output(book, role, mistake.run, observation.inputs, options)
    if output is _CRASHED:
        return EXPLAINS if observation.crashed else CONTRADICTS
    if output is NOT_COMPARABLE:
        return SILENT
    if observation.crashed:
        return CONTRADICTS
    return EXPLAINS if output == observation.form(book, role) else CONTRADICTS


def _output(book: MistakeBook, role: str, run: Callable[..., Any], inputs: Mapping[str, Any],
            options: Mapping[str, Any]) -> Any:
    arguments = {**inputs, **options}

    def compute() -> Any:
        try:
            return run(**arguments)
        except book.crash:
            return _CRASHED

    output = run_bounded(compute, DEFAULT_TIME_LIMIT)
    if output is _CRASHED or output is NOT_COMPARABLE:
        return output
    return book.canonical(role, output)
