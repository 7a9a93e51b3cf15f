"""The truth check: what feedback states about a student's run is shown true before it is printed.

Three things are checked, all from the run itself, never assumed:

- A **claim** (:class:`Claim`) is one sentence stating a fact (the most frequent pair, a tie,
  a count, where the merges stop) with the computation that shows it true. :func:`said`
  joins a message's parts and leaves out every claim whose computation does not hold (or
  raises): a claim that cannot be shown true is not printed.
- A **counterexample** (an :class:`~grader.spec.mistake_book.Observation`: an input and what
  the student's function did there) is re-run before it counts: :func:`counterexample_holds`
  asks the student's function again on the same input and compares with what was recorded,
  and the reference's answer must differ from it (or the call crash). One that does not fail
  again is not shown, and names no mistake.
- **Names that disagree**: two named mistakes that explain the same failing inputs may still
  answer differently elsewhere (on their own witnesses, :attr:`Mistake.probes`);
  :func:`reproducing` asks the student's function there and keeps only the names that
  reproduce its answer on every such input. A name re-run on its own probes must reproduce
  them too.

The grading stage applies them where a milestone's feedback is settled
(:meth:`grader.grading.naming.MilestoneObservations.settle`), so every family's names and
counterexamples go through them; a family writes its sentences of fact with :func:`said`.
Trusted-side code: the student's function is reached only through the ``ask`` callable the
grading stage passes in (its sandboxed calls).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional, Union

from grader.mistakes.diagnosis import DEFAULT_TIME_LIMIT, run_bounded
from grader.spec.mistake_book import NOT_COMPARABLE, Mistake, MistakeBook, Observation

__all__ = ["Ask", "Claim", "counterexample_holds", "reproducing", "said"]

Ask = Callable[[Mapping[str, Any]], Optional[Observation]]
"""The student's function of the milestone asked on keyword inputs: what it did (an
:class:`Observation`), or None when it cannot be asked (an input it does not take)."""


@dataclass(frozen=True)
class Claim:
    """One sentence of fact and how to show it true: ``holds()`` computes the fact from the
    run, in the family's own terms, and returns whether the sentence is true."""

    text: str
    holds: Callable[[], bool]

    def true(self) -> bool:
        try:
            return bool(self.holds())
        except Exception:  # noqa: BLE001 - a fact that cannot be computed is not shown true
            return False


def said(*parts: Union[str, Claim, None], sep: str = " ") -> str:
    """The parts joined by ``sep``: strings as they are, each :class:`Claim` only when it holds,
    ``None`` and empty parts left out."""
    kept = []
    for part in parts:
        if isinstance(part, Claim):
            if part.true():
                kept.append(part.text)
        elif part:
            kept.append(part)
    return sep.join(kept)


# --------------------------------------------------------------------------- counterexamples


def counterexample_holds(book: MistakeBook, role: str, observation: Observation,
                         options: Mapping[str, Any], ask: Optional[Ask]) -> bool:
    """Whether ``observation`` fails when re-run: the student's function asked again gives
    the recorded outcome, and that outcome is not the reference's. Without ``ask`` (or an
    input the function cannot be asked on), the recorded outcome is compared alone."""
    if ask is not None:
        again = _asked(ask, observation.inputs)
        if again is not None and not _same_outcome(book, role, again, observation):
            return False
    if observation.crashed:
        return True
    expected = run_bounded(lambda: book.reference[role](**{**observation.inputs, **options}),
                           DEFAULT_TIME_LIMIT)
    if expected is NOT_COMPARABLE:
        return True  # nothing to compare with: the check's own verdict stands
    return book.canonical(role, expected) != observation.form(book, role)


def _same_outcome(book: MistakeBook, role: str, again: Observation, recorded: Observation) -> bool:
    """False only when both are values that can be compared and they differ: a crash or a
    value of the wrong shape on either side shows no difference."""
    if again.crashed or recorded.crashed:
        return True
    first, second = again.form(book, role), recorded.form(book, role)
    return first is NOT_COMPARABLE or second is NOT_COMPARABLE or first == second


def _asked(ask: Ask, inputs: Mapping[str, Any]) -> Optional[Observation]:
    try:
        return ask(inputs)
    except Exception:  # noqa: BLE001 - a call that cannot be made re-runs nothing
        return None


# --------------------------------------------------------------------------- names


def reproducing(book: MistakeBook, role: str, named: Sequence[Any], options: Mapping[str, Any],
                ask: Optional[Ask],
                in_form: Callable[[Mapping[str, Any]], Mapping[str, Any]] = dict) -> list[Any]:
    """The names of ``named`` (each with a ``mistake`` and ``combined``) that reproduce the
    student's function on the inputs that tell them apart.

    The inputs are the single names' witnesses and probes. On each, every single name's
    output is computed; where they do not all agree, or a name's output departs from the
    reference's there (its own witness), the student's function is asked (on the input in the
    exercise's form, ``in_form``), and a name whose output differs from its answer is dropped. Combined names are kept as they are
    (their parts' witnesses show one part each). Without ``ask`` nothing is dropped.
    """
    if ask is None or not named:
        return list(named)
    singles = [name for name in named if not name.combined]
    probes: list[Mapping[str, Any]] = []
    for name in singles:
        for probe in (name.mistake.witness, *name.mistake.probes):
            try:
                probes.append(in_form(probe))
            except Exception:  # noqa: BLE001 - a witness the exercise cannot take asks nothing
                continue
    dropped: set[int] = set()
    for probe in probes:
        outputs = {id(name): _mistake_output(book, role, name.mistake, probe, options)
                   for name in singles}
        if all(output is NOT_COMPARABLE for output in outputs.values()):
            continue
        student = _asked(ask, _without_options(probe, options))
        if student is None or student.crashed:
            continue
        answer = student.form(book, role)
        if answer is NOT_COMPARABLE:
            continue
        for name in singles:
            output = outputs[id(name)]
            if output is not NOT_COMPARABLE and output != answer:
                dropped.add(id(name))
    return [name for name in named if id(name) not in dropped]


def _mistake_output(book: MistakeBook, role: str, mistake: Mistake, probe: Mapping[str, Any],
                    options: Mapping[str, Any]) -> Any:
    output = run_bounded(lambda: mistake.run(**{**probe, **options}), DEFAULT_TIME_LIMIT)
    return NOT_COMPARABLE if output is NOT_COMPARABLE else book.canonical(role, output)


def _without_options(probe: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in probe.items() if name not in options}
