"""Exercise specs: the parts of the format every family shares, as spec records.

One YAML file describes one exercise (docs/architecture.md, "Exercise specs"). Every spec has
an id, texts, the family it belongs to, the functions students write (role -> function), its
milestones, sandbox limits, LMS feedback settings and its cases; each family's own fields
(conventions, case inputs, settings of its generated inputs and timed run) are declared by its
subclass of :class:`Exercise` in its folder, and :func:`json_schema` lists every family's
model. The models are plain records (:mod:`grader.spec.records`); loading
(``grader.spec.loading``) picks the model by family, checks the shape with the pydantic model
derived from it (:mod:`grader.spec.validators`) and the meaning with the rules, and raises a
:class:`SpecError` listing every problem as ``file:line: field: message``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, Optional

from grader.spec.problems import Document, Loc, Problem, format_loc
from grader.spec.records import ConfigDict, Field, PrivateAttr, SpecModel, field_check


Pair = tuple[str, str]

CHECK_KINDS = ("cases", "differential", "properties", "efficiency")
"""The check kinds every family may use; a family may add its own (``Family.check_kinds``)."""
ID_PATTERN = r"^[a-z0-9][a-z0-9-]*$"

CheckKind = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]*$",
                                 json_schema_extra={"examples": list(CHECK_KINDS)})]
Identifier = Annotated[str, Field(pattern=ID_PATTERN)]
ModuleName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
FamilyName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")]


class FunctionSpec(SpecModel):
    """A function the student writes: its name, full signature with type hints, and docstring."""

    name: str
    """The Python name of the function the student writes."""
    signature: str
    """The whole signature on one line, with type hints, e.g. "encode(word: str, merges: ...) -> list[str]"."""
    doc: str
    """The function's docstring in the stub; grade check rejects text that contradicts the conventions."""


class Check(SpecModel):
    """One kind of check in a milestone; weight splits the milestone's points among its checks."""

    kind: CheckKind
    """cases (the spec's cases), differential (generated inputs against the reference), properties (invariants), efficiency (a large input, timed), or a kind of the exercise's family (answers: an answers file's questions)."""
    weight: float = Field(default=1.0, gt=0)
    """Share of the milestone's points, relative to its other checks' weights."""


class Milestone(SpecModel):
    """A graded step: its points and the checks run on the function of one role."""

    id: Identifier
    """The milestone's id (lower-case letters, digits, hyphens), unique in the exercise."""
    title: str
    """One line naming the milestone in reports and the stub's TODOs."""
    points: float = Field(gt=0)
    """Points the milestone is worth."""
    function: Optional[str] = None
    """The role (a key of functions: train, encode, ...) whose function the milestone checks."""
    checks: list[Check] = Field(min_length=1)
    """The checks run, each with a weight."""

    def check(self, kind: str) -> Optional[Check]:
        return next((c for c in self.checks if c.kind == kind), None)


class Limits(SpecModel):
    """Sandbox limits for running student code."""

    call_seconds: float = Field(default=2.0, gt=0)
    """Wall-clock limit of one call of a student function, in seconds."""
    memory_mib: int = Field(default=512, gt=0)
    """Memory limit of the student's process, in MiB."""
    total_seconds: float = Field(default=120.0, gt=0)
    """Time budget of the whole grading of one submission, in seconds; each function may use
    an even share of it, so one stuck in a loop leaves the others theirs."""


class Feedback(SpecModel):
    """How hidden results are shown in LMS outputs (Gradescope visibility names)."""

    hidden_visibility: Literal["hidden", "after_due_date", "after_published", "visible"] = (
        "after_published"
    )
    """When LMS platforms show hidden checks' pass/fail (Gradescope visibility names)."""


class Case(SpecModel):
    """One input of the exercise; its family's case model says what the input holds."""

    id: Identifier
    """The case's id, unique in the exercise."""
    visibility: Literal["public", "hidden"]
    """public cases are doctests in the stub and show details; hidden ones report pass/fail only."""
    description: str = ""
    """What the case tests, for authors (hidden cases never show it to students)."""

    @property
    def public(self) -> bool:
        return self.visibility == "public"


class Exercise(SpecModel):
    """The fields every exercise spec has; each family's model adds its own (``grade schema``)."""

    model_config = ConfigDict(
        title="bpe-autograder exercise",
        json_schema_extra={"$schema": "https://json-schema.org/draft/2020-12/schema"},
    )
    role_order: ClassVar[tuple[str, ...]] = ()
    """The family's roles in the order stubs and audits list them."""

    id: Identifier
    """The exercise's id (lower-case letters, digits, hyphens): what stubs' '# exercise:' line names."""
    title: str
    """One line heading the stub and every report."""
    lesson: str
    """The lesson or problem the exercise comes from."""
    family: FamilyName
    """The exercise's family (grade list --families): the kind of tokenizer or answers file it grades; derived from kind: and the function roles when left out."""
    kind: Optional[str] = None
    """Older name of the family's submission kind: code, or answers (the hand family)."""
    student_file: str = "student.py"
    """The file name students submit."""
    instructions: str
    """The task in Markdown, at the top of the stub; grade check rejects text that contradicts the conventions."""
    allowed_imports: list[ModuleName] = Field(default_factory=list)
    """Third-party modules students may import besides the standard library (installed beside the grader), e.g. [regex]."""
    functions: dict[str, FunctionSpec] = Field(default_factory=dict)
    """The functions students write: role -> function (the family's roles: grade list --families)."""
    milestones: list[Milestone] = Field(min_length=1)
    """Graded steps with their points and checks."""
    limits: Limits = Limits.model_construct()
    """Sandbox limits for the student's code."""
    feedback: Feedback = Feedback.model_construct()
    """How hidden results are shown on LMS platforms."""
    cases: list[Case] = Field(default_factory=list)
    """Inputs with optional expected values: written ones are verified, missing ones computed."""

    _source: Optional[Path] = PrivateAttr(default=None)
    _file: str = PrivateAttr(default="<spec>")
    _document: Optional[Document] = PrivateAttr(default=None)
    _fingerprint: Optional[tuple[int, str]] = PrivateAttr(default=None)

    @classmethod
    @field_check("functions")
    def _in_role_order(cls, functions: dict[str, FunctionSpec]) -> dict[str, FunctionSpec]:
        order = {role: index for index, role in enumerate(cls.role_order)}
        return dict(sorted(functions.items(), key=lambda item: order.get(item[0], len(order))))

    @property
    def source(self) -> Optional[Path]:
        """The YAML file this exercise was loaded from, if any."""
        return self._source

    @property
    def fingerprint(self) -> str:
        """A digest of everything the exercise says, as validated: what work computed from it
        is keyed by. Worked out once per object; a copy (``model_copy(update=...)``) carries
        its original's, so it is held with the object's identity and a copy works out its own."""
        held = self._fingerprint
        if held is None or held[0] != id(self):
            held = (id(self), hashlib.sha256(self.model_dump_json().encode()).hexdigest())
            self._fingerprint = held
        return held[1]

    def keep_fingerprint(self, fingerprint: str) -> None:
        """Take ``fingerprint`` as this object's (one worked out for it before it was stored)."""
        self._fingerprint = (id(self), fingerprint)

    def problem(self, loc: Loc, message: str) -> "Problem":
        """A :class:`Problem` about the value at ``loc``, located in the spec's file."""
        line = self._document.line_of(loc) if self._document is not None else None
        return Problem(self._file, line, format_loc(loc), message)

    @property
    def total_points(self) -> float:
        return sum(m.points for m in self.milestones)

    def roles(self) -> dict[str, FunctionSpec]:
        """Role -> the function the student writes for it, in the family's order."""
        return dict(self.functions)

    def function(self, role: str) -> FunctionSpec:
        spec = self.functions.get(role)
        if spec is None:
            raise KeyError(f"exercise {self.id!r} has no {role!r} function")
        return spec

    def milestone(self, milestone_id: str) -> Milestone:
        for milestone in self.milestones:
            if milestone.id == milestone_id:
                return milestone
        raise KeyError(f"exercise {self.id!r} has no milestone {milestone_id!r}")

    @property
    def public_cases(self) -> list[Case]:
        return [case for case in self.cases if case.public]

    @property
    def hidden_cases(self) -> list[Case]:
        return [case for case in self.cases if not case.public]



def milestone_model(roles: tuple[str, ...], name: str, module: str) -> type[Milestone]:
    """The milestone model of a family whose roles are ``roles``: ``function`` is one of them
    (so ``grade schema`` lists them, and a misspelt role is named at once). Assign it to
    ``name`` in ``module`` (the family's spec module), so exercises pickle."""
    return type(name, (Milestone,), {  # type: ignore[return-value]
        "__module__": module,
        "__qualname__": name,
        "__doc__": Milestone.__doc__,
        "__annotations__": {"function": Optional[Literal[roles]]},  # type: ignore[valid-type]
        "function": Field(default=None, description="The role (a key of functions) whose "
                          "function the milestone checks."),
    })


def functions_field(roles: tuple[str, ...]) -> Any:
    """The ``functions`` field of a family whose roles are ``roles``: role -> function, any
    subset of them (the rules name an unknown role and where roles come from)."""
    return Field(default_factory=dict, description=(
        f"The functions students write: role -> function; the roles are {', '.join(roles)}."),
        json_schema_extra={"propertyNames": {"enum": list(roles)}})
