"""Rendering the student stub of an exercise from ``templates/stub.py.j2``.

The stub carries the ``# exercise: ID`` header the grader reads, the conventions in plain
words (its family writes them: :class:`StubText`), and one function per role with its
signature, docstring, the public cases as doctests (its role writes them, with expected values
from the reference) and a TODO per milestone; every body raises ``NotImplementedError``. A
family whose students hand in a data file renders its own starting file instead
(``Family.stub``).
"""

from __future__ import annotations

import pprint
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.package_data import jinja_environment
from grader.spec.doctest_lines import wrap_doctests
from grader.spec.registry import family_of
from grader.spec.hooks import Doctest, StubText
from grader.spec.models import Exercise

TEMPLATE = "stub.py.j2"
DOCTEST_WIDTH = 88


class StubExists(FileExistsError):
    """The output file exists and overwriting was not asked for."""


class StubNeedsStudent(ValueError):
    """The exercise gives each student a stub of their own: the student must be named."""


@dataclass
class StubFunction:
    role: str
    name: str
    signature: str
    doc: str
    examples: list[str] = field(default_factory=list)
    todos: list[dict[str, Any]] = field(default_factory=list)


def render_stub(exercise: Exercise, *, notebook: bool = False) -> str:
    """The stub's source text (``notebook``: its docstring says how to run the examples and
    the checks in a notebook, for :mod:`grader.spec.notebook_stub`)."""
    environment = jinja_environment(trim_blocks=True)
    functions = stub_functions(exercise)
    text: StubText = family_of(exercise).conventions(exercise)
    source = environment.get_template(TEMPLATE).render(
        exercise=exercise,
        notebook=notebook,
        conventions=[*text.conventions, imports_line(exercise)],
        ties=text.ties,
        tie_example=text.tie_example,
        note=text.note.strip(),
        milestones=[_milestone_view(exercise, m) for m in exercise.milestones],
        functions=functions,
        imports=annotation_imports([f.signature for f in functions]),
    )
    if source.count('"""') != 2 * (len(functions) + 1):
        raise ValueError(
            f'exercise {exercise.id!r}: a text in the spec contains """, which would end a '
            "docstring of the stub early; use ''' or rephrase"
        )
    return wrap_doctests(source)


def starting_file(exercise: Exercise) -> str:
    """The file a student starts from when none is rendered for them in particular (an LMS
    bundle's starter): the code stub, or the family's own, or a note saying how to get one."""
    family = family_of(exercise)
    if family.stub is None:
        return render_stub(exercise)
    try:
        return family.stub(exercise, None, None)
    except StubNeedsStudent as error:
        return (f"# exercise: {exercise.id}\n# {exercise.title}\n#\n# {error}.\n# Your own "
                f"file: grade stub {exercise.id} --student YOUR_ID -o {exercise.student_file}\n")


def write_stub(exercise: Exercise, path: Path, *, force: bool = False) -> None:
    """Write the stub to ``path``; refuse to replace an existing file unless ``force``."""
    if path.exists() and not force:
        raise StubExists(f"{path} already exists; pass --force to overwrite it")
    path.write_text(render_stub(exercise), encoding="utf-8")


def imports_line(exercise: Exercise) -> str:
    """What the student may import: the standard library and the spec's allowed modules."""
    if exercise.allowed_imports:
        return (f"Imports: the Python standard library and {', '.join(exercise.allowed_imports)}; "
                "nothing else is installed where the grader runs your code.")
    return ("Imports: the Python standard library only (no numpy, no tokenizer libraries); "
            "nothing else is installed where the grader runs your code.")


def _milestone_view(exercise: Exercise, milestone: Any) -> dict[str, Any]:
    spec = exercise.roles().get(milestone.function)
    return {
        "title": milestone.title,
        "points": f"{milestone.points:g}",
        "function_name": spec.name if spec else milestone.function,
        "checks": ", ".join(check.kind for check in milestone.checks),
    }


def stub_functions(exercise: Exercise) -> list[StubFunction]:
    """One entry per function the student writes, with its doctests and TODOs."""
    family = family_of(exercise)
    doctest = Doctest(statement, call)
    functions = []
    for role, spec in exercise.roles().items():
        examples = family.role(role).stub_examples
        functions.append(
            StubFunction(
                role=role,
                name=spec.name,
                signature=wrapped_signature(spec.signature.strip()),
                doc=spec.doc,
                examples=list(dict.fromkeys(  # two cases may ask one call: show it once
                    example
                    for case in exercise.public_cases
                    for example in examples(exercise, spec.name, case, doctest)
                )),
                todos=[
                    {"id": m.id, "title": m.title, "points": f"{m.points:g}"}
                    for m in exercise.milestones
                    if m.function == role
                ],
            )
        )
    return functions


ANNOTATION_MODULES = {
    "collections.abc": ("Callable", "Generator", "Iterable", "Iterator", "Mapping", "Sequence"),
    "typing": ("Any", "Optional", "Union"),
}
"""Names a signature may use that are not builtins, and the module each is imported from."""
SIGNATURE_WIDTH = 100


def annotation_imports(signatures: list[str]) -> list[str]:
    """The import lines the names in ``signatures`` need (``Iterable``, ``Optional``, ...), so
    the stub runs under type checkers and ``typing.get_type_hints`` as written."""
    import re  # only here: rendering a stub is rare

    used = {name for signature in signatures for name in re.findall(r"\b[A-Z]\w*", signature)}
    return [f"from {module} import {', '.join(sorted(used.intersection(names)))}"
            for module, names in ANNOTATION_MODULES.items() if used.intersection(names)]


def wrapped_signature(signature: str) -> str:
    """``signature`` as written when ``def NAME(...):`` fits in 100 characters, else its
    parameters on lines of their own, as formatters lay them out."""
    if len(signature) + len("def :") <= SIGNATURE_WIDTH or "(" not in signature:
        return signature
    start = signature.index("(")
    depth, end, commas = 0, None, []
    for index in range(start, len(signature)):
        char = signature[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                end = index
                break
        elif char == "," and depth == 1:
            commas.append(index)
    if end is None:
        return signature
    bounds = [start, *commas, end]
    parameters = [signature[a + 1:b].strip() for a, b in zip(bounds, bounds[1:])]
    parameters = [p for p in parameters if p]
    together = "    " + ", ".join(parameters) + ","
    lines = [together] if len(together) <= SIGNATURE_WIDTH else [f"    {p}," for p in parameters]
    return "\n".join([signature[:start + 1], *lines, signature[end:]])


def statement(variable: str, value: Any) -> str:
    """``>>> variable = value`` with long values continued on ``...`` lines."""
    text = pprint.pformat(value, width=DOCTEST_WIDTH - len(variable) - 7, sort_dicts=False)
    first, *rest = text.split("\n")
    continued = [f"... {' ' * (len(variable) + 3)}{line.lstrip()}" for line in rest]
    return "\n".join([f">>> {variable} = {first}", *continued])


def call(expression: str, value: Any) -> str:
    """``>>> expression`` and its output; long output is wrapped and compared whitespace-blind."""
    one_line = repr(value)
    if len(one_line) + 4 <= DOCTEST_WIDTH:
        return f"\n>>> {expression}\n{one_line}"
    wrapped = pprint.pformat(value, width=DOCTEST_WIDTH - 4, sort_dicts=False)
    if wrapped.split() != one_line.split():  # wrapping must only change whitespace
        return f"\n>>> {expression}\n{one_line}"
    return f"\n>>> {expression}  # doctest: +NORMALIZE_WHITESPACE\n{wrapped}"
