"""Naming mistakes per milestone: every visible failing input noted, then named together.

Checks do not name mistakes one input at a time. Each visible failing result notes what the
student's function did on its input (:meth:`MilestoneObservations.note`); once every check
of the milestone has run (visible calls answered right are noted too: they contradict
the mistakes that would have got them wrong), :meth:`MilestoneObservations.settle` asks
:func:`grader.mistakes.narrowing.name_for_milestone` for the mistakes that explain those
inputs and contradict none, and gives each result the surviving names that explain its own
inputs, with the evidence. A check run on its own (no collector) is named from its own inputs.
Hidden results are never noted: what their inputs show must not leak through the names.

Settling applies the truth check (:mod:`grader.mistakes.truth`) with the student's own
function (``ask``): a noted failing input that does not fail again when re-run is dropped
(and a result whose every input is dropped no longer shows one), and of the names that
explain the rest, only those that reproduce the student's answers on the inputs that tell
them apart are offered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

from grader.spec.mistake_book import EMPTY_BOOK, MistakeBook
from grader.mistakes.narrowing import Named, key, name_for_milestone, usable, wrong_outputs
from grader.mistakes.truth import Ask, counterexample_holds, reproducing
from grader.spec.mistake_book import Observation
from grader.result import CheckResult, Diagnosis
from grader.spec import Exercise
from grader.spec.registry import family_of, role_of


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
    ask: Optional[Ask] = None  # the student's function, asked again (the truth check)
    # Results whose message states what their own check re-ran and saw (a property broken:
    # two calls that differ, an argument changed), not that an answer is wrong: the truth
    # check keeps their message and only leaves their inputs out of naming.
    self_verified: set[int] = field(default_factory=set)

    def note(self, result: CheckResult, observations: Sequence[Observation],
             self_verified: bool = False) -> None:
        if result.visibility != "visible" or not observations:
            return
        if result.passed:
            self.agreeing.extend(o for o in observations if not o.crashed)
        else:
            self.noted.append((result, list(observations)))
            if self_verified:
                self.self_verified.add(id(result))

    def work_explained(self, named: Sequence[Named]) -> Optional[Named]:
        """The first of ``named`` that is evidence of real work, or None.

        It must explain every visible input the student got wrong (none may be unexplained or
        of the wrong shape), and on at least one of them the student's answer is not what
        do-nothing code returns: the mistake was made on top of an algorithm that works."""
        everything = [o for _, observations in self.noted for o in observations]
        book = book_of(self.exercise)
        if not everything or not all(usable(book, self.role, o) for o in everything):
            return None
        options = book.options(self.exercise, self.role)
        wrong = {key(o): o for o in wrong_outputs(book, self.role, everything, options)}
        for name in named:
            if name.explained_keys != set(wrong):
                continue
            if any(not o.crashed and not _trivial(book, self.exercise, self.role, o)
                   for k, o in wrong.items() if k in name.explained_keys):
                return name
        return None

    def answers_trivial(self) -> bool:
        """Whether every visible answer the student got wrong is a crash or what do-nothing
        code returns: then nothing the milestone saw shows work."""
        everything = [o for _, observations in self.noted for o in observations]
        book = book_of(self.exercise)
        return bool(everything) and all(o.crashed or _trivial(book, self.exercise, self.role, o)
                                        for o in everything)

    def settle(self) -> list[Named]:
        """Give each noted result the milestone's surviving names that explain its inputs,
        once its failing inputs are re-run and the names that disagree are asked apart."""
        book = book_of(self.exercise)
        options = book.options(self.exercise, self.role)
        self._drop_false_counterexamples(book, options)
        everything = [o for _, observations in self.noted for o in observations]
        named = name_for_milestone(book, self.role, everything, options, agreeing=self.agreeing)
        if not any(n.partial for n in named):  # a partial name says itself it is not all
            named = reproducing(book, self.role, named, options, self.ask,
                                lambda inputs: book.in_form(self.exercise, self.role, inputs))
        for result, observations in self.noted:
            mine = {key(o) for o in observations}
            result.diagnoses = [_diagnosis(name) for name in named if name.explained_keys & mine]
        if not named:
            self._signal(book)
        return named

    def _drop_false_counterexamples(self, book: MistakeBook, options: Mapping[str, Any]) -> None:
        """Keep only the noted inputs that fail again when re-run; a result left with none
        no longer shows the input it was found on."""
        kept: list[tuple[CheckResult, list[Observation]]] = []
        for result, observations in self.noted:
            true = [o for o in observations
                    if counterexample_holds(book, self.role, o, options, self.ask)]
            if true:
                kept.append((result, true))
            elif id(result) not in self.self_verified:
                result.details = None
                result.message = (
                    "Failed, but the input it was found on is not shown: asked again on it, "
                    "your function did not give the failing answer recorded.")
        self.noted = kept

    def _signal(self, book: MistakeBook) -> None:
        """No mistake explains the inputs: give the results what their answers structurally
        show, if anything (the family's ``signals``)."""
        wrong = [o for _, observations in self.noted for o in observations if not o.crashed]
        try:
            found = book.signals(self.role, wrong, book.options(self.exercise, self.role))
        except Exception:  # noqa: BLE001 - a signal is a bonus; without one the report stands
            return
        for signal_id, title, message in found[:1]:
            for result, _ in self.noted:
                result.diagnoses = [Diagnosis(id=signal_id, title=title, message=message)]


def asker(calls: Any, role: str) -> Ask:
    """The student's ``role`` function asked on keyword inputs (its arguments by name, as the
    grader's canonical forms), answered from memory when asked before."""
    def ask(inputs: Mapping[str, Any]) -> Optional[Observation]:
        arguments = role_of(calls.exercise, role).arguments
        if not all(name in inputs for name in arguments):
            return None
        answer = calls.remembered(role, *(inputs[name] for name in arguments))
        given = {name: inputs[name] for name in arguments}
        if answer.kind.startswith("shape") and answer.returned is not None:
            return Observation(given, actual=answer.returned)  # the value, for its canonical form
        return observed(given, answer)

    return ask


def note(context: Any, result: CheckResult, role: str, observations: Sequence[Observation],
         self_verified: bool = False) -> CheckResult:
    """Note ``result``'s observations with the milestone's collector, or name them right away;
    ``self_verified``: the result's message rests on what its own check re-ran (a property)."""
    collector: Optional[MilestoneObservations] = getattr(context, "observations", None)
    if collector is not None:
        collector.note(result, observations, self_verified)
    elif result.visibility == "visible" and not result.passed:
        calls = getattr(context, "calls", None)
        alone = MilestoneObservations(context.exercise, role,
                                      ask=asker(calls, role) if calls is not None else None)
        alone.note(result, observations, self_verified)
        alone.settle()
    return result


def _trivial(book: MistakeBook, exercise: Exercise, role: str, observation: Observation) -> bool:
    try:
        return book.trivial(exercise, role, observation.inputs, observation.actual)
    except Exception:  # noqa: BLE001 - an answer that cannot be judged shows no work
        return True


def _diagnosis(name: Named) -> Diagnosis:
    mistake = name.mistake
    return Diagnosis(id=mistake.id, title=mistake.title, message=mistake.hint,
                     evidence=name.evidence())
