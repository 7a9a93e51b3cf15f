"""The feedback a check from a notebook cell shows: public checks in full, hidden ones counted.

``check()`` (:mod:`grader.notebook`) grades the cells a kernel ran exactly as ``grade submit``
grades a file; this module turns that report into what is shown under the cell, as HTML for
Jupyter and as plain text elsewhere. It starts from :func:`public_view` like every format, and
shows no points: a milestone's points include its hidden checks, which are only counted here
("N hidden checks run when you submit"). The notes and the reasons a submission is not
gradable come first, as in every report. No duration is shown: the checks on hidden and
generated inputs make it a side channel (:mod:`grader.report.redaction`).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Sequence

from grader.report.bounds import bounded_view
from grader.report.feedback import check_feedback
from grader.report.redaction import public_view
from grader.result import CheckResult, GradeReport


class UnknownMilestone(ValueError):
    """The milestone asked for is not one of the exercise's; says which are."""


@dataclass
class MilestoneFeedback:
    id: str
    title: str
    public: list[CheckResult]
    hidden: int

    @property
    def passed(self) -> int:
        return sum(check.passed for check in self.public)


@dataclass
class CheckFeedback:
    """What one check() shows: the report's notes and problems, then each milestone asked."""

    exercise: str
    title: str
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    milestones: list[MilestoneFeedback] = field(default_factory=list)
    graded_as: str = "the cells this kernel ran"

    def text(self) -> str:
        lines = [f"{self.title} ({self.exercise}): checked the {self.graded_as}"]
        lines += [f"Note: {note}" for note in self.notes]
        lines += [f"Problem: {problem}" for problem in self.problems]
        for milestone in self.milestones:
            lines.append("")
            lines.append(f"{milestone.title} [{milestone.id}]: {_tally(milestone)}")
            for check in milestone.public:
                lines.append(f"  {'✓' if check.passed else '✗'} {check.title or check.id}")
                if not check.passed:
                    lines += [f"      {line}" for line in check_feedback(check)]
            if milestone.hidden:
                lines.append(f"  {_hidden(milestone.hidden)}")
        return "\n".join(lines)

    def html(self) -> str:
        escape = html.escape
        parts = ['<div class="grader-check" style="font-family: sans-serif; line-height: 1.4">',
                 f"<p><b>{escape(self.title)}</b> ({escape(self.exercise)}): checked the "
                 f"{escape(self.graded_as)}</p>"]
        if self.notes:
            parts.append("<p><b>About your submission</b></p><ul>"
                         + "".join(f"<li>{escape(note)}</li>" for note in self.notes) + "</ul>")
        if self.problems:
            parts.append('<ul style="color: #a00">'
                         + "".join(f"<li>{escape(problem)}</li>" for problem in self.problems)
                         + "</ul>")
        for milestone in self.milestones:
            colour = "#070" if milestone.public and milestone.passed == len(milestone.public) else "#a00"
            parts.append(f'<p style="margin-bottom: 0.2em"><b>{escape(milestone.title)}</b> '
                         f"[{escape(milestone.id)}]: "
                         f'<span style="color: {colour}">{escape(_tally(milestone))}</span></p><ul>')
            for check in milestone.public:
                mark = ('<span style="color: #070">✓</span>' if check.passed
                        else '<span style="color: #a00">✗</span>')
                item = f"<li>{mark} {escape(check.title or check.id)}"
                if not check.passed:
                    item += ('<pre style="margin: 0.2em 0 0.5em 0; white-space: pre-wrap; word-break: normal; overflow-wrap: anywhere; font-family: monospace; font-size: 0.9em">'
                             + escape("\n".join(check_feedback(check))) + "</pre>")
                parts.append(item + "</li>")
            parts.append("</ul>")
            if milestone.hidden:
                parts.append(f"<p><i>{escape(_hidden(milestone.hidden))}</i></p>")
        return "\n".join(parts + ["</div>"])


def check_feedback_of(report: GradeReport, milestone_ids: Sequence[str] = ()) -> CheckFeedback:
    """The feedback of ``report`` for the milestones ``milestone_ids`` (all when empty)."""
    known = [milestone.id for milestone in report.milestones]
    for wanted in milestone_ids:
        if wanted not in known:
            raise UnknownMilestone(f"{report.exercise} has no milestone {wanted!r}; its "
                                   f"milestones are {', '.join(known)}")
    shown = bounded_view(public_view(report))
    feedback = CheckFeedback(exercise=report.exercise, title=report.title,
                             notes=list(shown.notes), problems=list(shown.errors))
    for milestone in shown.milestones:
        if milestone_ids and milestone.id not in milestone_ids:
            continue
        public = [check for check in milestone.checks if check.visibility != "hidden"]
        feedback.milestones.append(MilestoneFeedback(
            milestone.id, milestone.title, public, len(milestone.checks) - len(public)))
    return feedback


def _tally(milestone: MilestoneFeedback) -> str:
    if not milestone.public:
        return "no public checks"
    return f"{milestone.passed} of {len(milestone.public)} public checks pass"


def _hidden(count: int) -> str:
    return f"{count} hidden check{'s' if count != 1 else ''} run when you submit"
