"""An answers file opened for grading: read safely, and the student's variant recomputed.

No code runs and no sandbox starts: the file is read in the trusted process by the grader's
data-file kind (:class:`grader.families.api.DataFile`), which decides whose variant it is (its
submitter's, as the platform or the batch knows them; its own ``student:`` line only where
there is no door, and no credit where a door names no one it can use). Here
the variant is recomputed from that id and the course secret (the one of the student's own
variants the file lists and names with its keyed check, when a roster gave them another than
their first: ``assignment``), and the checks then see an
:class:`AnswerSheet`. A file made for another corpus than its student's is not graded, with
the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from grader.families.api import DataFile, Exercise, HandedFile, NotGradable
from grader.families.hand.expected import expected_answers
from grader.families.hand.assignment import own_variant
from grader.families.hand.variants import Variant

_CORPUS_HEADING = re.compile(r"^#\s*Your corpus\b")
_CORPUS_LINE = re.compile(r"^#\s+(\S+):\s*([0-9]+)\s*$")
_VARIANT_LINE = re.compile(r"^#\s*Your variant:\s*([0-9]{1,6})\s*\(check\s+([0-9a-fA-F]+)\)\s*$")


@dataclass(frozen=True)
class AnswerSheet:
    """What the ``answers`` check grades: the file's data, the variant, the right answers."""

    exercise: Exercise
    variant: Variant
    data: dict[str, Any]
    expected: dict[str, Any]


def answer_sheet(exercise: Exercise, handed: HandedFile) -> AnswerSheet:
    """The sheet of the student ``handed`` is graded as, or :class:`NotGradable` for a file
    made for another corpus (its comments list another one than the student's)."""
    stated = commented_corpus(handed.text)
    variant = own_variant(exercise, handed.student, handed.secret, stated,
                          commented_variant(handed.text))
    if stated is not None and stated != dict(variant.corpus) and not handed.notices:
        raise NotGradable(
            f"{handed.name} was made for another corpus than the one student "
            f"{variant.student!r} has here: its comments list {_corpus_text(stated)}, but "
            f"{variant.student!r} is graded on {_corpus_text(variant.corpus)}. Check the "
            "student: line (it must be your own id, as the file was made with it), and take "
            "your file from your course (a file made with another secret has another corpus)."
        )
    return AnswerSheet(exercise, variant, handed.data, expected_answers(exercise, variant))


def commented_corpus(text: str) -> dict[str, int] | None:
    """The corpus listed in the comments ``grade stub`` writes at the top of an answers file
    ("# Your corpus ...", then "#   word: count" lines), or None when there is no such list."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if _CORPUS_HEADING.match(line)), None)
    if start is None:
        return None
    corpus: dict[str, int] = {}
    for line in lines[start + 1:]:
        found = _CORPUS_LINE.match(line)
        if not found:
            break
        corpus[found.group(1)] = int(found.group(2))
    return corpus or None


def commented_variant(text: str) -> tuple[int, str] | None:
    """The ``(index, check)`` of the "# Your variant: N (check HEX)" comment line ``grade
    stub`` writes after the corpus, or None when the file has no such line."""
    for line in text.splitlines():
        found = _VARIANT_LINE.match(line)
        if found:
            return int(found.group(1)), found.group(2)
    return None


def _corpus_text(corpus: Any) -> str:
    return ", ".join(f"{word}: {count}" for word, count in dict(corpus).items())


ANSWERS_FILE = DataFile(answer_sheet, draws="corpus",
                        max_bytes=lambda exercise: exercise.answers.max_file_bytes)
