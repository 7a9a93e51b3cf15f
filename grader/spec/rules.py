"""The semantic rules of a spec: what pydantic's shape checks cannot see."""

from __future__ import annotations

import ast
import keyword
from collections.abc import Iterator
from typing import Any, Optional

import yaml

from grader.spec.messages import describe, quote_hint
from grader.spec.models import ROLES, Case, Exercise, FunctionSpec, case_serves
from grader.spec.problems import Loc
from grader.spec.roles import ROLE_TABLE, family_of


def semantic_problems(exercise: Exercise, *, expected_id: Optional[str] = None) -> list[tuple[Loc, str]]:
    """Problems pydantic cannot see: cross references, uniqueness and the two-form fields."""
    if exercise.kind == "answers":
        from grader.spec.answer_rules import answers_problems

        return [*_id_problems(exercise, expected_id), *answers_problems(exercise)]
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
    if exercise.kind == "answers":
        if not name.endswith(".yaml") or "/" in name or "\\" in name or not name[:-5].isidentifier():
            yield ("student_file",), f"{name!r} must be a plain YAML file name such as answers.yaml"
    elif not name.endswith(".py") or "/" in name or "\\" in name or not name[:-3].isidentifier():
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




def _signature_problems(loc: Loc, spec: FunctionSpec) -> Iterator[tuple[Loc, str]]:
    role = str(loc[-1])
    expected = ", ".join(ROLE_TABLE[role].arguments)
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
    if len(arguments.args) != len(ROLE_TABLE[role].arguments) or arguments.vararg or arguments.kwonlyargs:
        yield loc + ("signature",), (
            f"must take exactly {len(ROLE_TABLE[role].arguments)} positional parameters: the grader "
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
    if exercise.answers is not None:
        yield ("answers",), "answer settings belong to an exercise of kind: answers"
    for index, milestone in enumerate(exercise.milestones):
        loc: Loc = ("milestones", index)
        if milestone.questions:
            yield loc + ("questions",), "questions belong to an exercise of kind: answers"
        if any(check.kind == "answers" for check in milestone.checks):
            yield loc + ("checks",), "an answers check grades an answers file: use kind: answers"
        if milestone.function not in roles:
            yield loc + ("function",), (
                f"{milestone.function!r} is not a role under functions "
                f"(defined: {', '.join(roles) or 'none'})"
            )
        kinds = [check.kind for check in milestone.checks]
        for check_index, kind in enumerate(kinds):
            if kind in kinds[:check_index]:
                yield loc + ("checks", check_index, "kind"), f"check kind {kind!r} appears twice"
        if "efficiency" in kinds and milestone.function not in ("train", "train_byte_bpe"):
            yield loc + ("checks",), "an efficiency check times training: use it with function: train"
        if "efficiency" in kinds and milestone.function == "train_byte_bpe":
            yield from _text_file_problems(exercise)
        if "cases" in kinds and milestone.function and not exercise.cases_for(milestone.function):
            yield loc + ("checks",), (
                f"has a cases check but no case gives input for {milestone.function}"
                f" ({_what_serves(milestone.function)})"
            )


def _what_serves(role: str) -> str:
    return ROLE_TABLE[role].how_to_serve


def _case_problems(exercise: Exercise, index: int, case: Case) -> Iterator[tuple[Loc, str]]:
    loc: Loc = ("cases", index)
    yield from _corpus_problems(loc + ("corpus",), case.corpus, exercise.conventions.corpus_form)
    if case.merges is not None:
        yield from _merges_problems(loc + ("merges",), case.merges, exercise.conventions.merge_form)
    if case.lengths is not None and case.sentence is None:
        yield loc + ("lengths",), "expected lengths need a sentence: to measure"
    graded_roles = {
        m.function for m in exercise.milestones if m.check("cases") is not None and m.function
    }
    if case.merges is not None and "train" not in exercise.functions.roles():
        yield loc + ("merges",), (
            "expected merges are BPE merges for a train function, and this exercise has none; "
            "leave them out (the reference computes every expected value)"
        )
    # Every case has a corpus, so roles trained on the corpus alone never leave one unused.
    family = family_of(exercise.functions.roles())
    if case.special_tokens and family != "byte":
        yield loc + ("special_tokens",), "special tokens belong to byte-level exercises"
    for index_, token in enumerate(case.special_tokens):
        if not token:
            yield loc + ("special_tokens", index_), "a special token cannot be empty"
    for role, field in ((r.name, r.case_field) for r in ROLE_TABLE.values()
                        if r.case_field != "corpus" and r.family == family):
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
                f"{describe(corpus)}"
            )
            return
        for index, text in enumerate(corpus):
            if not isinstance(text, str):
                yield loc + (index,), f"must be a string, got {describe(text)}{quote_hint('string_type', text)}"
        return
    if not isinstance(corpus, dict):
        yield loc, (
            f"corpus_form is word-counts, so the corpus must be a mapping word: count, got "
            f"{describe(corpus)}"
        )
        return
    for word, count in corpus.items():
        if not isinstance(word, str):
            yield loc + (word,), (
                f"word {word!r} must be a string{quote_hint('string_type', word)}"
            )
        elif not word or any(ch.isspace() for ch in word):
            yield loc + (word,), f"word {word!r} must be non-empty and contain no whitespace"
        if isinstance(count, bool) or not isinstance(count, int) or count <= 0:
            yield loc + (word,), f"count must be a positive integer, got {describe(count)}"


def _merges_problems(loc: Loc, merges: Any, form: str) -> Iterator[tuple[Loc, str]]:
    example = "[e, s]" if form == "pairs" else "[[e, s], es]"
    if not isinstance(merges, list):
        yield loc, f"must be a list of merges like {example}, got {describe(merges)}"
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


def _text_file_problems(exercise: Exercise) -> Iterator[tuple[Loc, str]]:
    """A byte-level efficiency check trains on a text shipped in exercises/data/."""
    name = exercise.efficiency.text_file
    if not name:
        yield ("efficiency", "text_file"), "a byte-level efficiency check needs a text_file"
        return
    from grader.package_data import data_dir

    if "/" in name or "\\" in name or not (data_dir("exercises") / "data" / name).is_file():
        yield ("efficiency", "text_file"), f"{name!r} is not a file in exercises/data/"
