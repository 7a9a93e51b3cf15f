"""The class report's view counted by SQL over the gradebook's summary tables, never decoding a
stored report: the same :class:`~grader.report.class_report.ClassView` that
:func:`~grader.report.class_report.class_view` builds from the reports themselves.

The gradings counted are the gradebook's temporary table ``chosen``
(:meth:`~grader.batch.gradebook.Gradebook.choose`), in its order (by student, then exercise).
"""

from __future__ import annotations

import statistics
from typing import Mapping, Sequence

from grader.batch.gradebook import Gradebook, Grading
from grader.report.class_report import (
    CheckRow,
    ClassView,
    EfficiencyRow,
    ExerciseSection,
    MistakeRow,
    ProblemRow,
    UnusableEntry,
    hidden_case_names,
    histogram,
    named_key,
    named_title,
    ranked_checks,
    ranked_efficiency,
    ranked_mistakes,
    ranked_problems,
    ratio_chart,
)
from grader.spec import Exercise

FROM_CHOSEN = " FROM chosen c JOIN gradings g ON g.id = c.id "


def counted_view(book: Gradebook, gradings: Sequence[Grading],
                 unusable: Sequence[UnusableEntry] = (), title: str = "Class report",
                 exercises: Mapping[str, Exercise] | None = None) -> ClassView:
    """The class view of ``gradings`` (by student, then exercise); ``exercises`` (by id)
    name the hidden checks by their case ids."""
    book.choose(gradings)
    db = book.db
    students = db.execute("SELECT COUNT(DISTINCT g.student)" + FROM_CHOSEN).fetchone()[0]
    view = ClassView(title=title, students=students, unusable=len(unusable))
    reported = [row[0] for row in db.execute(
        "SELECT DISTINCT g.exercise" + FROM_CHOSEN + "WHERE g.report IS NOT NULL")]
    for exercise in sorted(reported):
        names = hidden_case_names((exercises or {}).get(exercise))
        view.sections.append(_section(book, exercise, names))
    view.problems = _problems(book, unusable)
    return view


def _section(book: Gradebook, exercise: str, names: dict[int, str]) -> ExerciseSection:
    db = book.db
    where = "WHERE g.exercise = ? AND g.report IS NOT NULL "
    first_id, title, max_score = db.execute(
        "SELECT g.id, g.title, g.max_score" + FROM_CHOSEN + where + "ORDER BY c.ord LIMIT 1",
        (exercise,)).fetchone()
    totals, gradable, full_marks = [], 0, 0
    for score, row_max, row_gradable in db.execute(
            "SELECT g.score, g.max_score, g.gradable" + FROM_CHOSEN + where + "ORDER BY c.ord",
            (exercise,)):
        totals.append(score)
        gradable += bool(row_gradable)
        full_marks += score >= row_max > 0
    charts = [("Total", histogram(totals, max_score))]
    for position, milestone, milestone_title, milestone_max in db.execute(
            "SELECT position, milestone, title, max_score FROM milestone_scores"
            " WHERE grading_id = ? ORDER BY position", (first_id,)).fetchall():
        scores = [row[0] for row in db.execute(
            "SELECT s.score" + FROM_CHOSEN + "JOIN milestone_scores s ON s.grading_id = g.id "
            + where + "AND s.position = ? AND s.milestone = ?", (exercise, position, milestone))]
        charts.append((f"{milestone_title or milestone} ({milestone})",
                       histogram(scores, milestone_max)))
    efficiency = _efficiency(book, exercise)
    return ExerciseSection(
        exercise=exercise, title=title or exercise, students=len(totals), gradable=gradable,
        max_score=max_score, mean=statistics.fmean(totals), median=statistics.median(totals),
        charts=charts, mistakes=_mistakes(book, exercise, names),
        checks=_checks(book, exercise, names), efficiency=efficiency,
        efficiency_chart=ratio_chart(efficiency) if efficiency else None, full_marks=full_marks)


def _mistakes(book: Gradebook, exercise: str, names: dict[int, str]) -> list[MistakeRow]:
    """Per student and milestone, the mistakes every diagnosed failing check agrees on (all
    of them when the checks disagree), counted once per student."""
    rows: dict[str, MistakeRow] = {}

    def close(student: str, checks: dict[str, list[tuple[str, str]]]) -> None:
        named: dict[str, tuple[str, list[str]]] = {}
        agreed: set[str] | None = None
        for key, diagnoses in checks.items():
            ids = {mistake for mistake, _ in diagnoses}
            agreed = ids if agreed is None else agreed & ids
            for mistake, title in diagnoses:
                named.setdefault(mistake, (title, []))[1].append(named_key(key, names))
        for mistake in sorted(agreed or named):
            title, where = named[mistake]
            row = rows.setdefault(mistake, MistakeRow(mistake, title, [], []))
            if student not in row.students:
                row.students.append(student)
            row.where.extend(w for w in where if w not in row.where)

    current: tuple[int, str] | None = None
    student, checks = "", {}
    for grading_id, who, milestone, check_id, mistake, title in book.db.execute(
            "SELECT g.id, g.student, m.milestone, m.check_id, m.mistake, m.title" + FROM_CHOSEN
            + "JOIN mistakes m ON m.grading_id = g.id WHERE g.exercise = ?"
            " AND g.report IS NOT NULL ORDER BY c.ord, m.rowid", (exercise,)):
        if (grading_id, milestone) != current:
            if current is not None:
                close(student, checks)
            current, student, checks = (grading_id, milestone), who, {}
        checks.setdefault(f"{milestone}.{check_id}", []).append((mistake, title))
    if current is not None:
        close(student, checks)
    return ranked_mistakes(list(rows.values()))


def _checks(book: Gradebook, exercise: str, names: dict[int, str]) -> list[CheckRow]:
    """Failure rates over the gradable submissions; a milestone whose function is missing ran
    no check and is left out. A check's title is the one its first student saw."""
    rows = []
    for key, title, hidden, total, failed, _ in book.db.execute(
            "SELECT k.key, k.title, k.hidden, COUNT(*), SUM(1 - k.passed),"
            " MIN(c.ord * 100000 + k.position)" + FROM_CHOSEN
            + "JOIN checks k ON k.grading_id = g.id WHERE g.exercise = ?"
            " AND g.report IS NOT NULL AND g.gradable AND k.counted GROUP BY k.key", (exercise,)):
        hidden = bool(hidden)
        rows.append(CheckRow(named_key(key, names) if hidden else key,
                             named_title(title, names) if hidden else title, hidden,
                             int(failed), int(total), False))
    return ranked_checks(rows)


def _efficiency(book: Gradebook, exercise: str) -> list[EfficiencyRow]:
    return ranked_efficiency([
        EfficiencyRow(student, ratio, limit, bool(passed), score, max_score)
        for student, ratio, limit, passed, score, max_score in book.db.execute(
            "SELECT g.student, t.ratio, t.limit_ratio, t.passed, t.score, t.max_score"
            + FROM_CHOSEN + "JOIN timings t ON t.grading_id = g.id WHERE g.exercise = ?"
            " AND g.report IS NOT NULL ORDER BY c.ord, t.position", (exercise,))])


def _problems(book: Gradebook, unusable: Sequence[UnusableEntry]) -> list[ProblemRow]:
    rows = []
    for student, has_report, gradable, reason, error in book.db.execute(
            "SELECT g.student, g.report IS NOT NULL, g.gradable, g.not_gradable, g.error"
            + FROM_CHOSEN + "WHERE g.report IS NULL OR NOT g.gradable ORDER BY c.ord"):
        if not has_report:
            rows.append(ProblemRow(student, "grader error", error))
        else:
            rows.append(ProblemRow(student, "not gradable", reason))
    rows += [ProblemRow(student, kind, detail) for student, kind, detail in book.db.execute(
        "SELECT g.student, p.kind, p.detail" + FROM_CHOSEN
        + "JOIN problems p ON p.grading_id = g.id WHERE g.report IS NOT NULL"
        " ORDER BY c.ord, p.position")]
    rows += [ProblemRow(item.student or item.entry, "unusable", f"{item.entry}: {item.reason}")
             for item in unusable]
    # The ranking is stable, and no two lists share a kind: within one kind and student the
    # rows keep the order of the gradings.
    return ranked_problems(rows)
