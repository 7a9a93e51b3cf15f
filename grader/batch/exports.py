"""The class's grades as files: ``grades.csv``, Canvas's gradebook import CSV, and one HTML
report per student, all written from gradebook rows.

``grades.csv`` has ``student``, ``total`` and one column per milestone (its id), then
``outcome`` (``graded``, ``not-gradable``, ``grader-error``; a grader error leaves the scores
empty rather than pretending a zero) and ``reason`` (why it was not graded, or what its report
notes about the file, such as a classmate's file graded under the submitter's name). Points
are rounded to two decimals, as every report shows them. When the rows span several exercises an ``exercise``
column follows ``student``.

The Canvas file follows Canvas's gradebook import format: the columns ``Student``, ``ID``,
``SIS User ID``, ``SIS Login ID``, ``Section``, then one column per assignment named
``NAME (ID)`` (``ID`` is Canvas's assignment id; a name without one makes Canvas create a new
assignment), and a second row ``Points Possible``. Canvas matches a row to a student by one
of ``ID``, ``SIS User ID`` or ``SIS Login ID``: the student id goes in ``SIS User ID`` and the
e-mail, when known (Gradescope exports), in ``SIS Login ID``; ``ID`` and ``Section`` are left
empty.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from grader.batch.gradebook import Grading
from grader.batch.stored import report_from_json
from grader.report import render
from grader.report.safety import clean_text
from grader.report.summary import points

CANVAS_FIXED = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
UNSAFE_FILE_CHARACTERS = re.compile(r"[^A-Za-z0-9._@+-]")


def score_text(value: float | None) -> str:
    """Points as every report shows them: rounded to two decimals (``52.79``, ``12``)."""
    if value is None:
        return ""
    return points(value)


def milestone_ids(gradings: Iterable[Grading]) -> list[str]:
    """Every milestone id, in the order the exercises list them."""
    seen: dict[str, None] = {}
    for grading in gradings:
        for milestone, _, _ in grading.milestone_scores:
            seen.setdefault(milestone, None)
    return list(seen)


def grades_csv(gradings: Sequence[Grading],
               unusable: Sequence[tuple[str, str, str]] = (),
               notes: Mapping[tuple[str, str], str] | None = None) -> str:
    """One row per grading (its reason: why it could not be graded, or the grader's fault,
    and ``notes[(student, exercise)]``: why a grading policy kept it), and one per unusable
    entry that names a student (no score, the reason): nobody handed in is missing from the
    file."""
    milestones = milestone_ids(gradings)
    several = len({g.exercise for g in gradings}) > 1
    header = (["student"] + (["exercise"] if several else []) + ["total"] + milestones
              + ["outcome", "reason"])
    rows = [header]
    for grading in gradings:
        scores = {m: s for m, s, _ in grading.milestone_scores}
        errored = grading.outcome == "grader-error"
        row = [grading.student] + ([grading.exercise] if several else [])
        row.append("" if errored else score_text(grading.score))
        row += ["" if errored or m not in scores else score_text(scores[m]) for m in milestones]
        reason = grading.error if errored else grading.not_gradable
        note = (notes or {}).get((grading.student, grading.exercise), "")
        row += [grading.outcome, "; ".join(text for text in (note, reason) if text)]
        rows.append(row)
    graded = {grading.student for grading in gradings}
    for entry, student, reason in unusable:
        if student and student not in graded:
            rows.append([student] + ([""] if several else []) + [""] + [""] * len(milestones)
                        + ["unusable", f"{entry}: {reason}"])
    return safe_csv(rows)


def canvas_csv(gradings: Sequence[Grading], assignment: str | None = None,
               titles: dict[str, str] | None = None,
               unusable: Sequence[tuple[str, str, str]] = (),
               current: Sequence[Grading] | None = None) -> str:
    """Canvas's import format; ``assignment`` names the column when there is one exercise.
    A student whose entry was unusable has a row with no score (Canvas leaves it ungraded).
    ``Points Possible`` is of the ``current`` gradings (default: ``gradings``): a grade a
    policy kept from an earlier spec does not set the assignment's maximum."""
    exercises = list(dict.fromkeys(g.exercise for g in gradings))
    titles = titles or {}
    columns = {}
    for exercise in exercises:
        if assignment and len(exercises) == 1:
            columns[exercise] = assignment
        else:
            columns[exercise] = titles.get(exercise) or exercise
    current = gradings if current is None else current
    possible = {exercise: max((g.max_score for g in current if g.exercise == exercise),
                              default=0.0) for exercise in exercises}
    rows = [list(CANVAS_FIXED) + [columns[e] for e in exercises],
            ["Points Possible", "", "", "", ""] + [score_text(possible[e]) for e in exercises]]
    by_student: dict[str, dict[str, Grading]] = {}
    for grading in gradings:
        by_student.setdefault(grading.student, {})[grading.exercise] = grading
    for student, graded in by_student.items():
        first = next(iter(graded.values()))
        row = [first.name or student, "", student, first.email, ""]
        for exercise in exercises:
            grading = graded.get(exercise)
            ok = grading is not None and grading.outcome != "grader-error"
            row.append(score_text(grading.score) if ok else "")
        rows.append(row)
    for _, student, _ in unusable:
        if student and student not in by_student:
            rows.append([student, "", student, "", ""] + [""] * len(exercises))
            by_student[student] = {}
    return safe_csv(rows)


def safe_csv(rows: list[list[str]]) -> str:
    """CSV text of ``rows`` whose cells no spreadsheet runs as formulas."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerows([[_cell(value) for value in row] for row in rows])
    return buffer.getvalue()


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""Leading characters a spreadsheet may read as a formula (OWASP's list, TAB and CR too)."""


def _cell(value: object) -> str:
    """Text a spreadsheet will not run as a formula, and no terminal escape (ids and names
    come from students)."""
    raw = str(value)
    text = clean_text(raw)
    formula = raw[:1] in FORMULA_STARTS or text[:1] in FORMULA_STARTS
    return "'" + text if formula and not _number(text) else text


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def report_file_name(student: str, exercise: str = "", several: bool = False) -> str:
    """A safe file name for ``student``'s report, one per id: an id that is not safe as it is
    is made safe and gets ``~`` and a digest of the exact id. ``~`` is never in a safe id, so
    two ids never share a file (``a b`` is ``a_b~…``, ``a_b`` stays ``a_b``)."""
    base = UNSAFE_FILE_CHARACTERS.sub("_", student).strip(".") or "student"
    if base != student:
        base += "~" + hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    if several:
        base += "--" + UNSAFE_FILE_CHARACTERS.sub("_", exercise)
    return base + ".html"


def write_reports(gradings: Sequence[Grading], folder: Path, *, only_missing_or: set[int] = frozenset(),
                  notes: Mapping[tuple[str, str], str] | None = None) -> int:
    """Write ``folder/STUDENT.html`` for each grading with a report; return how many were
    written. Existing files are kept unless their grading's id is in ``only_missing_or`` or
    the grading has a note (``notes[(student, exercise)]``: which grade the exports kept, shown
    first in the report)."""
    notes = notes or {}
    folder.mkdir(parents=True, exist_ok=True)
    several = len({g.exercise for g in gradings}) > 1
    written = 0
    for grading in gradings:
        path = folder / report_file_name(grading.student, grading.exercise, several)
        if not grading.has_report:  # grading failed: no report, and none left from before
            path.unlink(missing_ok=True)
            continue
        note = notes.get((grading.student, grading.exercise))
        if grading.id not in only_missing_or and not note and path.exists():
            continue
        data, student_output = grading.stored()
        if data is None:
            continue
        report = report_from_json(data, student_output)
        if note:
            report.notes.insert(0, f"Your recorded grade: {note}. This report is of your "
                                   "latest grading.")
        path.write_text(render(report, "html"), encoding="utf-8")
        written += 1
    return written
