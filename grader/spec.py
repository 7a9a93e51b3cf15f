"""Exercise specs: the validated models of an exercise YAML file, and loading them.

One YAML file describes one exercise (DESIGN.md §4). :func:`load_exercise` reads it, checks its
shape with pydantic and its meaning with :func:`semantic_problems`, and raises a
:class:`SpecError` listing every problem as ``file:line: field: message``. Expected values an
author leaves out are filled in elsewhere (``grader.expected``), never here.
"""

from __future__ import annotations

import ast
import difflib
import keyword
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union, get_args, get_origin

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, WithJsonSchema

from reference import TIE_BREAKS

Pair = tuple[str, str]
Loc = tuple[Union[str, int], ...]

ROLES = ("train", "encode", "sequence_lengths")
CHECK_KINDS = ("cases", "differential", "properties", "efficiency")
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

    def roles(self) -> dict[str, FunctionSpec]:
        """Role -> function, for the roles this exercise has, in a fixed order."""
        return {role: spec for role in ROLES if (spec := getattr(self, role)) is not None}


class Check(SpecModel):
    """One kind of check in a milestone; weight splits the milestone's points among its checks."""

    kind: CheckKind
    weight: float = Field(default=1.0, gt=0)


class Milestone(SpecModel):
    """A graded step: its points and the checks run on the function of one role."""

    id: Identifier
    title: str
    points: float = Field(gt=0)
    function: Role
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
    student_file: str = "student.py"
    instructions: str
    conventions: Conventions
    functions: Functions
    milestones: list[Milestone] = Field(min_length=1)
    limits: Limits = Limits()
    properties: PropertySettings = PropertySettings()
    efficiency: EfficiencySettings = EfficiencySettings()
    feedback: Feedback = Feedback()
    cases: list[Case] = Field(default_factory=list)

    _source: Optional[Path] = PrivateAttr(default=None)
    _file: str = PrivateAttr(default="<spec>")
    _document: Optional["_Document"] = PrivateAttr(default=None)

    @property
    def source(self) -> Optional[Path]:
        """The YAML file this exercise was loaded from, if any."""
        return self._source

    def problem(self, loc: Loc, message: str) -> "Problem":
        """A :class:`Problem` about the value at ``loc``, located in the spec's file."""
        line = self._document.line_of(loc) if self._document is not None else None
        return Problem(self._file, line, _format_loc(loc), message)

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
    it lists words, and ``sequence_lengths`` when it has a sentence.
    """
    if role == "train":
        return True
    if role == "encode":
        return bool(case.encode)
    if role == "sequence_lengths":
        return case.sentence is not None
    return False


def json_schema() -> dict[str, Any]:
    """The spec format as a JSON Schema (draft 2020-12)."""
    return Exercise.model_json_schema()


# --------------------------------------------------------------------------- errors


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a spec, located as precisely as the YAML allows."""

    file: str
    line: Optional[int]
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


class SpecError(Exception):
    """A spec could not be loaded; ``problems`` lists everything found, in file order."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class ExerciseNotFound(SpecError):
    """No shipped exercise has the requested id and no such file exists."""


# --------------------------------------------------------------------------- YAML with lines


class _Document:
    """Plain data from a YAML document plus the line of every mapping key and list item."""

    def __init__(self) -> None:
        self.lines: dict[Loc, int] = {}
        self.duplicates: list[tuple[Loc, int, int]] = []

    def line_of(self, loc: Loc) -> Optional[int]:
        """The line of ``loc`` or of its nearest ancestor that the document has."""
        for end in range(len(loc), -1, -1):
            line = self.lines.get(tuple(loc[:end]))
            if line is not None:
                return line
        return None


def _parse_yaml(text: str) -> tuple[Any, _Document]:
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        document = _Document()
        if node is None:
            return None, document
        document.lines[()] = node.start_mark.line + 1
        return _build(loader, node, (), document), document
    finally:
        loader.dispose()


def _build(loader: yaml.SafeLoader, node: yaml.Node, loc: Loc, document: _Document) -> Any:
    if isinstance(node, yaml.MappingNode):
        loader.flatten_mapping(node)  # resolves YAML merge keys (<<)
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                key = str(key)
            line = key_node.start_mark.line + 1
            if key in result:
                document.duplicates.append((loc + (key,), document.lines[loc + (key,)], line))
            document.lines[loc + (key,)] = line
            result[key] = _build(loader, value_node, loc + (key,), document)
        return result
    if isinstance(node, yaml.SequenceNode):
        items = []
        for index, item in enumerate(node.value):
            document.lines[loc + (index,)] = item.start_mark.line + 1
            items.append(_build(loader, item, loc + (index,), document))
        return items
    return loader.construct_object(node, deep=True)


# --------------------------------------------------------------------------- loading


def load_exercise(id_or_path: Union[str, os.PathLike]) -> Exercise:
    """Load a shipped exercise by id, or any spec file by path; raise :class:`SpecError`."""
    path = _resolve(id_or_path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SpecError([Problem(display_path(path), None, "", f"cannot read the file: {error}")])
    exercise = parse_exercise(text, display_path(path), expected_id=path.stem)
    exercise._source = path
    return exercise


def _resolve(id_or_path: Union[str, os.PathLike]) -> Path:
    from . import exercises  # noqa: PLC0415 - grader.exercises needs this module first

    candidate = Path(id_or_path)
    if candidate.is_file():
        return candidate
    if candidate.suffix in (".yaml", ".yml") or len(candidate.parts) > 1:
        raise ExerciseNotFound([Problem(str(candidate), None, "", "no such file")])
    try:
        found = exercises.exercise_path(str(id_or_path))
        known = ", ".join(exercises.exercise_ids()) or "none"
    except FileNotFoundError as error:
        raise ExerciseNotFound([Problem(str(id_or_path), None, "", str(error))]) from None
    if found is None:
        raise ExerciseNotFound(
            [Problem(str(id_or_path), None, "", f"no exercise with this id; available: {known}")]
        )
    return found


def display_path(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def parse_exercise(text: str, file: str = "<spec>", *, expected_id: Optional[str] = None) -> Exercise:
    """Validate the YAML ``text`` of a spec; ``file`` names it in messages."""
    try:
        data, document = _parse_yaml(text)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark else None
        reason = error.problem or error.context or "invalid YAML"
        raise SpecError([Problem(file, line, "", f"YAML syntax error: {reason}")]) from None
    except yaml.YAMLError as error:
        raise SpecError([Problem(file, None, "", f"YAML error: {error}")]) from None

    problems = [
        Problem(file, second, _format_loc(loc), f"duplicate key (first written on line {first})")
        for loc, first, second in document.duplicates
    ]
    if not isinstance(data, dict):
        what = "empty" if data is None else f"a {type(data).__name__}"
        problems.append(
            Problem(file, document.line_of(()), "", f"the spec is {what}; it must be a mapping "
                    "with id, title, lesson, instructions, conventions, functions, milestones, cases")
        )
        raise SpecError(problems)

    try:
        exercise = Exercise.model_validate(data)
    except ValidationError as error:
        problems += [
            Problem(file, document.line_of(loc), _format_loc(loc), message)
            for loc, message in _pydantic_problems(error)
        ]
        raise SpecError(_in_file_order(problems)) from None

    problems += [
        Problem(file, document.line_of(loc), _format_loc(loc), message)
        for loc, message in semantic_problems(exercise, expected_id=expected_id)
    ]
    if problems:
        raise SpecError(_in_file_order(problems))
    exercise._file = file
    exercise._document = document
    return exercise


def available_exercises() -> list[Exercise]:
    """Every shipped exercise, loaded and validated (a broken one raises :class:`SpecError`)."""
    from .exercises import exercise_paths  # noqa: PLC0415 - grader.exercises imports this module

    try:
        paths = exercise_paths()
    except FileNotFoundError as error:
        raise ExerciseNotFound([Problem("exercises", None, "", str(error))]) from None
    return [load_exercise(path) for path in paths]


def _in_file_order(problems: list[Problem]) -> list[Problem]:
    return sorted(problems, key=lambda p: p.line or 0)


def _format_loc(loc: Loc) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


# --------------------------------------------------------------------------- pydantic messages


def _pydantic_problems(error: ValidationError) -> list[tuple[Loc, str]]:
    return [(tuple(item["loc"]), _message(item)) for item in error.errors()]


def _message(item: dict[str, Any]) -> str:
    kind, ctx, value = item["type"], item.get("ctx", {}), item.get("input")
    loc = tuple(item["loc"])
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return _unknown_key_message(loc)
    if kind == "literal_error":
        allowed = [a.strip().strip("'") for a in re.split(r",| or ", ctx["expected"])]
        return f"{value!r} is not one of {', '.join(a for a in allowed if a)}"
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        bound = next(iter(ctx.values()))
        op = {"greater_than": ">", "greater_than_equal": ">=", "less_than": "<",
              "less_than_equal": "<="}[kind]
        return f"must be {op} {bound:g}, got {value!r}"
    if kind == "string_pattern_mismatch":
        return (f"{value!r} is not a valid id: use lowercase letters, digits and hyphens, "
                "starting with a letter or digit")
    if kind == "too_short":
        return "must not be empty"
    if kind in ("string_type", "int_type", "int_parsing", "int_from_float", "float_type",
                "float_parsing", "bool_type", "bool_parsing", "list_type", "dict_type",
                "model_type", "model_attributes_type"):
        expected = {
            "string_type": "a string", "int_type": "an integer", "int_parsing": "an integer",
            "int_from_float": "a whole number", "float_type": "a number",
            "float_parsing": "a number", "bool_type": "true or false",
            "bool_parsing": "true or false", "list_type": "a list", "dict_type": "a mapping",
            "model_type": "a mapping", "model_attributes_type": "a mapping",
        }[kind]
        return f"must be {expected}, got {_describe(value)}{_quote_hint(kind, value)}"
    return item["msg"].replace("Input should be", "must be") + f", got {_describe(value)}"


def _describe(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, (dict, list)):
        return f"a {'mapping' if isinstance(value, dict) else 'list'}"
    return f"{type(value).__name__} {value!r}"


def _quote_hint(kind: str, value: Any) -> str:
    """Advice for a string that YAML read as something else (``no`` is false, ``1`` a number)."""
    if kind == "string_type" and (value is None or isinstance(value, (bool, int, float))):
        return " (YAML reads yes/no/on/off/null and numbers as non-strings: put it in quotes)"
    return ""


def _unknown_key_message(loc: Loc) -> str:
    model = _model_at(loc[:-1])
    key = str(loc[-1])
    if model is None:
        return "unknown key"
    allowed = list(model.model_fields)
    close = difflib.get_close_matches(key, allowed, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown key{hint} (allowed: {', '.join(allowed)})"


def _model_at(loc: Loc) -> Optional[type[BaseModel]]:
    """The spec model class that validates the mapping at ``loc``, if one does."""
    annotation: Any = Exercise
    for part in loc:
        annotation = _unwrap(annotation)
        if isinstance(part, int):
            if get_origin(annotation) is not list:
                return None
            annotation = get_args(annotation)[0]
        elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
            field = annotation.model_fields.get(part)
            if field is None:
                return None
            annotation = field.annotation
        else:
            return None
    annotation = _unwrap(annotation)
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def _unwrap(annotation: Any) -> Any:
    """Strip Optional[...] and Annotated[...] down to the type inside."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin is Union:
            inner = [a for a in get_args(annotation) if a is not type(None)]
            if len(inner) != 1:
                return annotation
            annotation = inner[0]
        else:
            return annotation


# --------------------------------------------------------------------------- meaning


def semantic_problems(exercise: Exercise, *, expected_id: Optional[str] = None) -> list[tuple[Loc, str]]:
    """Problems pydantic cannot see: cross references, uniqueness and the two-form fields."""
    return [
        *_id_problems(exercise, expected_id),
        *_function_problems(exercise),
        *_milestone_problems(exercise),
        *(
            problem
            for index, case in enumerate(exercise.cases)
            for problem in _case_problems(exercise, index, case)
        ),
    ]


def _id_problems(exercise: Exercise, expected_id: Optional[str]) -> Iterator[tuple[Loc, str]]:
    if expected_id is not None and exercise.id != expected_id:
        yield ("id",), f"{exercise.id!r} must equal the file name without .yaml ({expected_id!r})"
    name = exercise.student_file
    if not name.endswith(".py") or "/" in name or "\\" in name or not name[:-3].isidentifier():
        yield ("student_file",), (
            f"{name!r} must be a plain Python file name such as student.py "
            "(an importable name ending in .py, no directories)"
        )
    titles = [(("title",), exercise.title)] + [
        (("milestones", index, "title"), milestone.title)
        for index, milestone in enumerate(exercise.milestones)
    ]
    for loc, title in titles:
        if not title.strip() or "\n" in title.strip():
            yield loc, "must be one non-empty line (it heads reports and the stub's TODOs)"
    yield from _duplicates("milestones", [m.id for m in exercise.milestones], "milestone id")
    yield from _duplicates("cases", [c.id for c in exercise.cases], "case id")


def _duplicates(field: str, ids: list[str], what: str) -> Iterator[tuple[Loc, str]]:
    first_index: dict[str, int] = {}
    for index, item_id in enumerate(ids):
        if item_id in first_index:
            yield (field, index, "id"), (
                f"duplicate {what} {item_id!r} (also {field}[{first_index[item_id]}])"
            )
        else:
            first_index[item_id] = index


def _function_problems(exercise: Exercise) -> Iterator[tuple[Loc, str]]:
    roles = exercise.functions.roles()
    if not roles:
        yield ("functions",), f"name at least one function (roles: {', '.join(ROLES)})"
    seen: dict[str, str] = {}
    for role, spec in roles.items():
        loc: Loc = ("functions", role)
        if not spec.name.isidentifier() or keyword.iskeyword(spec.name):
            yield loc + ("name",), f"{spec.name!r} is not a valid Python function name"
            continue
        if spec.name in seen:
            yield loc + ("name",), f"{spec.name!r} is already the {seen[spec.name]} function"
        seen[spec.name] = role
        yield from _signature_problems(loc, spec)


ROLE_ARGUMENTS = {
    "train": ("corpus", "num_merges"),
    "encode": ("word", "merges"),
    "sequence_lengths": ("sentence", "merges"),
}


def _signature_problems(loc: Loc, spec: FunctionSpec) -> Iterator[tuple[Loc, str]]:
    role = str(loc[-1])
    expected = ", ".join(ROLE_ARGUMENTS[role])
    function = _parse_signature(spec.signature)
    if function is None:
        yield loc + ("signature",), (
            f"{spec.signature!r} is not a Python signature on one line; write it as "
            f"'{spec.name}({expected.replace(', ', ': type, ')}: type) -> type'"
        )
        return
    if function.name != spec.name:
        yield loc + ("signature",), f"names {function.name!r} but the function is {spec.name!r}"
    arguments = function.args
    if len(arguments.args) != len(ROLE_ARGUMENTS[role]) or arguments.vararg or arguments.kwonlyargs:
        yield loc + ("signature",), (
            f"must take exactly {len(ROLE_ARGUMENTS[role])} positional parameters: the grader "
            f"calls {spec.name}({expected})"
        )


def _parse_signature(signature: str) -> Optional[ast.FunctionDef]:
    """The signature as the header of a one-line ``def``, or None when it is not exactly that."""
    if "\n" in signature.strip() or "#" in signature:
        return None
    try:
        tree = ast.parse(f"def {signature.strip()}:\n    pass\n")
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef):
        return None
    function = tree.body[0]
    if len(function.body) != 1 or not isinstance(function.body[0], ast.Pass):
        return None
    return function


def _milestone_problems(exercise: Exercise) -> Iterator[tuple[Loc, str]]:
    roles = exercise.functions.roles()
    for index, milestone in enumerate(exercise.milestones):
        loc: Loc = ("milestones", index)
        if milestone.function not in roles:
            yield loc + ("function",), (
                f"{milestone.function!r} is not a role under functions "
                f"(defined: {', '.join(roles) or 'none'})"
            )
        kinds = [check.kind for check in milestone.checks]
        for check_index, kind in enumerate(kinds):
            if kind in kinds[:check_index]:
                yield loc + ("checks", check_index, "kind"), f"check kind {kind!r} appears twice"
        if "efficiency" in kinds and milestone.function != "train":
            yield loc + ("checks",), "an efficiency check times training: use it with function: train"
        if "cases" in kinds and not exercise.cases_for(milestone.function):
            yield loc + ("checks",), (
                f"has a cases check but no case gives input for {milestone.function}"
                f" ({_what_serves(milestone.function)})"
            )


def _what_serves(role: str) -> str:
    return {
        "train": "add a case",
        "encode": "add encode: words to a case",
        "sequence_lengths": "add a sentence: to a case",
    }[role]


def _case_problems(exercise: Exercise, index: int, case: Case) -> Iterator[tuple[Loc, str]]:
    loc: Loc = ("cases", index)
    yield from _corpus_problems(loc + ("corpus",), case.corpus, exercise.conventions.corpus_form)
    if case.merges is not None:
        yield from _merges_problems(loc + ("merges",), case.merges, exercise.conventions.merge_form)
    if case.lengths is not None and case.sentence is None:
        yield loc + ("lengths",), "expected lengths need a sentence: to measure"
    graded_roles = {
        m.function for m in exercise.milestones if m.check("cases") is not None
    }
    for role, field in (("encode", "encode"), ("sequence_lengths", "sentence")):
        if case_serves(case, role) and role not in graded_roles:
            yield loc + (field,), (
                f"no milestone checks {role} cases, so this input would never be graded; "
                f"remove it or add a milestone with function: {role} and a cases check"
            )
    if "train" not in graded_roles and not any(
        case_serves(case, role) and role in graded_roles for role in ROLES
    ):
        yield loc, "this case is used by no milestone (no milestone has a cases check it serves)"


def _corpus_problems(loc: Loc, corpus: Any, form: str) -> Iterator[tuple[Loc, str]]:
    if form == "texts":
        if not isinstance(corpus, list):
            yield loc, (
                f"corpus_form is texts, so the corpus must be a list of strings, got "
                f"{_describe(corpus)}"
            )
            return
        for index, text in enumerate(corpus):
            if not isinstance(text, str):
                yield loc + (index,), f"must be a string, got {_describe(text)}{_quote_hint('string_type', text)}"
        return
    if not isinstance(corpus, dict):
        yield loc, (
            f"corpus_form is word-counts, so the corpus must be a mapping word: count, got "
            f"{_describe(corpus)}"
        )
        return
    for word, count in corpus.items():
        if not isinstance(word, str):
            yield loc + (word,), (
                f"word {word!r} must be a string{_quote_hint('string_type', word)}"
            )
        elif not word or any(ch.isspace() for ch in word):
            yield loc + (word,), f"word {word!r} must be non-empty and contain no whitespace"
        if isinstance(count, bool) or not isinstance(count, int) or count <= 0:
            yield loc + (word,), f"count must be a positive integer, got {_describe(count)}"


def _merges_problems(loc: Loc, merges: Any, form: str) -> Iterator[tuple[Loc, str]]:
    example = "[e, s]" if form == "pairs" else "[[e, s], es]"
    if not isinstance(merges, list):
        yield loc, f"must be a list of merges like {example}, got {_describe(merges)}"
        return
    for index, item in enumerate(merges):
        problem = _merge_item_problem(item, form)
        if problem:
            yield loc + (index,), f"{problem}; merge_form is {form}, so write each merge as {example}"


def _merge_item_problem(item: Any, form: str) -> Optional[str]:
    if form == "pairs":
        return None if _is_pair(item) else f"{_yaml_text(item)} is not a pair of two strings"
    if not (isinstance(item, list) and len(item) == 2 and _is_pair(item[0]) and isinstance(item[1], str)):
        return f"{_yaml_text(item)} is not a pair with its token"
    if item[0][0] + item[0][1] != item[1]:
        return f"token {item[1]!r} is not the pair joined ({item[0][0] + item[0][1]!r})"
    return None


def _is_pair(item: Any) -> bool:
    return isinstance(item, list) and len(item) == 2 and all(isinstance(p, str) for p in item)


def _yaml_text(value: Any) -> str:
    return yaml.safe_dump(value, default_flow_style=True, width=1000).strip().removesuffix("...").strip()
