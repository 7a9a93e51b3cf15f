"""The family record: everything the stages need of one kind of exercise, typed in one place.

A family is one kind of exercise: an algorithm students implement (character BPE, byte-level
BPE, WordPiece, ...) or a kind of answers file. Everything a family knows lives in its own
folder under ``grader/families/`` (or in a course folder, see docs/families.md) and is
handed to the stages as one :class:`Family` record holding :class:`Role` records. Each field
below says what it is for; the types its hooks take and give are in
:mod:`grader.spec.hooks` and :mod:`grader.spec.mistake_book`, and a family imports all of
them, with the helpers it may call, from ``grader.families.api``. The registry
(:mod:`grader.spec.registry`) finds a family and checks its record when it loads it
(:mod:`grader.spec.family_check`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from grader.result import CheckResult
from grader.spec.hooks import (
    AuditReport,
    Calls,
    CaseItem,
    CaseLabel,
    CheckContext,
    CheckKind,
    Doctest,
    Generated,
    Property,
    StubText,
    SubmissionKind,
    Verification,
)
from grader.spec.mistake_book import MistakeBook, Students

if TYPE_CHECKING:
    from grader.spec.models import Case, Exercise
    from grader.spec.problems import Loc

DOCS = "docs/families.md"

SpecProblems = Callable[["Exercise"], Iterable[tuple["Loc", str]]]
"""Problems of a spec as ``(location, message)``: a location is a path of keys and indexes."""
AheadWork = Iterable[tuple[tuple, Callable[..., Any]]]
"""Work a grading's helper may do before the checks, as ``(key, compute)`` pairs."""


class FamilyError(LookupError):
    """A family that is not registered, cannot be imported, or does not fill its record."""


def every_case(case: "Case") -> bool:
    """A role's ``serves`` when every case holds an input for it (trainers: every case has a corpus)."""
    return True


def no_problems(exercise: "Exercise") -> Iterable[tuple["Loc", str]]:
    """A family's rules when it has none beyond the ones every spec has."""
    return ()


def no_conventions(exercise: "Exercise") -> StubText:
    """A stub's conventions when the family states none."""
    return StubText(conventions=[])


def no_do_nothing(exercise: "Exercise") -> Mapping[str, str]:
    """No do-nothing submissions to audit."""
    return {}


def no_work_ahead(exercise: "Exercise", secret: Optional[str], time_reference: bool) -> AheadWork:
    """No work for a grading's helper beyond the generated inputs."""
    return ()


def hidden_placeholder(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """A stand-in case (without id) for one with shape errors: hidden, holding nothing."""
    return {"visibility": "hidden"}


@dataclass(frozen=True)
class Role:
    """One function a student writes: what it is called with, how it is judged and taught."""

    name: str
    """The role's id, the key of ``functions:`` in a spec (``train``, ``segment``, ...)."""
    arguments: tuple[str, ...]
    """The names its signature must take, in order."""
    checks: frozenset[str]
    """The check kinds a milestone may run on it (built-in kinds or the family's own)."""
    send: Callable[["Exercise", Sequence[Any]], list]
    """``send(exercise, args)``: the arguments as the student's function receives them."""
    shape: Callable[["Exercise", Any, str], Any]
    """``shape(exercise, value, function_name)``: the answer in canonical form, or raises
    :class:`~grader.spec.hooks.ShapeError` saying what was expected."""
    case_items: Callable[[Calls, "Case", CaseLabel], list[CaseItem]]
    """``case_items(calls, case, label)``: the graded items of one case, each with its judge."""
    stub_examples: Callable[["Exercise", str, "Case", Doctest], list[str]]
    """``stub_examples(exercise, function_name, case, doctest)``: the doctest blocks of a
    public case in the stub."""
    serves: Callable[["Case"], bool] = every_case
    """Whether a case holds an input for this role."""
    case_field: str = "corpus"
    """The case field that holds its input, for messages."""
    how_to_serve: str = "add a case"
    """What an author adds to give it an input, for messages."""
    audit_advice: str = "a case whose corpus shows it"
    """What input shows a mistake of it, when an audit finds a gap."""
    depends_on: frozenset[str] = frozenset()
    """Roles of the same family that a student's version of this function calls."""
    generated: Optional[Generated] = None
    """How the differential and property checks make, judge and show inputs (required when
    ``checks`` holds either)."""
    properties: Optional[Callable[[Calls], list[Property]]] = None
    """``properties(calls)``: the laws a right answer obeys (required with ``properties``)."""
    timed: Optional[Callable[[CheckContext], list[CheckResult]]] = None
    """``timed(context)``: the efficiency check's run and verdict (required with
    ``efficiency``)."""
    no_work: str = "no points until the function does real work"
    """Why points are withheld from code that shows no real work."""


@dataclass(frozen=True)
class Family:
    """Everything the stages need of one family: its roles and the hooks each stage calls."""

    name: str
    """The value of ``family:`` in its specs."""
    summary: str
    """One line for ``grade list --families``."""
    roles: tuple[Role, ...]
    """The functions its students write (none for a family of answers files)."""
    exercise: type["Exercise"]
    """Its spec model: a subclass of :class:`grader.spec.models.Exercise` whose ``family``
    field defaults to :attr:`name` and whose ``role_order`` lists the roles in order."""
    builds_on: tuple[str, ...] = ()
    """Families whose modules it imports (no other family may be imported)."""
    kind: str = "code"
    """The legacy ``kind:`` value that names this family in a spec without ``family:``."""
    spec_problems: SpecProblems = no_problems
    """``spec_problems(exercise)``: the family's semantic rules of a spec."""
    prose_problems: SpecProblems = no_problems
    """``prose_problems(exercise)``: texts of the spec (instructions, docs, signatures) that
    contradict its conventions."""
    verify: Optional[Callable[["Exercise"], Verification]] = None
    """``verify(exercise)``: what ``grade check`` finds of the expected values an author
    wrote (None: every expected value is computed by the reference)."""
    conventions: Callable[["Exercise"], StubText] = no_conventions
    """``conventions(exercise)``: the stub's convention lines, tie paragraph and note."""
    stub: Optional[Callable[["Exercise", Optional[str], Optional[str]], str]] = None
    """``stub(exercise, student, secret)``: the starting file, for a family whose students
    hand in something else than code (None: the code stub from the roles)."""
    roster_stubs: Optional[Callable[["Exercise", list[str], Optional[str]], dict[str, str]]] = None
    """``roster_stubs(exercise, students, secret)``: student -> starting file for a whole
    roster at once, drawn so classmates differ (None: ``stub`` for each student alone)."""
    submission: Optional[SubmissionKind] = None
    """How a submission is opened (None: Python code, run in the sandbox)."""
    check_kinds: Mapping[str, CheckKind] = field(default_factory=dict)
    """Check kinds of the family's own, by the name specs give them."""
    mistakes: Optional[MistakeBook] = None
    """Its catalogued mistakes and what comparing a student's answer with them needs
    (required when it has roles)."""
    students: Optional[Students] = None
    """The student-style files that make each mistake, for ``grade audit`` (required when
    it has roles)."""
    do_nothing: Callable[["Exercise"], Mapping[str, str]] = no_do_nothing
    """``do_nothing(exercise)``: kind -> source of a submission that does nothing (none may
    earn a point)."""
    ahead: Callable[["Exercise", Optional[str], bool], AheadWork] = no_work_ahead
    """``ahead(exercise, secret, time_reference)``: work a grading's helper does first."""
    audit: Optional[Callable[..., AuditReport]] = None
    """``audit(exercise, mistake_ids=None)``: replaces the code audit (required for a family
    without roles)."""
    new_spec: Optional[Callable[..., str]] = None
    """``new_spec(exercise_id, tie_break=..., corpus_form=..., base=...)``: ``grade new``'s
    spec text (None: ``grade new`` does not offer the family)."""
    trace: Optional[Callable[["Exercise", Any, int], Mapping[str, Any]]] = None
    """``trace(exercise, corpus, size)``: the reference's run on ``corpus`` (texts or word
    counts; ``size`` merges, or the text segmented for a family without merges) step by step,
    in the step view's shape (:mod:`grader.report.step_view`), for ``grade trace --html``
    (None: the family has no trace). A judge hands the same view of a failing run in
    :attr:`~grader.spec.hooks.Verdict.steps`."""
    placeholder_case: Callable[[Mapping[str, Any]], Mapping[str, Any]] = hidden_placeholder
    """A valid stand-in (without id) for a case with shape errors, given the raw spec."""

    def role(self, name: str) -> Role:
        for role in self.roles:
            if role.name == name:
                return role
        raise KeyError(f"family {self.name!r} has no role {name!r}")

    @property
    def role_names(self) -> tuple[str, ...]:
        return tuple(role.name for role in self.roles)

    def has_role(self, name: Optional[str]) -> bool:
        return any(role.name == name for role in self.roles)


__all__ = ["DOCS", "AheadWork", "Family", "FamilyError", "Role", "SpecProblems", "every_case"]
