"""An answers file opened for grading: read safely, and the student's variant recomputed.

No code runs and no sandbox starts: the file is read in the trusted process
(:mod:`grader.families.hand.answer_file`), and the variant is recomputed from the student id it
carries and the course secret. The checks then see an :class:`AnswerSheet`; a file that
cannot be read or names no valid student scores 0 everywhere with the reason, and is not
gradable.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from grader.families.hand.answer_file import AnswerFileError, read_answer_file
from grader.families.hand.expected import expected_answers
from grader.families.hand.mistakes import diagnostic_variant
from grader.families.hand.variants import Variant, VariantError, course_secret
from grader.grading.secrets import SeedSecretError
from grader.grading.submissions import GradingSetupError, Opened
from grader.spec import Exercise


@dataclass(frozen=True)
class AnswerSheet:
    """What the ``answers`` check grades: the file's data, the variant, the right answers."""

    exercise: Exercise
    variant: Variant
    data: dict[str, Any]
    expected: dict[str, Any]


class AnswersFile:
    """A YAML answers file (``student_file`` ends in ``.yaml`` or ``.yml``)."""

    suffixes = (".yaml", ".yml")
    noun = "a YAML answers file"

    def file_name_problem(self, name: str) -> Optional[str]:
        stem = next((name[: -len(s)] for s in self.suffixes if name.endswith(s)), None)
        if stem is None or "/" in name or "\\" in name or not stem.isidentifier():
            return f"{name!r} must be a plain YAML file name such as answers.yaml"
        return None

    def open(self, stack: contextlib.ExitStack, path: Path, exercise: Exercise, *,
             seed_secret: Optional[str], strict_sandbox: bool, helper: bool) -> Opened:
        assert exercise.answers is not None
        try:
            data = read_answer_file(path, exercise.answers.max_file_bytes)
            variant = diagnostic_variant(exercise, data.get("student"), course_secret(seed_secret))
        except SeedSecretError as error:
            raise GradingSetupError(str(error)) from None
        except (AnswerFileError, VariantError) as error:
            reason = f"{path.name} could not be graded: {error}"
            return Opened(not_gradable=[reason], blocked=lambda milestone: reason)
        sheet = AnswerSheet(exercise, variant, data, expected_answers(exercise, variant))
        return Opened(calls=sheet)


ANSWERS_FILE = AnswersFile()
