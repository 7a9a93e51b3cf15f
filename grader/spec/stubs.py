"""Rendering the student stub of an exercise from ``templates/stub.py.j2``.

The stub carries the ``# exercise: ID`` header the grader reads, the conventions in plain
words, and one function per role with its signature, docstring, the public cases as doctests
(expected values from the reference) and a TODO per milestone; every body raises
``NotImplementedError``.
"""

from __future__ import annotations

import pprint
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.package_data import jinja_environment
from grader.spec import Case, Exercise
from grader.spec.expected import case_encodings, case_lengths, expected_merges
from grader.spec.prose import prose_problems, tie_paragraph
from reference.tie_breaks import DESCRIPTIONS

TEMPLATE = "stub.py.j2"
DOCTEST_WIDTH = 88


class StubExists(FileExistsError):
    """The output file exists and overwriting was not asked for."""


@dataclass
class StubFunction:
    role: str
    name: str
    signature: str
    doc: str
    examples: list[str] = field(default_factory=list)
    todos: list[dict[str, Any]] = field(default_factory=list)


def render_stub(exercise: Exercise) -> str:
    """The stub's source text."""
    environment = jinja_environment(trim_blocks=True)
    functions = stub_functions(exercise)
    source = environment.get_template(TEMPLATE).render(
        exercise=exercise,
        conventions=convention_lines(exercise),
        ties=tie_paragraph(exercise),
        tie_example=_consistent_tie_example(exercise),
        milestones=[_milestone_view(exercise, m) for m in exercise.milestones],
        functions=functions,
    )
    if source.count('"""') != 2 * (len(functions) + 1):
        raise ValueError(
            f'exercise {exercise.id!r}: a text in the spec contains """, which would end a '
            "docstring of the stub early; use ''' or rephrase"
        )
    return source


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


def convention_lines(exercise: Exercise) -> list[str]:
    """The conventions a student needs, one sentence each."""
    if exercise.functions.train_byte_bpe or exercise.functions.encode_byte_bpe:
        from grader.spec.stub_examples import byte_conventions

        return byte_conventions(exercise) + [imports_line(exercise)]
    conventions = exercise.conventions
    marker = conventions.end_of_word
    lines = [
        "Corpus: "
        + (
            "a list of texts; split each text on whitespace (text.split()) and count every word."
            if conventions.corpus_form == "texts"
            else "a dict word -> count; each word occurs count times."
        ),
        (
            f"End of word: each word starts as its characters followed by {marker!r} as a "
            f"separate symbol, so 'low' starts as ['l', 'o', 'w', {marker!r}]."
            if marker
            else "End of word: no marker; each word starts as its characters."
        ),
        f"Ties: when pairs share the highest {_ranked_by(exercise)}, take "
        f"{DESCRIPTIONS[conventions.tie_break]} (rule {conventions.tie_break!r}; a worked tie "
        "below).",
        "Merges: "
        + (
            "a list of (left, right) tuples in the order learned, e.g. ('e', 's')."
            if conventions.merge_form == "pairs"
            else "a list of ((left, right), left + right) tuples in the order learned, "
            "e.g. (('e', 's'), 'es')."
        ),
        (
            "Tuples or lists: the grader also accepts lists where tuples are asked for "
            "(['e', 's'] for ('e', 's')); the doctests show tuples."
            if conventions.accept_lists_for_tuples
            else "Tuples: return real tuples where tuples are asked for; lists are marked wrong."
        ),
        "Stopping: training stops early when no word has two symbols left to pair.",
        "Inputs: do not modify the arguments you receive; return new lists.",
        _time_line(exercise),
        imports_line(exercise),
    ]
    return lines


def _time_line(exercise: Exercise) -> str:
    """The time limits, each stated once, from the spec's values."""
    line = (f"Time: each call must finish within {exercise.limits.call_seconds:g} seconds of "
            "wall-clock time")
    timed = [m for m in exercise.milestones if m.check("efficiency") is not None]
    if timed:
        settings = exercise.efficiency
        line += (f", except in the milestone \"{timed[0].title}\", where training on a large "
                 f"generated corpus ({settings.total_words:,} words, {settings.num_merges} merges) "
                 f"may take at most {settings.max_seconds:g} seconds of CPU time and at most "
                 f"{settings.max_ratio:g} times the reference's time")
    return line + "."


def _consistent_tie_example(exercise: Exercise) -> str:
    """The author's tie example, or "" when it contradicts the declared rule (``grade check``
    reports that) or there is none; the generated paragraph always states the rule."""
    text = exercise.conventions.tie_example
    if not text:
        return ""
    if any(loc == ("conventions", "tie_example") for loc, _ in prose_problems(exercise)):
        return ""
    return text.strip()


def _ranked_by(exercise: Exercise) -> str:
    """What pairs are ranked by: counts for BPE, scores (and counts) when WordPiece is asked for."""
    if exercise.functions.train_wordpiece or exercise.functions.first_divergence:
        return "score (WordPiece) or count (BPE)"
    return "count"


def _milestone_view(exercise: Exercise, milestone: Any) -> dict[str, Any]:
    spec = exercise.functions.roles().get(milestone.function)
    return {
        "title": milestone.title,
        "points": f"{milestone.points:g}",
        "function_name": spec.name if spec else milestone.function,
        "checks": ", ".join(check.kind for check in milestone.checks),
    }


def stub_functions(exercise: Exercise) -> list[StubFunction]:
    """One entry per function the student writes, with its doctests and TODOs."""
    functions = []
    for role, spec in exercise.functions.roles().items():
        functions.append(
            StubFunction(
                role=role,
                name=spec.name,
                signature=spec.signature.strip(),
                doc=spec.doc,
                examples=[
                    example
                    for case in exercise.public_cases
                    for example in _examples(exercise, role, spec.name, case)
                ],
                todos=[
                    {"id": m.id, "title": m.title, "points": f"{m.points:g}"}
                    for m in exercise.milestones
                    if m.function == role
                ],
            )
        )
    return functions


def _examples(exercise: Exercise, role: str, name: str, case: Case) -> list[str]:
    """Doctest blocks for one public case and one role (none when the case has no input for it)."""
    from grader.spec import stub_examples

    if role in stub_examples.EXAMPLES:
        return stub_examples.examples(exercise, role, name, case, _statement, _call)
    if role == "train":
        return [
            _statement("corpus", case.corpus)
            + _call(f"{name}(corpus, {case.num_merges})", expected_merges(exercise, case))
        ]
    merges_line = _statement("merges", expected_merges(exercise, case))
    if role == "encode" and case.encode:
        lines = [merges_line]
        for item, tokens in case_encodings(exercise, case):
            lines.append(_call(f"{name}({item.word!r}, merges)", tokens).lstrip("\n"))
        return ["\n".join(lines)]
    if role == "sequence_lengths" and case.sentence is not None:
        lengths = case_lengths(exercise, case)
        assert lengths is not None
        return [
            merges_line
            + f"\n>>> lengths = {name}({case.sentence!r}, merges)"
            + '\n>>> lengths["char"], lengths["bpe"], lengths["word"]\n'
            + f"({lengths['char']}, {lengths['bpe']}, {lengths['word']})"
        ]
    return []


def _statement(variable: str, value: Any) -> str:
    """``>>> variable = value`` with long values continued on ``...`` lines."""
    text = pprint.pformat(value, width=DOCTEST_WIDTH - len(variable) - 7, sort_dicts=False)
    first, *rest = text.split("\n")
    continued = [f"... {' ' * (len(variable) + 3)}{line.lstrip()}" for line in rest]
    return "\n".join([f">>> {variable} = {first}", *continued])


def _call(expression: str, value: Any) -> str:
    """``>>> expression`` and its output; long output is wrapped and compared whitespace-blind."""
    one_line = repr(value)
    if len(one_line) + 4 <= DOCTEST_WIDTH:
        return f"\n>>> {expression}\n{one_line}"
    wrapped = pprint.pformat(value, width=DOCTEST_WIDTH - 4, sort_dicts=False)
    if wrapped.split() != one_line.split():  # wrapping must only change whitespace
        return f"\n>>> {expression}\n{one_line}"
    return f"\n>>> {expression}  # doctest: +NORMALIZE_WHITESPACE\n{wrapped}"
