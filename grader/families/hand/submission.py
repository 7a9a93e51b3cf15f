"""An answers file opened for grading: read safely, and the student's variant recomputed.

No code runs and no sandbox starts: the file is read in the trusted process
(:mod:`grader.families.hand.answer_file`), and the variant is recomputed from the student id it
carries and the course secret. The checks then see an :class:`AnswerSheet`; a file that
cannot be read or names no valid student scores 0 everywhere with the reason, and is not
gradable. When the platform (or ``grade batch``) says who handed the file in, that student's
variant is graded, whatever the file's own ``student:`` line says, and a mismatch is reported:
a classmate's file does not score under another name.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from grader.families.hand.answer_file import AnswerFileError, commented_corpus, read_answer_file
from grader.families.hand.expected import expected_answers
from grader.families.hand.mistakes import diagnostic_variant
from grader.families.hand.variants import Variant, VariantError, check_student, course_secret
from grader.grading.secrets import SeedSecretError
from grader.grading.submissions import GradingSetupError
from grader.spec.hooks import Opened
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
             seed_secret: Optional[str], strict_sandbox: bool, helper: bool,
             submitter: Optional[str] = None) -> Opened:
        assert exercise.answers is not None
        limit = exercise.answers.max_file_bytes
        try:
            data = read_answer_file(path, limit)
            student, notices = handed_in_by(path.name, data.get("student"), submitter, "corpus")
            variant = diagnostic_variant(exercise, student, course_secret(seed_secret))
        except SeedSecretError as error:
            raise GradingSetupError(str(error)) from None
        except (AnswerFileError, VariantError) as error:
            return not_graded(f"{path.name} could not be graded: {error}")
        stated = commented_corpus(path, limit)
        if stated is not None and stated != dict(variant.corpus) and not notices:
            return not_graded(
                f"{path.name} was made for another corpus than the one student "
                f"{variant.student!r} has here: its comments list {_corpus_text(stated)}, but "
                f"{variant.student!r} is graded on {_corpus_text(variant.corpus)}. Check the "
                "student: line (it must be your own id, as the file was made with it), and take "
                "your file from your course (a file made with another secret has another corpus)."
            )
        sheet = AnswerSheet(exercise, variant, data, expected_answers(exercise, variant))
        return Opened(calls=sheet, notices=notices)


def not_graded(reason: str) -> Opened:
    """A file that cannot be graded: the reason once, each milestone pointing at it."""
    return Opened(not_gradable=[reason],
                  blocked=lambda milestone: "not graded: see the problem with the submission above")


def handed_in_by(file_name: str, student: Any, submitter: Optional[str],
                 what: str) -> tuple[Any, list[str]]:
    """Whose variant a file is graded on, and the notice when that is not its own line's.

    Who handed the file in (the platform's or the batch's ``submitter``) decides, never the
    file's own ``student:`` line; ``what`` names what the id draws ("corpus", "sheet")."""
    if submitter is None or student == submitter or not _valid(submitter):
        return student, []
    said = (f"says student: {str(student)[:70]!r}" if student is not None
            else "has no student: line")
    return submitter, [
        f"{file_name} {said}, but it was handed in by {submitter!r}: it is graded on "
        f"{submitter!r}'s {what}. Put your own id on the student: line of the file your "
        "course made for you."]


def _valid(submitter: str) -> bool:
    """Whether the platform's id can pick a variant (a folder named "Jane Doe" cannot: then
    the file's own line is used)."""
    try:
        check_student(submitter)
    except VariantError:
        return False
    return True


def _corpus_text(corpus: Any) -> str:
    return ", ".join(f"{word}: {count}" for word, count in dict(corpus).items())


ANSWERS_FILE = AnswersFile()
