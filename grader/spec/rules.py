"""The semantic rules of a spec that every family shares: what pydantic's shape checks cannot see.

Ids and file names, one-line titles, unique milestone and case ids, functions that are roles
of the exercise's family with valid names and the signature the grader calls, milestones that
name a defined role and only check kinds that role takes; then the family's own rules
(``Family.spec_problems``).
"""

from __future__ import annotations

import ast
import difflib
import keyword
from collections.abc import Iterator
from typing import Optional

from grader.spec.family import DOCS, Family, every_case
from grader.spec.models import CHECK_KINDS, Exercise, FunctionSpec
from grader.spec.problems import Loc
from grader.spec.registry import cases_for, family_of, family_of_role

def semantic_problems(exercise: Exercise, *, expected_id: Optional[str] = None) -> list[tuple[Loc, str]]:
    """Problems pydantic cannot see: cross references, uniqueness, the family's own rules."""
    family = family_of(exercise)
    return [
        *_id_problems(exercise, family, expected_id),
        *_function_problems(exercise, family),
        *_milestone_problems(exercise, family),
        *_case_usage_problems(exercise, family),
        *family.spec_problems(exercise),
    ]


def _id_problems(exercise: Exercise, family: Family, expected_id: Optional[str]) -> Iterator[tuple[Loc, str]]:
    if expected_id is not None and exercise.id != expected_id:
        yield ("id",), f"{exercise.id!r} must equal the file name without .yaml ({expected_id!r})"
    if exercise.kind is not None and exercise.kind != family.kind:
        yield ("kind",), (f"kind {exercise.kind!r} does not go with family {family.name!r} "
                          f"(its kind is {family.kind!r}); leave kind out")
    problem = _student_file_problem(exercise.student_file, family)
    if problem:
        yield ("student_file",), problem
    titles = [(("title",), exercise.title)] + [
        (("milestones", index, "title"), milestone.title)
        for index, milestone in enumerate(exercise.milestones)
    ]
    for loc, title in titles:
        if not title.strip() or "\n" in title.strip():
            yield loc, "must be one non-empty line (it heads reports and the stub's TODOs)"
    yield from _duplicates("milestones", [m.id for m in exercise.milestones], "milestone id")
    yield from _duplicates("cases", [c.id for c in exercise.cases], "case id")


def _student_file_problem(name: str, family: Family) -> Optional[str]:
    if family.submission is not None:
        return family.submission.file_name_problem(name)
    if not name.endswith(".py") or "/" in name or "\\" in name or not name[:-3].isidentifier():
        return (f"{name!r} must be a plain Python file name such as student.py "
                "(an importable name ending in .py, no directories)")
    return None


def _duplicates(field: str, ids: list[str], what: str) -> Iterator[tuple[Loc, str]]:
    first_index: dict[str, int] = {}
    for index, item_id in enumerate(ids):
        if item_id in first_index:
            yield (field, index, "id"), (
                f"duplicate {what} {item_id!r} (also {field}[{first_index[item_id]}])"
            )
        else:
            first_index[item_id] = index


def _function_problems(exercise: Exercise, family: Family) -> Iterator[tuple[Loc, str]]:
    roles = exercise.roles()
    if not family.roles:
        return  # it runs no code: the family's rules say what its exercises take instead
    if not roles:
        yield ("functions",), f"name at least one function (roles: {', '.join(family.role_names)})"
    seen: dict[str, str] = {}
    for role, spec in roles.items():
        loc: Loc = ("functions", role)
        if not family.has_role(role):
            yield loc, unknown_role_message(family, role)
            continue
        if not spec.name.isidentifier() or keyword.iskeyword(spec.name):
            yield loc + ("name",), f"{spec.name!r} is not a valid Python function name"
            continue
        if spec.name in seen:
            yield loc + ("name",), f"{spec.name!r} is already the {seen[spec.name]} function"
        seen[spec.name] = role
        yield from _signature_problems(loc, spec, family.role(role).arguments)


def unknown_role_message(family: Family, role: str) -> str:
    """Why ``role`` cannot be a function of a ``family`` exercise, and where roles come from."""
    owner = family_of_role(role)
    elsewhere = (f"; {role!r} is a role of the {owner.name} family, set family: {owner.name}"
                 if owner is not None and owner.name != family.name else "")
    return (f"{role!r} is not a role of the {family.name} family (its roles: "
            f"{', '.join(family.role_names)}){elsewhere}; a course can add a role in a family "
            f"of its own, see {DOCS}")


def _signature_problems(loc: Loc, spec: FunctionSpec, arguments: tuple[str, ...]) -> Iterator[tuple[Loc, str]]:
    expected = ", ".join(arguments)
    function = _parse_signature(spec.signature)
    if function is None:
        yield loc + ("signature",), (
            f"{spec.signature!r} is not a Python signature on one line; write it as "
            f"'{spec.name}({expected.replace(', ', ': type, ')}: type) -> type'"
        )
        return
    if function.name != spec.name:
        yield loc + ("signature",), f"names {function.name!r} but the function is {spec.name!r}"
    given = function.args
    if len(given.args) != len(arguments) or given.vararg or given.kwonlyargs:
        yield loc + ("signature",), (
            f"must take exactly {len(arguments)} positional parameters: the grader "
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


def _milestone_problems(exercise: Exercise, family: Family) -> Iterator[tuple[Loc, str]]:
    roles = exercise.roles()
    for index, milestone in enumerate(exercise.milestones):
        loc: Loc = ("milestones", index)
        kinds = [check.kind for check in milestone.checks]
        known = (*CHECK_KINDS, *family.check_kinds)
        for check_index, kind in enumerate(kinds):
            if kind in kinds[:check_index]:
                yield loc + ("checks", check_index, "kind"), f"check kind {kind!r} appears twice"
            elif kind not in known:
                close = difflib.get_close_matches(kind, known, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                yield loc + ("checks", check_index, "kind"), (
                    f"no check kind {kind!r} in the {family.name} family (kinds: "
                    f"{', '.join(known)}){hint}")
        if not family.roles:
            continue  # its milestones grade something else: the family's rules say what
        if milestone.function not in roles:
            yield loc + ("function",), (
                f"{milestone.function!r} is not a role under functions "
                f"(defined: {', '.join(roles) or 'none'})"
            )
            continue
        role = family.role(milestone.function)
        for check_index, kind in enumerate(kinds):
            if kind not in role.checks and kind in known:
                article = "an" if kind[0] in "aeiou" else "a"
                yield loc + ("checks", check_index, "kind"), (
                    f"{article} {kind} check cannot grade {milestone.function} (it takes: "
                    f"{', '.join(sorted(role.checks))})"
                )
        if "cases" in kinds and not cases_for(exercise, milestone.function):
            yield loc + ("checks",), (
                f"has a cases check but no case gives input for {milestone.function}"
                f" ({role.how_to_serve})"
            )


def _case_usage_problems(exercise: Exercise, family: Family) -> Iterator[tuple[Loc, str]]:
    """Case inputs no milestone grades: a role's input without its milestone, or a whole case."""
    graded = {m.function for m in exercise.milestones if m.check("cases") is not None and m.function}
    if not family.roles:
        return
    for index, case in enumerate(exercise.cases):
        for role in family.roles:
            if role.serves is not every_case and role.serves(case) and role.name not in graded:
                yield ("cases", index, role.case_field), (
                    f"no milestone checks {role.name} cases, so this input would never be graded; "
                    f"remove it or add a milestone with function: {role.name} and a cases check"
                )
        if not any(role.serves(case) and role.name in graded for role in family.roles):
            yield ("cases", index), (
                "this case is used by no milestone (no milestone has a cases check it serves)")
