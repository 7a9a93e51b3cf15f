"""Who a student is, for exercises that give each student a variant of their own.

A variant (a corpus, an order of options) is drawn by a generator seeded with
HMAC-SHA256(secret, exercise id and student id): the same student always gets the same
variant, different students almost always different ones, and without the secret nobody can
compute another student's. The secret comes from ``--seed-secret``, else the environment (the
``GRADE_SEED_SECRET`` variable or the file ``GRADE_SEED_SECRET_FILE`` names), else
:data:`DEFAULT_SECRET`, a documented value fit only for practice: a course sets its own.

Which of the ids a platform gives names a student is a course setting too
(:func:`student_id_setting`): the e-mail or the SID Gradescope lists for a submitter. The
Gradescope door, ``grade batch`` of a Gradescope export, ``grade stub --roster`` (the roster
column it reads) and the bundles' READMEs all follow it, so a file is graded on the variant
its student was given whichever way it is graded.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from typing import Optional

from grader.grading.secrets import environment_secret

DEFAULT_SECRET = "local-practice"
STUDENT_IDS = {"email": "e-mail", "sid": "SID"}
"""The ids a course can name its students by: setting -> how the docs and messages say it.
Each is the field of that name in Gradescope's submitter records."""
DEFAULT_STUDENT_ID = "email"
STUDENT_ID_VARIABLE = "GRADE_STUDENT_ID"
ROSTER_COLUMNS = {"email": ("Email", "E-mail", "email"), "sid": ("SID", "Student ID", "sid")}
"""The roster columns that hold each kind of id, as Gradescope's and Canvas's rosters name them."""
STUDENT_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$")


class VariantError(ValueError):
    """No variant can be drawn: a bad student id, or settings that cannot meet the rules."""


def course_secret(given: Optional[str] = None) -> str:
    """The secret to seed variants with: ``given``, else the environment's (its variable or
    the file it names, as a bundle's entry point sets it), else the shared practice one.
    Raises ``SeedSecretError`` for a secret file that cannot be read."""
    return given or environment_secret() or DEFAULT_SECRET


def student_id_setting(given: Optional[str] = None) -> str:
    """Which platform id names a student: ``given``, else ``$GRADE_STUDENT_ID``, else the
    e-mail. :class:`VariantError` for a value that is neither."""
    chosen = given or os.environ.get(STUDENT_ID_VARIABLE, "").strip() or DEFAULT_STUDENT_ID
    if chosen not in STUDENT_IDS:
        raise VariantError(f"the student id setting is {chosen!r}: it must be one of "
                           f"{', '.join(STUDENT_IDS)} (which id Gradescope's records name a "
                           "student by)")
    return chosen


def check_student(student: object, draws: str = "your corpus") -> str:
    """``student`` if it is a valid id, else :class:`VariantError` saying how to write one;
    ``draws`` is what the grader recomputes from it."""
    if student is None:
        raise VariantError(
            "the file has no student id: add the line student: \"YOUR_ID\" (the id your course "
            f"gave you; the grader recomputes {draws} from it)"
        )
    if isinstance(student, int):
        raise VariantError(
            f"the student id is written as the number {str(student)[:70]}: put it in quotes, "
            f"student: \"YOUR_ID\", so that it is read as written (a number loses leading zeros)"
        )
    if not isinstance(student, str) or not STUDENT_PATTERN.match(student):
        raise VariantError(
            f"student id {str(student)[:70]!r} must be 1-64 letters, digits or ._@+- "
            "starting with a letter or digit"
        )
    return student


def variant_seed(exercise_id: str, student: str, secret: str) -> int:
    message = f"{exercise_id}\0{student}".encode("utf-8")
    digest = hmac.new(secret.encode("utf-8"), message, hashlib.sha256).digest()
    return int.from_bytes(digest, "big")
