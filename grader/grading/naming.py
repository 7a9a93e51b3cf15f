"""Naming mistakes per milestone: every visible failing input noted, then named together.

Checks do not name mistakes one input at a time. Each visible failing result notes what the
student's function did on its input (:meth:`MilestoneObservations.note`); once every check
of the milestone has run (visible calls answered right are noted too: they contradict
the mistakes that would have got them wrong), :meth:`MilestoneObservations.settle` asks
:func:`grader.mistakes.narrowing.name_for_milestone` for the mistakes that explain those
inputs and contradict none, and gives each result the surviving names that explain its own
inputs, with the evidence. A check run on its own (no collector) is named from its own inputs.
Hidden results are never noted: what their inputs show must not leak through the names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

from grader.mistakes.kinds import EMPTY_BOOK, MistakeBook
from grader.mistakes.narrowing import Named, Observation, key, name_for_milestone
from grader.result import CheckResult, Diagnosis
from grader.spec import Exercise
from grader.spec.family import family_of


def book_of(exercise: Exercise) -> MistakeBook:
    """The mistakes of ``exercise``'s family (none for a family that catalogues none)."""
    return family_of(exercise).mistakes or EMPTY_BOOK


def observed(inputs: Mapping[str, Any], answer: Any) -> Observation:
    """An observation of one call: its value, or its failure when it has none."""
    if answer.ok:
        return Observation(dict(inputs), actual=answer.value)
    return Observation(dict(inputs), crash=answer.failure or answer.kind)


@dataclass
class MilestoneObservations:
    """The failing inputs of one milestone's visible checks, and which result each came from."""

    exercise: Exercise
    role: str
    noted: list[tuple[CheckResult, list[Observation]]] = field(default_factory=list)
    agreeing: list[Observation] = field(default_factory=list)  # visible calls answered right

    def note(self, result: CheckResult, observations: Sequence[Observation]) -> None:
        if result.visibility != "visible" or not observations:
            return
        if result.passed:
            self.agreeing.extend(o for o in observations if not o.crashed)
        else:
            self.noted.append((result, list(observations)))

    def settle(self) -> list[Named]:
        """Give each noted result the milestone's surviving names that explain its inputs."""
        everything = [o for _, observations in self.noted for o in observations]
        book = book_of(self.exercise)
        named = name_for_milestone(book, self.role, everything, book.options(self.exercise, self.role),
                                   agreeing=self.agreeing)
        for result, observations in self.noted:
            mine = {key(o) for o in observations}
            result.diagnoses = [_diagnosis(name) for name in named if name.explained_keys & mine]
        return named


def note(context: Any, result: CheckResult, role: str, observations: Sequence[Observation]) -> CheckResult:
    """Note ``result``'s observations with the milestone's collector, or name them right away."""
    collector: Optional[MilestoneObservations] = getattr(context, "observations", None)
    if collector is not None:
        collector.note(result, observations)
    elif result.visibility == "visible" and not result.passed:
        alone = MilestoneObservations(context.exercise, role)
        alone.note(result, observations)
        alone.settle()
    return result


def _diagnosis(name: Named) -> Diagnosis:
    mistake = name.mistake
    return Diagnosis(id=mistake.id, title=mistake.title, message=mistake.hint,
                     evidence=name.evidence())
