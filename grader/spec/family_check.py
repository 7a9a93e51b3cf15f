"""Checking a family's record when it is loaded: every required hook there, each callable with
the arguments the stages will pass, every role and check kind consistent.

A course writes its own families, and the grader calls their hooks deep inside a grading; a
hook that is missing or takes other arguments would surface there as a fault of the grader.
:func:`problems` finds such gaps before any spec of the family is used, each as one line
naming the field, what is wrong and the fix; the registry refuses a family with any.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator
from typing import Any, Optional

from grader.spec.family import Family, Role
from grader.spec.hooks import CheckKind
from grader.spec.mistake_book import MistakeBook, Students
from grader.spec.models import CHECK_KINDS, Exercise

BUILT_IN_CHECKS = frozenset(CHECK_KINDS)

ROLE_HOOKS: dict[str, tuple[int, str]] = {
    "send": (2, "send(exercise, args) -> list"),
    "shape": (3, "shape(exercise, value, function_name) -> canonical value"),
    "case_items": (3, "case_items(calls, case, label) -> list[CaseItem]"),
    "stub_examples": (4, "stub_examples(exercise, function_name, case, doctest) -> list[str]"),
    "serves": (1, "serves(case) -> bool"),
}
OPTIONAL_ROLE_HOOKS: dict[str, tuple[int, str]] = {
    "properties": (1, "properties(calls) -> list[Property]"),
    "timed": (1, "timed(context) -> list[CheckResult]"),
}
FAMILY_HOOKS: dict[str, tuple[int, str]] = {
    "spec_problems": (1, "spec_problems(exercise) -> [(loc, message)]"),
    "prose_problems": (1, "prose_problems(exercise) -> [(loc, message)]"),
    "conventions": (1, "conventions(exercise) -> StubText"),
    "do_nothing": (1, "do_nothing(exercise) -> {kind: source}"),
    "ahead": (3, "ahead(exercise, secret, time_reference) -> [(key, compute)]"),
    "placeholder_case": (1, "placeholder_case(raw_spec) -> {field: value}"),
}
OPTIONAL_FAMILY_HOOKS: dict[str, tuple[int, str]] = {
    "verify": (1, "verify(exercise) -> Verification"),
    "stub": (3, "stub(exercise, student, secret) -> str"),
    "roster_stubs": (3, "roster_stubs(exercise, students, secret) -> {student: str}"),
    "audit": (1, "audit(exercise, mistake_ids=None) -> AuditReport"),
    "new_spec": (1, "new_spec(exercise_id, tie_break=..., corpus_form=..., base=...) -> str"),
    "trace": (3, "trace(exercise, corpus, size) -> step view"),
}
KEYWORDS = {"audit": ("mistake_ids",), "new_spec": ("tie_break", "corpus_form", "base")}
GENERATED_HOOKS = ("strategy", "targeted", "count", "settings", "judge", "call_text", "given",
                   "observed", "shown")


def problems(family: Family) -> list[str]:
    """Everything wrong with ``family``'s record, one line each (empty when it is complete)."""
    return list(_problems(family))


def _problems(family: Family) -> Iterator[str]:
    if not isinstance(family.name, str) or not family.name:
        yield "Family.name: give the family a name (the value of family: in its specs)"
    if not isinstance(family.summary, str) or not family.summary:
        yield "Family.summary: give one line saying what the family's students do"
    yield from _exercise_problems(family)
    for name, (arity, usage) in FAMILY_HOOKS.items():
        yield from _hook_problem(f"Family.{name}", getattr(family, name), arity, usage)
    for name, (arity, usage) in OPTIONAL_FAMILY_HOOKS.items():
        hook = getattr(family, name)
        if hook is not None:
            yield from _hook_problem(f"Family.{name}", hook, arity, usage, KEYWORDS.get(name, ()))
    for kind, check in family.check_kinds.items():
        if not isinstance(check, CheckKind):
            yield (f"Family.check_kinds[{kind!r}]: expected a CheckKind(title, run), "
                   f"got {type(check).__name__}")
        else:
            yield from _hook_problem(f"Family.check_kinds[{kind!r}].run", check.run, 1,
                                     "run(context) -> list[CheckResult]")
    kinds = BUILT_IN_CHECKS | set(family.check_kinds)
    names = [role.name for role in family.roles]
    if len(set(names)) != len(names):
        yield f"Family.roles: role names repeat ({', '.join(names)}); give each role its own name"
    for role in family.roles:
        yield from _role_problems(role, kinds, set(names))
    if family.roles:
        if not isinstance(family.mistakes, MistakeBook):
            yield ("Family.mistakes: a family with roles needs a MistakeBook (its catalogued "
                   "mistakes and each role's reference)")
        else:
            yield from _book_problems(family.mistakes, set(names))
        if not isinstance(family.students, Students):
            yield ("Family.students: a family with roles needs Students (the correct and "
                   "mistaken student-style files grade audit grades)")
    else:
        if family.submission is None:
            yield ("Family.submission: a family without roles grades something else than code: "
                   "give it a SubmissionKind (e.g. DataFile)")
        if not family.check_kinds:
            yield "Family.check_kinds: a family without roles needs a check kind of its own"
        if family.audit is None:
            yield "Family.audit: a family without roles needs its own audit(exercise, mistake_ids=None)"
    if family.submission is not None:
        for attribute in ("suffixes", "noun", "file_name_problem", "open"):
            if not hasattr(family.submission, attribute):
                yield f"Family.submission: a SubmissionKind has {attribute}; this one has none"


def record_fields_missing(error: BaseException) -> list[str]:
    """What a ``Role(...)`` or ``Family(...)`` call that raised ``error`` lacks, one line per
    field with what to give (empty when ``error`` is not such a call's)."""
    found = re.search(r"\b(Role|Family)\.__init__\(\) missing \d+ required (?:positional|keyword-only) "
                      r"arguments?: (.*)", str(error)) if isinstance(error, TypeError) else None
    if found is None:
        return []
    record, names = found.group(1), re.findall(r"'(\w+)'", found.group(2))
    hooks = ROLE_HOOKS if record == "Role" else FAMILY_HOOKS
    return [f"{record}.{name}: missing; give it " + (f"a function {hooks[name][1]}" if name in hooks
                                                     else f"its {name}")
            for name in names]


def _exercise_problems(family: Family) -> Iterator[str]:
    model = family.exercise
    if not (isinstance(model, type) and issubclass(model, Exercise)):
        yield ("Family.exercise: expected the family's spec model, a subclass of "
               f"grader.families.api.Exercise; got {model!r}")
        return
    declared = model.model_fields.get("family")
    if declared is None or getattr(declared, "default", None) != family.name:
        yield (f"Family.exercise: its family field must default to {family.name!r} "
               f"(family: Literal[{family.name!r}] = {family.name!r})")
    order = tuple(getattr(model, "role_order", ()))
    if order != tuple(role.name for role in family.roles):
        yield (f"Family.exercise.role_order: {order!r} must list the roles in order: "
               f"{tuple(role.name for role in family.roles)!r}")


def _role_problems(role: Role, kinds: set[str], names: set[str]) -> Iterator[str]:
    where = f"Role {role.name!r}"
    if not role.arguments or not all(isinstance(a, str) and a.isidentifier() for a in role.arguments):
        yield f"{where}.arguments: name the function's parameters, in order"
    unknown = sorted(set(role.checks) - kinds)
    if not role.checks or unknown:
        yield (f"{where}.checks: {', '.join(unknown) or 'none given'}: a role takes check kinds "
               f"among {', '.join(sorted(kinds))}")
    for name, (arity, usage) in ROLE_HOOKS.items():
        yield from _hook_problem(f"{where}.{name}", getattr(role, name), arity, usage)
    for name, (arity, usage) in OPTIONAL_ROLE_HOOKS.items():
        hook = getattr(role, name)
        if hook is not None:
            yield from _hook_problem(f"{where}.{name}", hook, arity, usage)
    searched = sorted(set(role.checks) & {"differential", "properties"})
    if searched and role.generated is None:
        yield (f"{where}.generated: the role takes {' and '.join(searched)} checks but gives no "
               "generated inputs; give it a Generated record")
    if role.generated is not None:
        for name in GENERATED_HOOKS:
            if not callable(getattr(role.generated, name, None)):
                yield f"{where}.generated.{name}: expected a function"
    if "properties" in role.checks and role.properties is None:
        yield f"{where}.properties: the role takes properties checks; give properties(calls)"
    if "efficiency" in role.checks and role.timed is None:
        yield f"{where}.timed: the role takes efficiency checks; give timed(context)"
    strangers = sorted(set(role.depends_on) - names)
    if strangers:
        yield f"{where}.depends_on: {', '.join(strangers)} is not a role of this family"


def _book_problems(book: MistakeBook, names: set[str]) -> Iterator[str]:
    for mistake in book.entries:
        if mistake.role not in names:
            yield f"Family.mistakes: mistake {mistake.id!r} is of {mistake.role!r}, not a role here"
        elif mistake.role not in book.reference:
            yield (f"Family.mistakes.reference: mistake {mistake.id!r} needs the reference of "
                   f"{mistake.role!r} to be compared with")
        if not callable(mistake.run):
            yield f"Family.mistakes: mistake {mistake.id!r} has no run (its wrong implementation)"


def _hook_problem(where: str, hook: Any, arity: int, usage: str,
                  keywords: tuple[str, ...] = ()) -> Iterator[str]:
    if not callable(hook):
        yield f"{where}: expected a function {usage}; got {_kind(hook)}"
        return
    why = _cannot_take(hook, arity, keywords)
    if why:
        yield f"{where}: {why}; the grader calls {usage}"


def _cannot_take(hook: Callable[..., Any], arity: int, keywords: tuple[str, ...]) -> Optional[str]:
    try:
        signature = inspect.signature(hook)
    except (TypeError, ValueError):  # a builtin without a signature: trust it
        return None
    try:
        signature.bind(*[None] * arity, **{name: None for name in keywords})
    except TypeError as error:
        return f"its signature {signature} cannot take that ({error})"
    return None


def _kind(value: Any) -> str:
    return "nothing" if value is None else f"a {type(value).__name__}"
