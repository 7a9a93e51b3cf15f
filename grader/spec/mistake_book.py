"""What a known mistake is, what a family tells the stages about its mistakes, and one
failing call to compare them with.

A :class:`Mistake` is a runnable wrong implementation of one role: it computes exactly what a
student who made that mistake returns, so the grader can name it when its output equals the
student's. Each carries a ``hint`` that teaches and a ``witness``: a small input, as keyword
arguments of ``run``, on which its output departs from the reference's.

A family hands its mistakes over as one :class:`MistakeBook`: the entries, the reference each
role's mistakes are compared with, the canonical form of a role's values, the exercise's
conventions as keyword arguments of the runs, combinations of two mistakes, and which crash
messages identify a mistake. :class:`StudentMistake` and :class:`Students` are the
student-style submissions that make each mistake, for ``grade audit`` and the tests. An
:class:`Observation` is one failing call of the student's (its inputs, its output or crash),
which the mistakes stage runs every mistake against.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from grader.spec.models import Exercise

NOT_COMPARABLE = object()
"""What a canonical form gives for a value that cannot be compared (the wrong shape)."""


@dataclass(frozen=True, eq=False)
class Mistake:
    """One known mistake: what it is called, how to fix it, and what it computes.

    ``convention`` is set only for the entries that are another choice of one of the
    family's conventions (``{"tie_break": "first-seen"}``: another tie-break rule); the grader
    skips an entry whose convention is the exercise's own (its ``MistakeBook.options``).
    ``witness`` (and each of ``probes``) is read-only by convention.
    Entries compare and hash by identity, so they can key dicts and sets.
    """

    id: str
    title: str
    hint: str
    role: str
    run: Callable[..., Any]
    witness: Mapping[str, Any]
    convention: Mapping[str, Any] = field(default_factory=dict)
    probes: tuple[Mapping[str, Any], ...] = ()
    """More inputs (as ``witness``) on which this mistake answers otherwise than its look-alikes:
    the student's function is asked there before the name is offered
    (:mod:`grader.mistakes.truth`)."""

    def is_convention_of(self, options: Mapping[str, Any]) -> bool:
        """Whether this entry is the convention ``options`` (an exercise's) declare: then it
        is no mistake there."""
        return bool(self.convention) and all(options.get(name) == value
                                             for name, value in self.convention.items())

    def output_on(self, inputs: Mapping[str, Any]) -> Any:
        """This mistake's output on ``inputs`` (keyword arguments of ``run``)."""
        return self.run(**inputs)


def _as_it_is(role: str, value: Any) -> Any:
    return value


def _no_options(exercise: "Exercise", role: str) -> dict[str, Any]:
    return {}


def _no_combinations(role: str, options: Mapping[str, Any]) -> tuple[Mistake, ...]:
    return ()


def _never(role: str, crash: str) -> bool:
    return False


def _always(exercise: "Exercise", role: str, inputs: Mapping[str, Any], value: Any) -> bool:
    return True


def _as_given(exercise: "Exercise", role: str, inputs: Mapping[str, Any]) -> Mapping[str, Any]:
    return inputs


def _no_signals(role: str, observations: Sequence["Observation"], options: Mapping[str, Any]) -> list:
    return []


@dataclass(frozen=True)
class MistakeBook:
    """A family's mistakes and what comparing a student with them needs.

    ``reference[role]`` takes the same keyword arguments as that role's mistakes;
    ``canonical(role, value)`` is a value's comparable form, or :data:`NOT_COMPARABLE`;
    ``options(exercise, role)`` the exercise's conventions as keyword arguments of the runs;
    ``combinations(role, options)`` two mistakes at once, tried when no single one explains
    a milestone; ``telling_crash(role, message)`` whether a crash of the student's code is
    one a mistake reproduces by raising ``crash`` (e.g. no pair left to merge);
    ``trivial(exercise, role, inputs, value)`` whether ``value``, a student's answer on
    ``inputs``, is what a do-nothing implementation also returns (a family that does not say
    treats every answer as trivial: its names are then never evidence of work);
    ``signals(role, observations, options)`` structural facts about wrong answers that no
    mistake explains, as ``(id, title, message)``;
    ``in_form(exercise, role, inputs)`` a witness's inputs in the form the exercise's functions
    take (a corpus as texts or as word counts), for asking the student's function there.
    """

    entries: tuple[Mistake, ...] = ()
    reference: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    canonical: Callable[[str, Any], Any] = _as_it_is
    options: Callable[["Exercise", str], dict[str, Any]] = _no_options
    combinations: Callable[[str, Mapping[str, Any]], Sequence[Mistake]] = _no_combinations
    telling_crash: Callable[[str, str], bool] = _never
    crash: tuple[type[BaseException], ...] = ()
    trivial: Callable[["Exercise", str, Mapping[str, Any], Any], bool] = _always
    signals: Callable[[str, Sequence["Observation"], Mapping[str, Any]], list[tuple[str, str, str]]] = _no_signals
    in_form: Callable[["Exercise", str, Mapping[str, Any]], Mapping[str, Any]] = _as_given

    def for_role(self, role: Optional[str]) -> tuple[Mistake, ...]:
        """Every mistake of ``role``, in catalogue order (most specific first)."""
        return tuple(mistake for mistake in self.entries if mistake.role == role)

    def by_id(self, mistake_id: str) -> Mistake:
        found = next((mistake for mistake in self.entries if mistake.id == mistake_id), None)
        if found is None:
            raise KeyError(f"no catalogued mistake has id {mistake_id!r}")
        return found


EMPTY_BOOK = MistakeBook()


@dataclass(frozen=True)
class Observation:
    """One failing call: the role's inputs (merges as bare pairs, no options), and either the
    student's output or, for a crash, the failure message."""

    inputs: Mapping[str, Any]
    actual: Any = None
    crash: Optional[str] = None

    @property
    def crashed(self) -> bool:
        return self.crash is not None

    @cached_property
    def key(self) -> str:
        """Equal for observations of the same call with the same outcome."""
        return repr((self.inputs, self.actual, self.crash))

    def form(self, book: MistakeBook, role: str) -> Any:
        """The output's comparable form in ``book`` (worked out once: every mistake of the
        role is compared with it)."""
        forms = self.__dict__.setdefault("_forms", [])
        for known, known_role, form in forms:
            if known is book and known_role == role:
                return form
        form = book.canonical(role, self.actual)
        forms.append((book, role, form))
        return form

    def __getstate__(self) -> dict:
        return {name: value for name, value in self.__dict__.items() if name != "_forms"}


@dataclass(frozen=True)
class StudentMistake:
    """How a student who made catalogue mistake ``id`` writes their submission.

    ``parts`` replaces parts of the correct program (a part given per corpus form is a dict
    keyed by the form); ``settings`` changes a knob of the correct program; ``applies`` says
    whether the mistake can happen under an exercise's conventions at all.
    """

    id: str
    role: str
    parts: dict[str, object] = field(default_factory=dict)
    settings: dict[str, str] = field(default_factory=dict)
    applies: Callable[["Exercise"], bool] = lambda exercise: True
    convention: Mapping[str, Any] = field(default_factory=dict)
    """As :attr:`Mistake.convention`: another choice of a convention, no mistake where the
    exercise makes that choice."""
    published: bool = False
    """A pattern of published code: ``grade audit`` fails unless its own name is given."""


@dataclass(frozen=True)
class Students:
    """A family's student-style submissions: ``applicable(exercise)`` lists the mistakes a
    student of the exercise can make, ``source(exercise, mistake_id)`` writes the file (a
    correct one for None), and ``combined(exercise)`` the pairs of mistakes published code
    makes at once (graded too, and named together); ``combination(mistake_id)`` is the
    runnable :class:`Mistake` of such a pair."""

    applicable: Callable[["Exercise"], list[StudentMistake]]
    source: Callable[["Exercise", Optional[str]], str]
    combined: Callable[["Exercise"], list[StudentMistake]] = lambda exercise: []
    combination: Optional[Callable[[str], Mistake]] = None
