"""Everything a batch writes into its output folder besides the gradebook, from gradebook rows:
``grades.csv``, ``grades-canvas.csv`` (on request), ``reports/STUDENT.html`` and
``class-report.html``. ``grade batch`` and ``grade batch merge`` both end here, so a merged
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
from grader.report.class_report import SimilarityLeads, UnusableEntry, render_view
from grader.spec import Exercise

GRADES_CSV = "grades.csv"
CANVAS_CSV = "grades-canvas.csv"
REPORTS_DIR = "reports"
CLASS_REPORT = "class-report.html"
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


def write_outputs(out: Path, book: Gradebook, gradings: Sequence[Grading],
                  settings: OutputSettings, fresh: set[int] = frozenset(),
                  exercises: Mapping[str, Exercise] | None = None,
                  similarity: SimilarityLeads | None = None) -> Written:
    """Write the output files for ``gradings`` of ``book`` (one per student and exercise);
    per-student reports are rewritten for the grading ids in ``fresh`` and written where
    missing, one report read from the gradebook at a time; the class report is counted by
    SQL. ``exercises`` (by id) let the class report name hidden checks by their case ids."""
    written = Written()
    gradings = sorted(gradings, key=lambda g: (g.student, g.exercise))
    unusable = book.unusable()
    _write(out / GRADES_CSV, grades_csv(gradings, unusable), written)
    if "canvas" in settings.csv_formats:
        titles = {g.exercise: g.title for g in gradings if g.has_report and g.title}
        _write(out / CANVAS_CSV, canvas_csv(gradings, settings.canvas_assignment, titles,
                                            unusable), written)
    written.reports = write_reports(gradings, out / REPORTS_DIR, only_missing_or=set(fresh))
    unusable_entries = [UnusableEntry(entry, reason, student) for entry, student, reason in unusable]
    view = counted_view(book, gradings, unusable_entries, settings.title, exercises)
    _write(out / CLASS_REPORT, render_view(view, similarity), written)
    return written


def _write(path: Path, text: str, written: Written) -> None:
    """Write through a temporary file, so a reader never sees half a file."""
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
    written.files.append(path)
