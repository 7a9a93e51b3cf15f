"""The class report: one self-contained HTML page about a whole class's gradings.

For each exercise: the distribution of totals and of each milestone's scores (inline SVG bar
charts, no script, no network), the named mistakes ranked by how many students made them
(with the students), every check ranked by failure rate (a hidden check that nearly every
loadable submission fails is flagged: its expected value may be wrong), the efficiency
ratios (student time / reference time), the submissions that crashed, timed out, did not
load, or could not be graded at all, and what the run changed (a regrade's "What changed"). Rendered from ``GradeReport`` objects with
``templates/class_report.html.j2`` (autoescaped); the charts are built here and escaped here.

Crashes and time-outs are recognised from the check messages the sandbox writes (a call that
raised an exception, ``train_bpe raised IndexError: ...``, or was killed by a signal;
``timed out after``, ``did not finish within``). The page is for course staff only, so a
hidden check is named by its spec's case id (``Hidden case 3`` is ``tie-heavy (hidden case
3)``) when the exercise is given: hidden cases are numbered exercise-wide in the spec's order,
as the cases check numbers them.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from markupsafe import Markup, escape

from grader.grading.plain_words import names_a_crash
from grader.report.documents import report_environment
from grader.result import GradeReport, display_error
from grader.spec import Exercise

BINS = 10
SUSPECT_FAILURE_RATE = 0.9
SUSPECT_MIN_STUDENTS = 3
_RAISED = re.compile(r"\b\w+ raised [A-Z]\w*")
_HIDDEN_ID = re.compile(r"\bhidden-(\d+)\b")
_HIDDEN_TITLE = re.compile(r"\bHidden case (\d+)\b")


@dataclass(frozen=True)
class ClassEntry:
    """One student's grading: ``report`` is None when grading itself failed (``error``)."""

    student: str
    report: GradeReport | None
    error: str = ""


@dataclass(frozen=True)
class UnusableEntry:
    entry: str
    reason: str
    student: str = ""


@dataclass
class MistakeRow:
    id: str
    title: str
    students: list[str]
    where: list[str]


@dataclass
class CheckRow:
    key: str
    title: str
    hidden: bool
    failed: int
    total: int
    suspect: bool

    @property
    def rate(self) -> float:
        return self.failed / self.total if self.total else 0.0


@dataclass
class ProblemRow:
    student: str
    kind: str  # "crashed", "timed out", "not gradable", "grader error", "unusable"
    detail: str


@dataclass
class EfficiencyRow:
    student: str
    ratio: float | None
    limit: float | None
    passed: bool
    score: float = 0.0
    max_score: float = 0.0

    @property
    def verdict(self) -> str:
        """What the row's check gave: its points, and why a fast run earned none."""
        earned = f"{self.score:g}/{self.max_score:g}"
        if self.passed and self.score == 0 and self.max_score > 0:
            return f"{earned}: fast enough, withheld (no real work shown)"
        return earned if self.passed else f"{earned}: not passed"


@dataclass
class ExerciseSection:
    exercise: str
    title: str
    students: int
    gradable: int
    max_score: float
    mean: float
    median: float
    charts: list[tuple[str, Markup]]
    mistakes: list[MistakeRow]
    checks: list[CheckRow]
    efficiency: list[EfficiencyRow]
    efficiency_chart: Markup | None
    full_marks: int = 0


@dataclass
class ChangeRow:
    """One student's line of "What changed" (points already as text)."""

    student: str
    exercise: str
    before: str
    after: str
    change: str
    milestones: str
    why: str
    exported: str
    note: str


@dataclass
class ChangesSection:
    """What the last run of ``grade batch`` changed: a summary line, the policy the exports
    follow, and the changes (kept grades first, then the largest), at most a page of them;
    ``total`` of them are in ``file``."""

    summary: str
    policy: str
    rows: list[ChangeRow]
    total: int
    file: str


@dataclass
class ClassView:
    title: str
    students: int
    unusable: int
    sections: list[ExerciseSection] = field(default_factory=list)
    problems: list[ProblemRow] = field(default_factory=list)
    changes: ChangesSection | None = None


def class_view(entries: Sequence[ClassEntry], unusable: Sequence[UnusableEntry] = (),
               title: str = "Class report",
               exercises: Mapping[str, Exercise] | None = None) -> ClassView:
    """``exercises`` (by id) name the hidden checks by their case ids."""
    view = ClassView(title=title, students=len({e.student for e in entries}),
                     unusable=len(unusable))
    by_exercise: dict[str, list[ClassEntry]] = defaultdict(list)
    for entry in entries:
        if entry.report is not None:
            by_exercise[entry.report.exercise].append(entry)
    for exercise, group in sorted(by_exercise.items()):
        names = hidden_case_names((exercises or {}).get(exercise))
        view.sections.append(_section(exercise, group, names))
    view.problems = _problems(entries, unusable)
    return view


def hidden_case_names(exercise: Exercise | None) -> dict[int, str]:
    """Hidden case number -> the spec's case id (numbered exercise-wide, in the spec's order)."""
    if exercise is None:
        return {}
    return {number: case.id for number, case in enumerate(exercise.hidden_cases, 1)}


def named_key(key: str, names: dict[int, str]) -> str:
    return _HIDDEN_ID.sub(lambda m: names.get(int(m.group(1)), m.group(0)), key)


def named_title(title: str, names: dict[int, str]) -> str:
    def name(match: re.Match) -> str:
        number = int(match.group(1))
        return f"{names[number]} (hidden case {number})" if number in names else match.group(0)

    return _HIDDEN_TITLE.sub(name, title)


@dataclass(frozen=True)
class SimilarityLeads:
    """What ``grade batch --similarity`` found, as the class report lists it: rows of
    (student, other, what they share) and the page with the details."""

    rows: Sequence[tuple[str, str, str]]
    page: str
    note: str = ""  # what the comparison left out (the files it cut), if anything


def render_class_report(entries: Sequence[ClassEntry], unusable: Sequence[UnusableEntry] = (),
                        title: str = "Class report",
                        exercises: Mapping[str, Exercise] | None = None,
                        similarity: SimilarityLeads | None = None) -> str:
    return render_view(class_view(entries, unusable, title, exercises), similarity)


def render_view(view: ClassView, similarity: SimilarityLeads | None = None) -> str:
    """The page of a class view, however it was counted."""
    template = report_environment().get_template("class_report.html.j2")
    return template.render(view=view, percent=lambda value: f"{100 * value:.0f}%",
                           points=_points, similarity=similarity)


def ranked_mistakes(rows: Iterable[MistakeRow]) -> list[MistakeRow]:
    """Most students first; each row's students sorted."""
    for row in rows:
        row.students.sort()
    return sorted(rows, key=lambda r: (-len(r.students), r.id))


def ranked_checks(rows: Iterable[CheckRow]) -> list[CheckRow]:
    """Highest failure rate first, a hidden check nearly everyone fails marked suspect."""
    for row in rows:
        row.suspect = (row.hidden and row.total >= SUSPECT_MIN_STUDENTS
                       and row.rate >= SUSPECT_FAILURE_RATE)
    return sorted(rows, key=lambda r: (-r.rate, r.key))


def ranked_efficiency(rows: Iterable[EfficiencyRow]) -> list[EfficiencyRow]:
    return sorted(rows, key=lambda r: (r.ratio is None, r.ratio or 0.0, r.student))


PROBLEM_ORDER = {"grader error": 0, "crashed": 1, "timed out": 2, "not gradable": 3,
                 "unusable": 4}


def ranked_problems(rows: Iterable[ProblemRow]) -> list[ProblemRow]:
    return sorted(rows, key=lambda r: (PROBLEM_ORDER.get(r.kind, 9), r.student))


# --------------------------------------------------------------------------- sections


def _section(exercise: str, group: list[ClassEntry], names: dict[int, str]) -> ExerciseSection:
    reports = [e.report for e in group if e.report is not None]
    first = reports[0]
    totals = [r.score for r in reports]
    charts = [("Total", histogram(totals, first.max_score))]
    for index, milestone in enumerate(first.milestones):
        scores = [r.milestones[index].score for r in reports
                  if index < len(r.milestones) and r.milestones[index].id == milestone.id]
        charts.append((f"{milestone.title or milestone.id} ({milestone.id})",
                       histogram(scores, milestone.max_score)))
    gradable = [e for e in group if e.report is not None and e.report.gradable]
    efficiency = _efficiency(group)
    return ExerciseSection(
        exercise=exercise, title=first.title or exercise, students=len(group),
        gradable=len(gradable), max_score=first.max_score,
        mean=statistics.fmean(totals), median=statistics.median(totals), charts=charts,
        mistakes=_mistakes(group, names), checks=_checks(gradable, names), efficiency=efficiency,
        efficiency_chart=ratio_chart(efficiency) if efficiency else None,
        full_marks=sum(1 for r in reports if r.score >= r.max_score > 0),
    )


def _mistakes(group: list[ClassEntry], names: dict[int, str]) -> list[MistakeRow]:
    """Per student and milestone, the mistakes every diagnosed failing check agrees on (all
    of them when the checks disagree), counted once per student."""
    rows: dict[str, MistakeRow] = {}
    for entry in group:
        assert entry.report is not None
        for milestone in entry.report.milestones:
            named: dict[str, tuple[str, list[str]]] = {}
            agreed: set[str] | None = None
            for check in milestone.checks:
                if check.passed or not check.diagnoses:
                    continue
                ids = {diagnosis.id for diagnosis in check.diagnoses}
                agreed = ids if agreed is None else agreed & ids
                for diagnosis in check.diagnoses:
                    named.setdefault(diagnosis.id, (diagnosis.title, []))[1].append(
                        named_key(f"{milestone.id}.{check.id}", names))
            for mistake in sorted(agreed or named):
                title, where = named[mistake]
                row = rows.setdefault(mistake, MistakeRow(mistake, title, [], []))
                if entry.student not in row.students:
                    row.students.append(entry.student)
                row.where.extend(w for w in where if w not in row.where)
    return ranked_mistakes(list(rows.values()))


def _checks(gradable: list[ClassEntry], names: dict[int, str]) -> list[CheckRow]:
    """Failure rates; a milestone whose function is missing ran no check and is left out."""
    counts: dict[str, CheckRow] = {}
    for entry in gradable:
        assert entry.report is not None
        errors = {display_error(error) for error in entry.report.errors}
        for milestone in entry.report.milestones:
            if milestone.checks and all(c.message in errors for c in milestone.checks):
                continue
            for check in milestone.checks:
                key = f"{milestone.id}.{check.id}"
                hidden = check.visibility == "hidden"
                row = counts.setdefault(key, CheckRow(
                    named_key(key, names) if hidden else key,
                    named_title(check.title, names) if hidden else check.title, hidden, 0, 0, False))
                row.total += 1
                row.failed += not check.passed
    return ranked_checks(list(counts.values()))


def _efficiency(group: list[ClassEntry]) -> list[EfficiencyRow]:
    rows = []
    for entry in group:
        assert entry.report is not None
        for check in entry.report.checks:
            details = check.details or {}
            if details.get("kind") != "timing":
                continue
            student, reference = details.get("student_seconds"), details.get("reference_seconds")
            ratio = details.get("ratio")
            if ratio is None and student is not None and reference:
                ratio = student / reference
            rows.append(EfficiencyRow(entry.student, ratio, details.get("limit_ratio"),
                                      check.passed, check.score, check.max_score))
    return ranked_efficiency(rows)


def _problems(entries: Sequence[ClassEntry], unusable: Sequence[UnusableEntry]) -> list[ProblemRow]:
    rows = []
    for entry in entries:
        if entry.report is None:
            rows.append(ProblemRow(entry.student, "grader error", entry.error))
            continue
        if not entry.report.gradable:
            # Not gradable: it did not load, or a required function is missing; what did
            # run may still have crashed or timed out.
            rows.append(ProblemRow(entry.student, "not gradable",
                                   "; ".join(entry.report.format_errors)))
        seen = set()
        for milestone in entry.report.milestones:
            for check in milestone.checks:
                kind = failure_kind(check.message)
                if kind and kind not in seen and check.visibility != "hidden":
                    seen.add(kind)
                    rows.append(ProblemRow(entry.student, kind,
                                           f"{milestone.id}.{check.id}: {check.message[:200]}"))
    for item in unusable:
        rows.append(ProblemRow(item.student or item.entry, "unusable", f"{item.entry}: {item.reason}"))
    return ranked_problems(rows)


def failure_kind(message: str) -> str | None:
    if names_a_crash(message) or _RAISED.search(message or ""):
        return "crashed"
    if "timed out after" in message or "did not finish within" in message:
        return "timed out"
    return None


# --------------------------------------------------------------------------- charts


def _points(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text or "0"


def histogram(scores: Sequence[float], max_score: float) -> Markup:
    """Students per tenth of ``max_score`` (the last bin holds full marks)."""
    counts = [0] * BINS
    for score in scores:
        fraction = score / max_score if max_score else 0.0
        counts[min(BINS - 1, max(0, int(fraction * BINS + 1e-9)))] += 1
    labels = [f"{_points(max_score * i / BINS)}–" for i in range(BINS)]
    labels[-1] = f"{_points(max_score * (BINS - 1) / BINS)}–{_points(max_score)}"
    return _bars(counts, labels, "points")


def ratio_chart(rows: list[EfficiencyRow]) -> Markup:
    edges = [0, 1, 2, 5, 10, 20, 50, 100]
    labels = ["<1", "1–2", "2–5", "5–10", "10–20", "20–50", "50–100", "≥100", "no time"]
    counts = [0] * len(labels)
    for row in rows:
        if row.ratio is None:
            counts[-1] += 1
            continue
        index = sum(1 for edge in edges[1:] if row.ratio >= edge)
        counts[index] += 1
    return _bars(counts, labels, "times the reference's time")


def _bars(counts: list[int], labels: list[str], axis: str) -> Markup:
    width, height, left, bottom, top = 520, 190, 34, 40, 12
    plot_w, plot_h = width - left - 8, height - bottom - top
    peak = max(counts) or 1
    step = plot_w / len(counts)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width} {height}" '
             f'width="{width}" height="{height}" role="img" aria-label="{escape(axis)}">']
    parts.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" '
                 f'y2="{top + plot_h}" stroke="#555"/>')
    parts.append(f'<text x="4" y="{top + 8}" class="tick">{peak}</text>')
    parts.append(f'<text x="4" y="{top + plot_h}" class="tick">0</text>')
    for index, (count, label) in enumerate(zip(counts, labels)):
        bar_h = plot_h * count / peak
        x = left + index * step + 2
        y = top + plot_h - bar_h
        parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{step - 4:.1f}" height="{bar_h:.1f}" '
                     f'class="bar"><title>{escape(label)}: {count}</title></rect>')
        if count:
            parts.append(f'<text x="{x + (step - 4) / 2:.1f}" y="{y - 2:.1f}" class="count" '
                         f'text-anchor="middle">{count}</text>')
        parts.append(f'<text x="{x + (step - 4) / 2:.1f}" y="{top + plot_h + 14}" class="tick" '
                     f'text-anchor="middle">{escape(label)}</text>')
    parts.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" class="axis" '
                 f'text-anchor="middle">{escape(axis)}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))
