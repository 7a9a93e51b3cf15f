"""A concept sheet opened for grading: the YAML read safely, the student's order recomputed.

As for the hand exercises, no code runs: the file is read in the trusted process with the
answers-file limits (:func:`grader.families.hand.answer_file.read_answer_file`), and the
order of the student's options is recomputed from the id of whoever handed it in (the
platform's or the batch's submitter, else the file's own ``student:`` line) and the course
secret. A file that cannot be read or names no valid student is not gradable, with the reason.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from grader.families.concept.spec import ConceptExercise
from grader.families.concept.variants import Sheet, draw_sheet
from grader.families.hand.answer_file import AnswerFileError, read_answer_file
from grader.families.hand.submission import AnswersFile, handed_in_by, not_graded
from grader.families.hand.variants import VariantError, course_secret
from grader.grading.secrets import SeedSecretError
from grader.grading.submissions import GradingSetupError
from grader.spec.hooks import Opened


@dataclass(frozen=True)
class OpenedSheet:
    """What the ``answers`` check grades: the file's data and the student's order."""

    exercise: ConceptExercise
    sheet: Sheet
    data: dict[str, Any]


class ConceptSheetFile(AnswersFile):
    """A YAML concept sheet (``student_file`` ends in ``.yaml`` or ``.yml``)."""

    def open(self, stack: contextlib.ExitStack, path: Path, exercise: ConceptExercise, *,
             seed_secret: Optional[str], strict_sandbox: bool, helper: bool,
             submitter: Optional[str] = None) -> Opened:
        try:
            data = read_answer_file(path, exercise.answers.max_file_bytes)
            student, notices = handed_in_by(path.name, data.get("student"), submitter, "sheet")
            sheet = draw_sheet(exercise, student, course_secret(seed_secret))
        except SeedSecretError as error:
            raise GradingSetupError(str(error)) from None
        except (AnswerFileError, VariantError) as error:
            return not_graded(f"{path.name} could not be graded: {error}")
        return Opened(calls=OpenedSheet(exercise, sheet, data), notices=notices)


SHEET_FILE = ConceptSheetFile()
