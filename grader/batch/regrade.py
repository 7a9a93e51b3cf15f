"""A regrade's impact: for each student whose grading or exported grade a run changes, the
grade before and after, the milestones that moved, why it was graded again and what the
exports take under the grading policy.

``grade batch`` writes it as ``OUT/regrade.csv`` (columns :data:`CSV_COLUMNS`), prints a
summary (how many went up and down, the largest changes) and gives the class report its
"What changed" section. ``before`` is the grade the exports held before the run; ``after``
the new grading's; ``exported`` what they hold now (the policy may keep the earlier one,
``note`` says why).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from grader.batch.exports import safe_csv, score_text
from grader.batch.gradebook import Fingerprint, Grading
from grader.batch.outputs import REGRADE_CSV
from grader.batch.policy import Choice, Policy
from grader.report.class_report import ChangeRow, ChangesSection
from grader.report.summary import points

CSV_COLUMNS = ("student", "exercise", "before", "after", "change", "milestones", "why",
               "exported", "note")
LARGEST = 5  # largest changes in the printed summary
SECTION_ROWS = 50  # rows of the class report's table (every row is in regrade.csv)


@dataclass
class Change:
    """One student's change in one exercise."""

    student: str
    exercise: str
    before: Grading | None  # what the exports took until now (None: a new student)
    after: Grading  # the student's latest grading
    choice: Choice  # what the exports take now
    why: list[str]
    regraded: bool  # graded in this run (else only the policy's choice moved)

    @property
    def before_score(self) -> float | None:
        return _score(self.before)

    @property
    def after_score(self) -> float | None:
        return _score(self.after)

    @property
    def change(self) -> float | None:
        if self.before_score is None or self.after_score is None:
            return None
        return round(self.after_score - self.before_score, 2)

    @property
    def exported_score(self) -> float | None:
        return _score(self.choice.grading)

    def milestones(self) -> list[str]:
        """``id before→after`` for each milestone whose points or maximum differ."""
        if self.before is None or self.after_score is None:
            return []
        before = {m: (s, top) for m, s, top in self.before.milestone_scores}
        after = {m: (s, top) for m, s, top in self.after.milestone_scores}
        moved = []
        for milestone in list(before) + [m for m in after if m not in before]:
            old, new = before.get(milestone), after.get(milestone)
            if old is not None and new is not None and _same(old, new):
                continue
            text = f"{milestone} {_points(old, 0)}→{_points(new, 0)}"
            if old is not None and new is not None and round(old[1], 2) != round(new[1], 2):
                text += f" (of {points(old[1])}→{points(new[1])})"
            moved.append(text)
        return moved

    def row(self) -> list[str]:
        change = self.change
        return [self.student, self.exercise, score_text(self.before_score),
                score_text(self.after_score), "" if change is None else _signed(change),
                "; ".join(self.milestones()), ", ".join(self.why),
                score_text(self.exported_score), self.choice.note]


@dataclass
class Impact:
    """Every change of a run, in student order."""

    policy: Policy
    changes: list[Change] = field(default_factory=list)
    dry_run: bool = False

    def counts(self) -> dict[str, int]:
        regraded = [c for c in self.changes if c.regraded]
        return {
            "regraded": len(regraded),
            "new": sum(1 for c in regraded if c.before is None),
            "up": sum(1 for c in regraded if (c.change or 0) > 0),
            "down": sum(1 for c in regraded if (c.change or 0) < 0),
            "same": sum(1 for c in regraded if c.change == 0),
            "failed": sum(1 for c in regraded if c.after_score is None),
            "kept": sum(1 for c in self.changes if c.choice.note),
            "policy only": len(self.changes) - len(regraded),
        }

    def largest(self, count: int = LARGEST) -> list[Change]:
        moved = [c for c in self.changes if c.change]
        return sorted(moved, key=lambda c: (-abs(c.change or 0), c.student, c.exercise))[:count]

    def csv(self) -> str:
        return safe_csv([list(CSV_COLUMNS)] + [c.row() for c in self.changes])

    def summary(self) -> str:
        """One line: how many were graded again and which way they went."""
        n = self.counts()
        if not self.changes:
            return "no stored grade changes"
        parts = [f"{n['up']} up", f"{n['down']} down", f"{n['same']} unchanged"]
        if n["failed"]:
            parts.append(f"{n['failed']} not graded (grader error)")
        text = (f"{n['regraded']} graded" + (f" ({n['new']} for the first time)" if n["new"]
                                             else "") + ": " + ", ".join(parts))
        if n["policy only"]:
            text += f"; {n['policy only']} exported grade(s) moved by the policy alone"
        if n["kept"]:
            text += (f"; {n['kept']} keep an earlier grade in the exports "
                     f"({self.policy.name})")
        return text

    def lines(self) -> list[str]:
        """What ``grade batch`` prints about the regrade."""
        lines = [("dry run, " if self.dry_run else "") + "regrade: " + self.summary(),
                 self.policy.line(self.dry_run)]
        largest = self.largest()
        if largest:
            lines.append("largest changes: " + "; ".join(
                f"{c.student} {score_text(c.before_score)} → {score_text(c.after_score)} "
                f"({_signed(c.change or 0)}; {', '.join(c.why)})" for c in largest))
        if self.dry_run:
            lines.append("dry run: the gradebook and the exports are unchanged; run the same "
                         "command without --dry-run to apply it (the gradings made now are "
                         "reused)")
        return lines

    def section(self) -> ChangesSection:
        """The class report's "What changed" section."""
        rows = sorted(self.changes, key=lambda c: (not c.choice.note, -abs(c.change or 0),
                                                   c.student, c.exercise))
        return ChangesSection(
            summary=self.summary(), policy=self.policy.line(),
            rows=[ChangeRow(c.student, c.exercise, score_text(c.before_score),
                            score_text(c.after_score),
                            "" if c.change is None else _signed(c.change),
                            "; ".join(c.milestones()), ", ".join(c.why),
                            score_text(c.exported_score), c.choice.note)
                  for c in rows[:SECTION_ROWS]],
            total=len(self.changes), file=REGRADE_CSV)


def why_regraded(previous: Grading | None, fingerprint: Fingerprint, forced: bool) -> list[str]:
    """What differs from the student's previous grading: ``submission``, ``spec``, ``grader``,
    ``settings``; ``new`` when there was none."""
    if previous is None:
        return ["new"]
    why = [name for name, old, new in (
        ("submission", previous.submission_sha256, fingerprint.submission_sha256),
        ("spec", previous.spec_sha256, fingerprint.spec_sha256),
        ("grader", previous.grader_version, fingerprint.grader_version),
        ("settings", previous.settings_sha256, fingerprint.settings_sha256)) if old != new]
    if why:
        return why
    if previous.outcome == "grader-error":
        return ["retry after a grader error"]
    return ["--regrade"] if forced else ["unchanged"]


def _score(grading: Grading | None) -> float | None:
    if grading is None or grading.outcome == "grader-error":
        return None
    return grading.score


def _same(old: tuple[float, float], new: tuple[float, float]) -> bool:
    return round(old[0], 2) == round(new[0], 2) and round(old[1], 2) == round(new[1], 2)


def _points(pair: tuple[float, float] | None, index: int) -> str:
    return "–" if pair is None else points(pair[index])


def _signed(value: float) -> str:
    return ("+" if value > 0 else "") + points(value) if value else "0"
