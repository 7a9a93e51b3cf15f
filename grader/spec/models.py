"""Exercise specs: the validated models of an exercise YAML file, and loading them.

One YAML file describes one exercise (docs/architecture.md, "Exercise specs"). :func:`load_exercise` reads it, checks its
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
ModuleName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]

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

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True,
                              use_attribute_docstrings=True)


class Conventions(SpecModel):
    """The rules students must follow: corpus form, end-of-word marker, tie-break, merge form."""

    corpus_form: Literal[CORPUS_FORMS]  # type: ignore[valid-type]
    """How train receives its corpus: "texts" (a list of strings split on whitespace) or "word-counts" (a dict word -> count)."""
    end_of_word: str = "</w>"
    """The end-of-word marker appended to every word as a symbol of its own; "" for none."""
    tie_break: TieBreak
    """Which pair wins when several share the highest count: lexicographic, concatenated, first-seen or reverse-lexicographic (see the README)."""
    merge_form: Literal[MERGE_FORMS] = "pairs"  # type: ignore[valid-type]
    """How merges are written: "pairs" as (a, b), "pairs-with-token" as ((a, b), ab)."""
    accept_lists_for_tuples: bool = True
    """Whether lists are accepted where tuples are asked for."""
    tie_example: Optional[str] = None
    """Optional extra words on ties, shown in the stub after the generated worked tie; grade check rejects text that states another tie rule."""


class FunctionSpec(SpecModel):
    """A function the student writes: its name, full signature with type hints, and docstring."""

    name: str
    """The Python name of the function the student writes."""
    signature: str
    """The whole signature on one line, with type hints, e.g. "encode(word: str, merges: ...) -> list[str]"."""
    doc: str
    """The function's docstring in the stub; grade check rejects text that contradicts the conventions."""


class Functions(SpecModel):
    """Role -> the function the student writes for it; an exercise needs at least one role."""

    train: Optional[FunctionSpec] = None
    """The training function: (corpus, num_merges) -> merges."""
    encode: Optional[FunctionSpec] = None
    """The encoding function: (word, merges) -> tokens."""
    sequence_lengths: Optional[FunctionSpec] = None
    """The sequence-length function: (sentence, merges) -> {"char", "bpe", "word"} counts."""
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
    """cases (the spec's cases), differential (generated inputs against the reference), properties (invariants) or efficiency (a large generated corpus, timed)."""
    weight: float = Field(default=1.0, gt=0)
    """Share of the milestone's points, relative to its other checks' weights."""


class Milestone(SpecModel):
    """A graded step: its points and the checks run on the function of one role, or, in an
    answers exercise, the questions of the answers file it grades."""

    id: Identifier
    """The milestone's id (lower-case letters, digits, hyphens), unique in the exercise."""
    title: str
    """One line naming the milestone in reports and the stub's TODOs."""
    points: float = Field(gt=0)
    """Points the milestone is worth."""
    function: Optional[Role] = None
    """The role (train, encode, sequence_lengths, ...) whose function the milestone checks;
    none in an answers exercise."""
    questions: list[Literal[QUESTIONS]] = Field(default_factory=list)  # type: ignore[valid-type]
    """An answers exercise: the questions of the hand exercises this milestone asks."""
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
    """Time budget of the whole grading of one submission, in seconds."""


class PropertySettings(SpecModel):
    """Sizes of the generated inputs for differential and property checks."""

    examples: int = Field(default=60, gt=0)
    """How many generated inputs the differential check tries."""
    alphabet: str = Field(default="abc", min_length=1)
    """Characters the generated words are made of."""
    max_words: int = Field(default=6, gt=0)
    """Most distinct words in a generated corpus."""
    max_word_length: int = Field(default=6, gt=0)
    """Longest generated word."""
    max_count: int = Field(default=5, gt=0)
    """Highest count of a generated word."""
    max_merges: int = Field(default=10, ge=0)
    """Most merges asked for on a generated input."""


class EfficiencySettings(SpecModel):
    """The generated Zipf corpus and time budget of the efficiency check."""

    distinct_words: int = Field(default=5000, gt=0)
    """Distinct words of the generated Zipf corpus."""
    total_words: int = Field(default=200000, gt=0)
    """Total words (with repeats) of the generated corpus."""
    zipf_exponent: float = Field(default=1.1, gt=0)
    """Exponent of the Zipf distribution of word frequencies."""
    seed: int = 97
    """Seed of the corpus generator."""
    num_merges: int = Field(default=300, ge=0)
    """Merges the timed training learns."""
    max_ratio: float = Field(default=20.0, gt=0)
    """Most times slower than the reference a passing trainer may be."""
    max_seconds: float = Field(default=30.0, gt=0)
    """Time limit of the timed training, in seconds."""
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
    """When LMS platforms show hidden checks' pass/fail (Gradescope visibility names)."""


class EncodeItem(SpecModel):
    """A word to encode with the case's reference merges; tokens, when written, are verified."""

    word: str
    """A word to encode with the case's reference merges."""
    tokens: Optional[list[str]] = None
    """Its expected tokens; written ones are verified by grade check, missing ones computed."""


class Lengths(SpecModel):
    """Expected sequence lengths of a case's sentence."""

    char: int = Field(ge=0)
    """Characters of every word plus one per end-of-word marker."""
    bpe: int = Field(ge=0)
    """Tokens after encoding every word."""
    word: int = Field(ge=0)
    """Words of the sentence."""


class Case(SpecModel):
    """One input: a corpus and number of merges, optional words to encode and a sentence to
    measure; expected values are optional (written ones are verified, missing ones computed)."""

    id: Identifier
    """The case's id, unique in the exercise."""
    visibility: Literal["public", "hidden"]
    """public cases are doctests in the stub and show details; hidden ones report pass/fail only."""
    description: str = ""
    """What the case tests, for authors (hidden cases never show it to students)."""
    corpus: Corpus
    num_merges: int = Field(ge=0)
    """How many merges to learn from the corpus."""
    merges: Merges = None
    encode: list[EncodeItem] = Field(default_factory=list)
    """Words to encode with the case's reference merges."""
    sentence: Optional[str] = None
    """A sentence whose sequence lengths are checked."""
    lengths: Optional[Lengths] = None
    """Expected sequence lengths of the sentence; computed when left out."""
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
    """A whole exercise spec (see docs/architecture.md and ``grade schema``)."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        strict=True,
        use_attribute_docstrings=True,
        title="bpe-autograder exercise",
        json_schema_extra={"$schema": "https://json-schema.org/draft/2020-12/schema"},
    )

    id: Identifier
    """The exercise's id (lower-case letters, digits, hyphens): what stubs' '# exercise:' line names."""
    title: str
    """One line heading the stub and every report."""
    lesson: str
    """The lesson or problem the exercise comes from."""
    kind: Literal[EXERCISE_KINDS] = "code"  # type: ignore[valid-type]
    student_file: str = "student.py"
    """The file name students submit."""
    instructions: str
    """The task in Markdown, at the top of the stub; grade check rejects text that contradicts the conventions."""
    allowed_imports: list[ModuleName] = Field(default_factory=list)
    """Third-party modules students may import besides the standard library (installed beside the grader), e.g. [regex]."""
    conventions: Conventions
    """The rules students follow; every convention text of the stub is generated from them."""
    functions: Functions = Functions()
    """The functions students write, by role (none in an answers exercise)."""
    answers: Optional[AnswerSettings] = None
    """An answers exercise: how each student's variant is drawn."""
    milestones: list[Milestone] = Field(min_length=1)
    """Graded steps with their points and checks."""
    limits: Limits = Limits()
    """Sandbox limits for the student's code."""
    properties: PropertySettings = PropertySettings()
    """Sizes of the inputs generated for differential and property checks."""
    efficiency: EfficiencySettings = EfficiencySettings()
    """The timed training of the efficiency check."""
    feedback: Feedback = Feedback()
    """How hidden results are shown on LMS platforms."""
    cases: list[Case] = Field(default_factory=list)
    """Inputs with optional expected values: written ones are verified, missing ones computed."""

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
