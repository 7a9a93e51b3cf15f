"""Each student's own starting file, rendered from a class roster with the course's secret.

An exercise whose students each work on their own variant (an answers file on their own
corpus) needs one starting file per student. PrairieLearn questions draw theirs per variant
(:mod:`grader.bundles.prairielearn`); for Gradescope and GitHub Classroom the course renders
every student's file from its roster with ``grade stub EXERCISE --roster FILE -o DIR``, with
the secret the bundle grades with, and hands each student theirs. A roster is a text file of
one id per line (``#`` starts a comment) or a ``.csv`` file whose column ``id_column`` (by
default the first) holds the ids: the ids the platform passes on when grading (Gradescope:
the email; GitHub Classroom: the GitHub username). :func:`starters_readme` is the note a
bundle of such an exercise carries.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from grader.bundles.common import BundleError, roster_starting_files, student_starting_file
from grader.grading.student_ids import DEFAULT_STUDENT_ID, ROSTER_COLUMNS
from grader.spec import Exercise

MAX_ROSTER_BYTES = 5_000_000
# Who each platform says handed a file in (templates/lms/entrypoint.py reads it).
SUBMITTER_IDS = {
    ("gradescope", "email"): "the e-mail of the submitter (Gradescope's roster export: the Email column)",
    ("gradescope", "sid"): "the SID of the submitter (Gradescope's roster export: the SID column)",
    ("classroom", "email"): "the GitHub username of who pushed (GitHub Classroom's roster: github_username)",
    ("classroom", "sid"): "the GitHub username of who pushed (GitHub Classroom's roster: github_username)",
}
"""Who each door says handed a file in, under the course's student id setting (GitHub names
students by their username whatever the setting)."""
ROSTER_ID_COLUMN = {("gradescope", "email"): "Email", ("gradescope", "sid"): "SID",
                    ("classroom", "email"): "github_username", ("classroom", "sid"): "github_username"}


@dataclass(frozen=True)
class RenderedStarters:
    directory: Path
    students: list[str]


def read_roster(path: Path, id_column: Optional[str] = None,
                student_id: Optional[str] = None) -> list[str]:
    """The student ids of a roster, in order, each once; :class:`BundleError` says what is wrong.
    A .csv roster's ids are in ``id_column``, else the column the course's ``student_id``
    setting names (``Email`` or ``SID``) when the roster has one, else its first column."""
    try:
        if path.stat().st_size > MAX_ROSTER_BYTES:
            raise BundleError(f"{path} is over {MAX_ROSTER_BYTES // 1_000_000} MB: is it a roster?")
        text = path.read_text(encoding="utf-8-sig")
    except OSError as error:
        raise BundleError(f"cannot read the roster {path}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise BundleError(f"the roster {path} is not UTF-8 text") from None
    if path.suffix.lower() == ".csv":
        found = _csv_ids(path, text, id_column, student_id)
    else:
        if id_column is not None:
            raise BundleError(f"--id-column is for a .csv roster; {path} is read as one id per line")
        found = [(number, line.split("#", 1)[0].strip())
                 for number, line in enumerate(text.splitlines(), start=1)]
    ids = [(number, value) for number, value in found if value]
    if not ids:
        raise BundleError(f"the roster {path} lists no student ids")
    return list(dict.fromkeys(value for _, value in ids))


def _csv_ids(path: Path, text: str, id_column: Optional[str],
             student_id: Optional[str] = None) -> list[tuple[int, str]]:
    rows = list(csv.reader(text.splitlines()))
    if not rows:
        raise BundleError(f"the roster {path} is empty")
    header = [name.strip() for name in rows[0]]
    named = [name.lower() for name in ROSTER_COLUMNS.get(student_id or "", ())]
    if id_column is None and any(name.lower() in named for name in header):
        index = next(i for i, name in enumerate(header) if name.lower() in named)
    elif id_column is None:
        index = 0
    else:
        lowered = [name.lower() for name in header]
        if id_column.strip().lower() not in lowered:
            raise BundleError(f"the roster {path} has no column {id_column!r}; its columns: "
                              + ", ".join(repr(name) for name in header))
        index = lowered.index(id_column.strip().lower())
    return [(number, row[index].strip() if index < len(row) else "")
            for number, row in enumerate(rows[1:], start=2)]


def render_starters(exercise: Exercise, students: list[str], secret: Optional[str], directory: Path, *,
                    force: bool = False) -> RenderedStarters:
    """Write ``DIRECTORY/ID/<student file>`` for every student; nothing when any id is bad."""
    rendered, problems = {}, []
    for student in students:
        try:
            rendered[student] = student_starting_file(exercise, student, secret)
        except ValueError as error:
            problems.append(f"{student[:70]!r}: {error}")
    if problems:
        more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
        raise BundleError("no file was written; these ids cannot be used: "
                          + "; ".join(problems[:10]) + more)
    rendered = roster_starting_files(exercise, list(students), secret)
    targets = {student: directory / student / exercise.student_file for student in students}
    existing = [path for path in targets.values() if path.exists()]
    if existing and not force:
        raise BundleError(f"{existing[0]} already exists; pass --force to overwrite the files")
    try:
        for student, path in targets.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(rendered[student], encoding="utf-8")
    except OSError as error:
        raise BundleError(f"cannot write into {directory}: {error.strerror or error}") from None
    return RenderedStarters(directory=directory, students=list(students))


def starters_readme(exercise: Exercise, platform: str, secret_path: str,
                    student_id: str = DEFAULT_STUDENT_ID) -> str:
    """The note a bundle of a per-student exercise carries: how each student gets their file,
    under the course's ``student_id`` setting."""
    setting = (f" (the course's student id setting, `--student-id {student_id}`: pass the same "
               "to `grade batch` of an export)") if platform == "gradescope" else ""
    return f"""# {exercise.title}: each student's own {exercise.student_file}

Every student of `{exercise.id}` works on a variant of their own, drawn from their id and
the course's secret: the secret this bundle grades with, in `{secret_path}` (keep it: a
bundle rebuilt with another secret gives every student another variant; pass the same one
with `grade bundle ... --seed-secret SECRET`).

The grader grades the variant of who handed the file in: {SUBMITTER_IDS[platform, student_id]}{setting}.
Render every student's own file from the roster with the same ids and the same secret:

    GRADE_SEED_SECRET_FILE={secret_path} grade stub {exercise.id} --roster roster.csv \\
        --id-column {ROSTER_ID_COLUMN[platform, student_id]} -o starters/

and give each student `starters/ID/{exercise.student_file}` (its `student:` line names
them). A file handed in by someone else than its `student:` line names is graded on the
submitter's variant, and the report says so; a file the platform names no one for (a group
submission) earns no credit, and the report says why.
"""
