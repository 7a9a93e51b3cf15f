"""The values a family's hooks take and give: the contract's types, in one place.

A family's record (:mod:`grader.spec.family`) holds hooks the stages call; these are the types
they pass. A judge is handed the student's :class:`Calls` and returns a :class:`Verdict`; a
case becomes :class:`CaseItem` objects named by a :class:`CaseLabel`; generated inputs are
described by :class:`Generated`, a failure on one is a :class:`Failure` shown as
:class:`Shown`; a law is a :class:`Property`; a check kind gets a :class:`CheckContext`; a
submission is opened into an :class:`Opened` by a :class:`SubmissionKind`; a stub's prose is a
:class:`StubText`, its doctests written with a :class:`Doctest`; ``grade check``'s findings
are a :class:`Verification`, ``grade audit``'s an :class:`AuditReport`; a value of the wrong
shape raises :class:`ShapeError`. The
mistake types are in :mod:`grader.spec.mistake_book`. Families reach all of them through
``grader.families.api``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Optional, Protocol, TypeVar, Union

from grader.result import CheckResult, GradeReport, Visibility
from grader.spec.mistake_book import Observation
from grader.spec.problems import Problem

if TYPE_CHECKING:
    from grader.spec.models import Check, Exercise, Milestone

T = TypeVar("T")
Kept = TypeVar("Kept")


class ShapeError(ValueError):
    """A returned value does not have the shape the exercise asks for."""

    kind = "shape"


# --------------------------------------------------------------------------- calling the student


class CallOutcome(Protocol):
    """What the sandbox says of one call: a value, or an error of some kind."""

    ok: bool
    value: Any
    error: Optional[str]
    kind: str


class SandboxLike(Protocol):
    """The part of a sandbox a check calls through."""

    def call(self, name: str, args: list, timeout: Optional[float] = None, *,
             echo_args: bool = False, measure_cpu: bool = True) -> CallOutcome: ...


@dataclass(frozen=True)
class StudentAnswer:
    """What one call of a student function gave: a canonical value, or why there is none."""

    value: Any = None
    failure: Optional[str] = None
    kind: str = "ok"  # the sandbox outcome kind, or "shape" for a value of the wrong shape
    modified: Optional[str] = None  # which argument the call changed, in words
    returned: Any = None  # for a value of the wrong shape: that value, as plain data

    @property
    def ok(self) -> bool:
        return self.failure is None


class Calls(Protocol):
    """The student's functions of one submission, as a judge calls them (the grading stage's
    ``StudentCalls``). ``call`` makes a fresh call; ``remembered`` answers an input the
    grading asked before from memory (a generated-input judge must use it, so the checks of
    one role share their calls and a batched call made ahead serves the judge)."""

    exercise: "Exercise"
    box: SandboxLike
    file_name: str
    secret: Optional[str]

    @property
    def seed(self) -> Optional[int]: ...

    def function_name(self, role: str) -> str: ...

    def missing_message(self, role: str) -> Optional[str]: ...

    def never_returned(self, role: str) -> Optional[str]: ...

    def call(self, role: str, *args: Any) -> StudentAnswer: ...

    def remembered(self, role: str, *args: Any) -> StudentAnswer: ...

    def calling_the_box(self) -> None: ...

    def prefetch(self, wanted: Iterable[tuple[str, tuple]]) -> None: ...

    def kept_open(self, key: str, enter: Callable[[contextlib.ExitStack], Kept]) -> Kept: ...


# --------------------------------------------------------------------------- cases


@dataclass(frozen=True)
class Verdict:
    """How one item went; ``observation`` is what a failing call did, for naming its mistake."""

    passed: bool
    message: str = ""
    details: Optional[dict[str, Any]] = None
    observation: Optional[Observation] = None
    trivial: bool = False  # passed only against an answer a do-nothing function gives
    # The failing run beside the reference's, step by step (the shape documented in
    # grader.report.step_view), made only when the item is visible and failed: a hidden
    # item's steps are never computed.
    steps: Optional[Callable[[], Optional[dict[str, Any]]]] = None


@dataclass(frozen=True)
class CaseItem:
    """One graded input of a case (a train case is one item; each word of an encode case one)."""

    check_id: str
    title: str
    visibility: Visibility
    judge: Callable[[], Verdict]
    real_work: bool = False  # its right answer is not what a do-nothing function returns


@dataclass(frozen=True)
class CaseLabel:
    """How one case is named in results: ``check_id`` (``cases:ID`` or ``cases:hidden-N``)
    and ``name`` (its id, or ``Hidden case N``), so hidden cases say nothing of their inputs."""

    check_id: str
    name: str
    visibility: Visibility

    @property
    def public(self) -> bool:
        return self.visibility == "visible"

    def title(self, public_title: str) -> str:
        """``name: public_title`` for a public case, the bare name for a hidden one."""
        return f"{self.name}: {public_title}" if self.public else self.name


# --------------------------------------------------------------------------- generated inputs


@dataclass
class Failure(Generic[T]):
    """A generated input on which the student's code failed, and what happened."""

    example: T
    answer: StudentAnswer
    expected: Any = None
    explanation: str = ""
    first: Optional["Failure[T]"] = None  # the unshrunk failure the search started from
    others: list["Failure[T]"] = field(default_factory=list)  # later failing generated inputs
    inputs: Optional[dict[str, Any]] = None  # what ``answer`` was computed from, if not the example
    crashed: bool = False  # the call gave no answer at all, so nothing was checked


Judge = Callable[[T], Optional[Failure[T]]]
"""Judges one input: None when the student's answer is right, else the :class:`Failure`."""


@dataclass(frozen=True)
class Shown:
    """How a differential failure reads: the expected and actual values as JSON, what
    differs in words, and the first differing step (documented in ``grader.report.details``)."""

    expected: Any
    actual: Any = None
    what: str = ""
    difference: Optional[dict[str, Any]] = None


@dataclass(frozen=True)
class Generated:
    """How one role's inputs are generated, judged against the reference, and shown.

    ``strategy(exercise)`` and ``targeted(exercise)`` make the inputs; ``count(exercise)`` is
    how many the differential check judges, ``settings(exercise)`` what they depend on;
    ``judge(calls)`` compares the student's answer with the reference's on one input (it must
    ask with ``calls.remembered``); ``call_text(calls, example)`` writes the call as Python,
    ``given(calls, example)`` the input as JSON, ``observed(exercise, example)`` as the keyword
    arguments of a mistake's run; ``shown(calls, failure)`` says what differs;
    ``real_work(exercise, example)`` whether its right answer is more than a do-nothing one;
    ``ahead(exercise, example)`` the reference values a helper computes for it, which
    ``install`` puts where the judges look them up; ``display(value)`` shows an answer as JSON
    when it is not JSON as it is.
    """

    strategy: Callable[["Exercise"], Any]
    targeted: Callable[["Exercise"], list]
    count: Callable[["Exercise"], int]
    settings: Callable[["Exercise"], tuple]
    judge: Callable[[Calls], Judge]
    call_text: Callable[[Calls, Any], str]
    given: Callable[[Calls, Any], dict]
    observed: Callable[["Exercise", Any], dict]
    shown: Callable[[Calls, Failure], Shown]
    real_work: Callable[["Exercise", Any], bool] = lambda exercise, example: False
    ahead: Callable[["Exercise", Any], Mapping] = lambda exercise, example: {}
    install: Callable[[Mapping], None] = lambda values: None
    display: Optional[Callable[[Any], Any]] = None
    """An answer as JSON, for a value JSON cannot hold as it is (a dict keyed by pairs)."""
    reductions: Optional[Callable[["Exercise", Any], Iterable[Any]]] = None
    """The inputs one step smaller than one, each one an input the role's spec allows; given, a
    failure is shrunk over them in batched rounds (:mod:`grader.grading.shrink`) rather than by
    Hypothesis."""


@dataclass(frozen=True)
class Property:
    """A law every right answer obeys: its judge returns None where it holds, else why not."""

    id: str
    title: str
    judge: Judge


# --------------------------------------------------------------------------- check kinds


class FailingInputs(Protocol):
    """A milestone's failing inputs, noted per result for naming its mistakes once."""

    def note(self, result: CheckResult, observations: Any) -> None: ...


@dataclass(frozen=True)
class CheckContext:
    """What every check kind is given: whom to call, against what, for how many points."""

    calls: Calls
    box: SandboxLike
    exercise: "Exercise"
    milestone: "Milestone"
    check: "Check"
    points: float
    observations: Optional[FailingInputs] = None  # failing inputs, for naming mistakes


@dataclass(frozen=True)
class CheckKind:
    """A kind of check: its title in reports, and its results for a context."""

    title: str
    run: Callable[[CheckContext], list[CheckResult]]


# --------------------------------------------------------------------------- submissions


@dataclass
class Opened:
    """A submission ready to grade: ``calls`` answers the checks (None when nothing loaded)."""

    calls: Optional[Calls] = None
    box: Optional[SandboxLike] = None
    layers: dict[str, bool] = field(default_factory=dict)
    not_gradable: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)  # problems that still let it be graded
    notes: list[str] = field(default_factory=list)  # how the file was read and run, for the student
    blocked: Callable[["Milestone"], Optional[str]] = lambda milestone: None
    output: Callable[[], str] = lambda: ""


@dataclass(frozen=True)
class NoSubmitter:
    """A door (a platform, ``grade batch``) that names no one student as who handed a file in.

    ``reason`` says why, as a clause that completes "the file was not graded on a variant:"
    ("Gradescope lists 2 submitters for it (a group submission)"). A kind whose work is per
    student then gives no credit that depends on a student, and says so; it never takes the
    file's own word for who the student is."""

    reason: str


Submitter = Optional[Union[str, NoSubmitter]]
"""Who handed a file in: their id as the door names them (a ``str``, valid or not), a
:class:`NoSubmitter` when the door names no one it can use, or None where there is no door at
all (``grade submit`` run by the student: the file's own ``student:`` line is then taken)."""


class SubmissionKind(Protocol):
    """What students hand in: its file suffixes, the file-name rule of specs, how to open it."""

    suffixes: tuple[str, ...]
    noun: str  # what it is called in messages: "a Python file or notebook"

    def file_name_problem(self, name: str) -> Optional[str]: ...

    def open(self, stack: contextlib.ExitStack, path: Path, exercise: "Exercise", *,
             seed_secret: Optional[str], strict_sandbox: bool, helper: bool,
             submitter: Submitter = None, content: Optional[bytes] = None) -> Opened:
        """``submitter`` is who handed the file in, as the platform or the batch knows them
        (:data:`Submitter`; a kind whose submissions are not per student ignores it);
        ``content`` is the file's bytes when the caller has read them already, so the file is
        read once."""
        ...


# --------------------------------------------------------------------------- authoring


@dataclass(frozen=True)
class StubText:
    """What a family says in a stub's conventions: one sentence per line, and the ties."""

    conventions: list[str]
    ties: str = ""
    tie_example: str = ""
    note: str = ""
    """A paragraph after the grading summary (what earns points, say), already wrapped."""


@dataclass(frozen=True)
class Doctest:
    """How a role writes its doctests: ``statement(variable, value)`` is ``>>> v = value``,
    ``call(expression, value)`` the expression and its expected output."""

    statement: Callable[[str, Any], str]
    call: Callable[[str, Any], str]


@dataclass
class Verification:
    """What a family found verifying the expected values a spec states."""

    problems: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    verified: int = 0
    computed: int = 0
    summary: Optional[str] = None
    """A summary of its own for a clean spec (e.g. of an answers file), else the usual one."""


# --------------------------------------------------------------------------- audits


class UnknownMistake(ValueError):
    """A mistake id was asked for that the catalogue does not have for this exercise."""


@dataclass
class MistakeAudit:
    """How the exercise's checks fared against one known mistake."""

    id: str
    title: str
    role: str
    affected: list[str]
    failed: list[str] = field(default_factory=list)
    catching_checks: dict[str, list[str]] = field(default_factory=dict)
    named_in: list[str] = field(default_factory=list)
    error: Optional[str] = None
    witness: dict[str, Any] = field(default_factory=dict)
    advice: str = "a case that shows it"  # what input to add when a milestone misses it
    kept: dict[str, str] = field(default_factory=dict)  # affected milestone -> "points/max"
    # affected milestones that pass some check yet earn nothing: real work zeroed
    unpaid: list[str] = field(default_factory=list)
    # the other mistakes the diagnoses of its failing visible checks name: false names
    other_names: list[str] = field(default_factory=list)
    published: bool = False  # a pattern of published code: it must be named, and alone

    @property
    def truly_named(self) -> bool:
        """Named where it fails and nothing else named; a published pattern must be named,
        any other mistake only must not be misnamed."""
        return not self.other_names and (self.named or not self.published
                                         or self.error is not None or not self.failed)

    @property
    def missed(self) -> list[str]:
        """Affected milestones the mistaken submission passes: gaps in the exercise."""
        return [milestone for milestone in self.affected if milestone not in self.failed]

    @property
    def caught(self) -> bool:
        return self.error is None and not self.missed

    @property
    def fair(self) -> bool:
        """Whether every affected milestone that passes some check earns for it."""
        return self.error is not None or not self.unpaid

    @property
    def named(self) -> bool:
        """Whether a visible failing check's diagnosis names this mistake."""
        return bool(self.named_in)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "role": self.role,
            "affected": self.affected,
            "failed": self.failed,
            "missed": self.missed,
            "caught": self.caught,
            "catching_checks": self.catching_checks,
            "named_in": self.named_in,
            "other_names": self.other_names,
            "published": self.published,
            "kept": self.kept,
            "unpaid": self.unpaid,
            "error": self.error,
        }


@dataclass
class ReferenceAudit:
    """The correct student-style submission's grading."""

    score: float
    max_score: float
    failed_checks: list[str]
    errors: list[str]

    @property
    def full_marks(self) -> bool:
        return not self.failed_checks and not self.errors and self.score == self.max_score

    def to_json(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "max_score": self.max_score,
            "full_marks": self.full_marks,
            "failed_checks": self.failed_checks,
            "errors": self.errors,
        }


@dataclass
class AuditReport:
    """What ``grade audit`` found: the correct submission's grading, each mistake's, and
    what do-nothing submissions earned."""

    exercise: str
    reference: ReferenceAudit
    mistakes: list[MistakeAudit]
    unexpected: dict[str, list[str]] = field(default_factory=dict)
    reports: dict[str, GradeReport] = field(default_factory=dict, repr=False)
    # do-nothing kind -> the checks that gave it points, as "milestone/check: points"
    do_nothing: dict[str, list[str]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Full marks for the reference, every mistake caught and named by no other name (a
        published pattern named by its own), nothing else failing, and not a point for doing
        nothing."""
        return (
            self.reference.full_marks
            and all(m.caught and m.fair and m.truly_named for m in self.mistakes)
            and not self.unexpected
            and not any(self.do_nothing.values())
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "exercise": self.exercise,
            "ok": self.ok,
            "reference": self.reference.to_json(),
            "mistakes": [m.to_json() for m in self.mistakes],
            "unexpected_failures": self.unexpected,
            "do_nothing": self.do_nothing,
        }


def points_earned(report: GradeReport) -> list[str]:
    """Every check that gave ``report`` points, as ``milestone/check: points``."""
    return [f"{milestone.id}/{check.id}: {check.score:g}"
            for milestone in report.milestones for check in milestone.checks if check.score > 0]
