"""A concept sheet opened for grading: the YAML read safely, the student's order recomputed.

No code runs: the file is read in the trusted process by the grader's data-file kind
(:class:`grader.families.api.DataFile`), with the answers-file limits, and the order of the
student's options is recomputed from the id of whoever handed it in (the platform's or the
batch's submitter; the file's own ``student:`` line only where there is no door) and the
course secret. A file handed in through a door that names no one it can use, a file that
cannot be read and one that names no valid student are not graded, with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from grader.families.api import DataFile, HandedFile
from grader.families.concept.spec import ConceptExercise
from grader.families.concept.variants import Sheet, draw_sheet


@dataclass(frozen=True)
class OpenedSheet:
    """What the ``answers`` check grades: the file's data and the student's order."""

    exercise: ConceptExercise
    sheet: Sheet
    data: dict[str, Any]


def opened_sheet(exercise: ConceptExercise, handed: HandedFile) -> OpenedSheet:
    return OpenedSheet(exercise, draw_sheet(exercise, handed.student, handed.secret), handed.data)


SHEET_FILE = DataFile(opened_sheet, draws="sheet",
                      max_bytes=lambda exercise: exercise.answers.max_file_bytes)
