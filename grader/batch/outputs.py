"""Everything a batch writes into its output folder besides the gradebook, from gradebook rows:
``grades.csv``, ``grades-canvas.csv`` (on request), ``reports/STUDENT.html``,
``class-report.html`` and, after a regrade, ``regrade.csv``. ``grade batch`` and ``grade batch merge`` both end here, so a merged
folder looks exactly like one graded in a single run. Only one stored report is in memory at
a time, whatever the size of the class."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from grader.batch.class_stats import counted_view
from grader.batch.exports import canvas_csv, grades_csv, write_reports
from grader.batch.gradebook import Gradebook, Grading
from grader.report.class_report import (
    ChangesSection,
    SimilarityLeads,
    UnusableEntry,
    render_view,
)
from grader.spec import Exercise

GRADES_CSV = "grades.csv"
CANVAS_CSV = "grades-canvas.csv"
REPORTS_DIR = "reports"
CLASS_REPORT = "class-report.html"
REGRADE_CSV = "regrade.csv"
CSV_FORMATS = ("plain", "canvas")


@dataclass
class OutputSettings:
    csv_formats: Sequence[str] = ("plain",)
    canvas_assignment: str | None = None
    title: str = "Class report"


@dataclass
class Written:
    files: list[Path] = field(default_factory=list)
    reports: int = 0


@dataclass
class Exports:
    """What the exports take when a grading policy keeps an earlier grading for some
    students: the gradings (one per student and exercise) and, by (student, exercise), why
    one is not the latest; the class report's "What changed" and the regrade's CSV text."""

    gradings: Sequence[Grading]
    notes: Mapping[tuple[str, str], str] = field(default_factory=dict)
    changes: ChangesSection | None = None
    regrade_csv: str | None = None


def write_outputs(out: Path, book: Gradebook, gradings: Sequence[Grading],
                  settings: OutputSettings, fresh: set[int] = frozenset(),
                  exercises: Mapping[str, Exercise] | None = None,
                  similarity: SimilarityLeads | None = None,
                  exports: Exports | None = None) -> Written:
    """Write the output files for ``gradings`` of ``book`` (each student's latest, one per
    student and exercise); per-student reports are rewritten for the grading ids in ``fresh``
    and written where missing, one report read from the gradebook at a time; the class report
    is counted by SQL. ``exercises`` (by id) let the class report name hidden checks by their
    case ids. ``exports``: the gradings grades.csv and Canvas take under a grading policy
    (default: ``gradings``); a student's report then says which grade was kept."""
    written = Written()
    gradings = sorted(gradings, key=lambda g: (g.student, g.exercise))
    exported = sorted(exports.gradings if exports else gradings,
                      key=lambda g: (g.student, g.exercise))
    notes = dict(exports.notes) if exports else {}
    unusable = book.unusable()
    if exports is not None and exports.regrade_csv is not None:
        write_text(out / REGRADE_CSV, exports.regrade_csv, written)
    write_text(out / GRADES_CSV, grades_csv(exported, unusable, notes), written)
    if "canvas" in settings.csv_formats:
        titles = {g.exercise: g.title for g in gradings if g.has_report and g.title}
        write_text(out / CANVAS_CSV, canvas_csv(exported, settings.canvas_assignment, titles,
                                                unusable, current=gradings), written)
    written.reports = write_reports(gradings, out / REPORTS_DIR, only_missing_or=set(fresh),
                                    notes=notes)
    unusable_entries = [UnusableEntry(entry, reason, student) for entry, student, reason in unusable]
    view = counted_view(book, gradings, unusable_entries, settings.title, exercises)
    view.changes = exports.changes if exports else None
    write_text(out / CLASS_REPORT, render_view(view, similarity), written)
    return written


def write_text(path: Path, text: str, written: Written) -> None:
    """Write through a temporary file, so a reader never sees half a file."""
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
    written.files.append(path)
