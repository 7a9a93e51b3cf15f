"""Exercise specs: the validated models of an exercise YAML file, and loading them.

One YAML file describes one exercise (DESIGN.md §4). :func:`load_exercise` reads it, checks its
shape with pydantic and its meaning with :func:`semantic_problems`, and raises a
:class:`SpecError` listing every problem as ``file:line: field: message``. Expected values an
author leaves out are filled in elsewhere (``grader.spec.expected``), never here.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, WithJsonSchema

from grader.spec.problems import Loc, Problem, format_loc
from grader.spec.roles import ROLE_TABLE, ROLES
from reference import TIE_BREAKS

if TYPE_CHECKING:
    from grader.spec.yaml_lines import Document

Pair = tuple[str, str]

CHECK_KINDS = ("cases", "differential", "properties", "efficiency", "answers")
EXERCISE_KINDS = ("code", "answers")
QUESTIONS = ("first-merge", "pair-counts", "vocabulary", "tokens", "tie")
CORPUS_FORMS = ("texts", "word-counts")
MERGE_FORMS = ("pairs", "pairs-with-token")
ID_PATTERN = r"^[a-z0-9][a-z0-9-]*$"

# The pydantic types for tie_break etc. are Literals built from these tuples so the published
# JSON Schema lists exactly the values the loader accepts.
TieBreak = Literal[TIE_BREAKS]  # type: ignore[valid-type]
Role = Literal[ROLES]  # type: ignore[valid-type]
CheckKind = Literal[CHECK_KINDS]  # type: ignore[valid-type]
Identifier = Annotated[str, Field(pattern=ID_PATTERN)]

_PAIR_SCHEMA = {
    "type": "array",
    "prefixItems": [{"type": "string"}, {"type": "string"}],
    "items": False,
    "minItems": 2,
    "maxItems": 2,
}
_CORPUS_SCHEMA = {
    "description": "texts (split on whitespace) or a mapping word -> count, per conventions.corpus_form",
    "oneOf": [
        {"type": "array", "items": {"type": "string"}},
        {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1}},
    ],
}
_MERGES_SCHEMA = {
    "description": "expected merges, all in conventions.merge_form: [a, b] or [[a, b], ab]",
    "anyOf": [
        {"type": "array", "items": _PAIR_SCHEMA},
        {
            "type": "array",
            "items": {
                "type": "array",
                "prefixItems": [_PAIR_SCHEMA, {"type": "string"}],
                "items": False,
                "minItems": 2,
                "maxItems": 2,
            },
        },
        {"type": "null"},
    ],
}

# Corpus and merge lists take one of two forms chosen by the conventions, so their shape is
# checked by semantic_problems (which knows the conventions and reports the exact item).
Corpus = Annotated[Any, WithJsonSchema(_CORPUS_SCHEMA)]
Merges = Annotated[Optional[Any], WithJsonSchema(_MERGES_SCHEMA)]


class SpecModel(BaseModel):
    """Base of every spec model: unknown keys are errors, values are not coerced silently."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Conventions(SpecModel):
    """The rules students must follow: corpus form, end-of-word marker, tie-break, merge form."""

    corpus_form: Literal[CORPUS_FORMS]  # type: ignore[valid-type]
    end_of_word: str = "</w>"
    tie_break: TieBreak
    merge_form: Literal[MERGE_FORMS] = "pairs"  # type: ignore[valid-type]
    accept_lists_for_tuples: bool = True
    tie_example: str


class FunctionSpec(SpecModel):
    """A function the student writes: its name, full signature with type hints, and docstring."""

    name: str
    signature: str
    doc: str


class Functions(SpecModel):
    """Role -> the function the student writes for it; an exercise needs at least one role."""

    train: Optional[FunctionSpec] = None
    encode: Optional[FunctionSpec] = None
    sequence_lengths: Optional[FunctionSpec] = None
    train_wordpiece: Optional[FunctionSpec] = None
    first_divergence: Optional[FunctionSpec] = None
    train_byte_bpe: Optional[FunctionSpec] = None
    encode_byte_bpe: Optional[FunctionSpec] = None
    decode_byte_bpe: Optional[FunctionSpec] = None

    def roles(self) -> dict[str, FunctionSpec]:
        """Role -> function, for the roles this exercise has, in a fixed order."""
        return {role: spec for role in ROLES if (spec := getattr(self, role)) is not None}


class Check(SpecModel):
    """One kind of check in a milestone; weight splits the milestone's points among its checks."""

    kind: CheckKind
    weight: float = Field(default=1.0, gt=0)


class Milestone(SpecModel):
    """A graded step: its points and the checks run on the function of one role, or, in an
    answers exercise, the questions of the answers file it grades."""

    id: Identifier
    title: str
    points: float = Field(gt=0)
    function: Optional[Role] = None
    questions: list[Literal[QUESTIONS]] = Field(default_factory=list)  # type: ignore[valid-type]
    checks: list[Check] = Field(min_length=1)

    def check(self, kind: str) -> Optional[Check]:
        return next((c for c in self.checks if c.kind == kind), None)


class Limits(SpecModel):
    """Sandbox limits for running student code."""

    call_seconds: float = Field(default=2.0, gt=0)
    memory_mib: int = Field(default=512, gt=0)
    total_seconds: float = Field(default=120.0, gt=0)


class PropertySettings(SpecModel):
    """Sizes of the generated inputs for differential and property checks."""

    examples: int = Field(default=60, gt=0)
    alphabet: str = Field(default="abc", min_length=1)
    max_words: int = Field(default=6, gt=0)
    max_word_length: int = Field(default=6, gt=0)
    max_count: int = Field(default=5, gt=0)
    max_merges: int = Field(default=10, ge=0)


class EfficiencySettings(SpecModel):
    """The generated Zipf corpus and time budget of the efficiency check."""

    distinct_words: int = Field(default=5000, gt=0)
    total_words: int = Field(default=200000, gt=0)
    zipf_exponent: float = Field(default=1.1, gt=0)
    seed: int = 97
    num_merges: int = Field(default=300, ge=0)
    max_ratio: float = Field(default=20.0, gt=0)
    max_seconds: float = Field(default=30.0, gt=0)
    text_file: Optional[str] = None  # byte-level: a text in exercises/data/ to train on
    special_tokens: list[str] = Field(default_factory=list)  # byte-level: with text_file


class AnswerSettings(SpecModel):
    """How an answers exercise makes each student's variant and what it asks.

    The corpus of a variant is ``corpus_words`` words drawn from ``word_pool`` with counts
    from 1 to ``max_count``; ``encode_words`` words to tokenize are drawn from
    ``encode_pool``. Draws are repeated until the first ``num_merges`` merges include a tie
    that the exercise's rule decides (see :mod:`grader.spec.variants`).
    """

    word_pool: list[str] = Field(min_length=2)
    corpus_words: int = Field(default=3, ge=2)
    max_count: int = Field(default=6, ge=1)
    num_merges: int = Field(default=4, ge=1)
    pair_counts_step: int = Field(default=2, ge=1)
    encode_pool: list[str] = Field(min_length=1)
    encode_words: int = Field(default=2, ge=1)
    max_file_bytes: int = Field(default=65536, gt=0)


class Feedback(SpecModel):
    """How hidden results are shown in LMS outputs (Gradescope visibility names)."""

    hidden_visibility: Literal["hidden", "after_due_date", "after_published", "visible"] = (
        "after_published"
    )


class EncodeItem(SpecModel):
    """A word to encode with the case's reference merges; tokens, when written, are verified."""

    word: str
    tokens: Optional[list[str]] = None


class Lengths(SpecModel):
    """Expected sequence lengths of a case's sentence."""

    char: int = Field(ge=0)
    bpe: int = Field(ge=0)
    word: int = Field(ge=0)


class Case(SpecModel):
    """One input: a corpus and number of merges, optional words to encode and a sentence to
    measure; expected values are optional (written ones are verified, missing ones computed)."""

    id: Identifier
    visibility: Literal["public", "hidden"]
    description: str = ""
    corpus: Corpus
    num_merges: int = Field(ge=0)
    merges: Merges = None
    encode: list[EncodeItem] = Field(default_factory=list)
    sentence: Optional[str] = None
    lengths: Optional[Lengths] = None
    special_tokens: list[str] = Field(default_factory=list)

    @property
    def public(self) -> bool:
        return self.visibility == "public"

    def expected_pairs(self) -> Optional[list[Pair]]:
        """The author's expected merges as bare pairs, whichever form they were written in."""
        if self.merges is None:
            return None
        return [bare_pair(item) for item in self.merges]


def bare_pair(item: Any) -> Pair:
    """``(a, b)`` from a merge written as ``[a, b]`` or ``[[a, b], ab]`` (lists or tuples)."""
    first = item[0]
    if isinstance(first, (list, tuple)):
        return (first[0], first[1])
    return (item[0], item[1])


class Exercise(SpecModel):
    """A whole exercise spec (see DESIGN.md §4 and ``grade schema``)."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        strict=True,
        title="bpe-autograder exercise",
        json_schema_extra={"$schema": "https://json-schema.org/draft/2020-12/schema"},
    )

    id: Identifier
    title: str
    lesson: str
    kind: Literal[EXERCISE_KINDS] = "code"  # type: ignore[valid-type]
    student_file: str = "student.py"
    instructions: str
    conventions: Conventions
    functions: Functions = Functions()
    answers: Optional[AnswerSettings] = None
    milestones: list[Milestone] = Field(min_length=1)
    limits: Limits = Limits()
    properties: PropertySettings = PropertySettings()
    efficiency: EfficiencySettings = EfficiencySettings()
    feedback: Feedback = Feedback()
    cases: list[Case] = Field(default_factory=list)

    _source: Optional[Path] = PrivateAttr(default=None)
    _file: str = PrivateAttr(default="<spec>")
    _document: Optional["Document"] = PrivateAttr(default=None)

    @property
    def source(self) -> Optional[Path]:
        """The YAML file this exercise was loaded from, if any."""
        return self._source

    def problem(self, loc: Loc, message: str) -> "Problem":
        """A :class:`Problem` about the value at ``loc``, located in the spec's file."""
        line = self._document.line_of(loc) if self._document is not None else None
        return Problem(self._file, line, format_loc(loc), message)

    @property
    def total_points(self) -> float:
        return sum(m.points for m in self.milestones)

    def function(self, role: str) -> FunctionSpec:
        spec = getattr(self.functions, role)
        if spec is None:
            raise KeyError(f"exercise {self.id!r} has no {role!r} function")
        return spec

    def milestone(self, milestone_id: str) -> Milestone:
        for milestone in self.milestones:
            if milestone.id == milestone_id:
                return milestone
        raise KeyError(f"exercise {self.id!r} has no milestone {milestone_id!r}")

    def cases_for(self, role: str) -> list[Case]:
        """The cases a ``cases`` check on a milestone of this role runs."""
        return [case for case in self.cases if case_serves(case, role)]

    @property
    def public_cases(self) -> list[Case]:
        return [case for case in self.cases if case.public]

    @property
    def hidden_cases(self) -> list[Case]:
        return [case for case in self.cases if not case.public]


def case_serves(case: Case, role: str) -> bool:
    """Whether ``case`` holds an input for a milestone checking the function of ``role``.

    Every case trains (its corpus), so every case serves ``train``; it serves ``encode`` when
    it lists words, and ``sequence_lengths`` when it has a sentence (see :mod:`grader.spec.roles`).
    """
    return role in ROLE_TABLE and ROLE_TABLE[role].serves(case)


def json_schema() -> dict[str, Any]:
    """The spec format as a JSON Schema (draft 2020-12)."""
    return Exercise.model_json_schema()
