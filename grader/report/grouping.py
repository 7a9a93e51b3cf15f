"""The shape of a milestone in every human report (text, Markdown, HTML): its rows, said once.

By default a milestone's passed checks are summed up in one row (timed runs shown in full,
and a note when a passed check has something to say; when their points are withheld for want
of evidence of work, the row says why); each failing check is shown in full,
but failures with the same cause (the same crash, say) are written out once: later ones in
the milestone become one "and N more failed the same way" row, and in a later milestone one
row referring back; hidden failures are one row. ``verbose`` shows every check in full,
``failures_only`` leaves passed checks out. The likely mistakes of a milestone come once,
after its rows (:func:`milestone_diagnoses`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from grader.report.safety import safe_text
from grader.report.summary import points
from grader.result import CheckResult, Diagnosis, MilestoneResult

FULL = "check"  # one check in full
PASSED = "passed"  # the passed checks, summed up
NOTE = "note"  # what a passed check had to say
SAME = "same"  # more failures with the cause of the row before
SAME_AS = "same-as"  # failures with a cause shown in an earlier milestone
HIDDEN = "hidden"  # hidden failures

_ROUTINE = ("passed", "holds on ", "agrees with the reference")


@dataclass(frozen=True)
class Row:
    kind: str
    checks: tuple[CheckResult, ...]
    label: str = ""

    @property
    def points(self) -> str:
        """What the row's checks earned (passed) or ``score/max`` (failed)."""
        if self.kind == PASSED:
            return points(sum(check.score for check in self.checks))
        return lost(list(self.checks))


@dataclass
class Grouping:
    """How much to show, and which causes of failure were already shown (across milestones)."""

    verbose: bool = False
    failures_only: bool = False
    causes_shown: dict[str, str] = field(default_factory=dict)  # cause -> milestone it is in


def milestone_rows(milestone: MilestoneResult, grouping: Grouping) -> list[Row]:
    if grouping.verbose:
        return [Row(FULL, (check,)) for check in milestone.checks]
    rows: list[Row] = []
    passed = [check for check in milestone.checks if check.passed]
    if passed and not grouping.failures_only:
        rows += passed_rows(passed, milestone.withheld_because)
    return rows + failed_rows(milestone, grouping)


def passed_rows(passed: list[CheckResult], withheld: str | None = None) -> list[Row]:
    """The passed checks summed up (with why they earn nothing, ``withheld``, when their
    points are withheld), a note, and the timed runs in full."""
    timing = [c for c in passed if isinstance(c.details, dict) and c.details.get("kind") == "timing"]
    others = [check for check in passed if check not in timing]
    rows = []
    if others:
        hidden = sum(check.visibility == "hidden" for check in others)
        label = f"{count_checks(len(others))} passed" + (f" ({hidden} hidden)" if hidden else "")
        if (withheld and sum(check.max_score for check in others) > 0
                and not any(check.score > 0 for check in others)):
            label += f"; {withheld}"
        rows.append(Row(PASSED, tuple(others), label))
    notes = [c for c in others if c.visibility == "visible" and is_note(c.message)]
    if notes:
        more = f" (and {len(notes) - 1} more checks like it)" if len(notes) > 1 else ""
        rows.append(Row(NOTE, tuple(notes), f"Note: {notes[0].message}{more}"))
    rows += [Row(FULL, (check,)) for check in timing]
    return rows


def is_note(message: str) -> bool:
    """A passed check's message worth reading (not just "passed" or "correct"): e.g.
    follow-through."""
    return bool(message) and message.strip() != "correct" and not message.startswith(_ROUTINE)


def failure_cause(check: CheckResult) -> str:
    """What makes two failures the same: the crash they report, else their whole message."""
    if isinstance(check.details, dict) and check.details.get("cause"):
        return str(check.details["cause"])
    return check.message


def failed_rows(milestone: MilestoneResult, grouping: Grouping) -> list[Row]:
    groups: dict[str, list[CheckResult]] = {}
    for check in milestone.checks:
        if not check.passed:
            key = "(hidden)" if check.visibility == "hidden" else failure_cause(check)
            groups.setdefault(key, []).append(check)
    rows: list[Row] = []
    for cause, checks in groups.items():
        if cause == "(hidden)":
            label = f"{count_checks(len(checks))} failed (hidden: input and expected result not shown)"
            if len(checks) == 1:
                label = f"{checks[0].title or checks[0].id} (hidden) failed"
            rows.append(Row(HIDDEN, tuple(checks), label))
        elif cause in grouping.causes_shown:
            rows.append(Row(SAME_AS, tuple(checks),
                            f"{count_checks(len(checks))} failed the same way as in "
                            f"[{grouping.causes_shown[cause]}]: {short(cause)}"))
        else:
            grouping.causes_shown[cause] = milestone.id
            rows.append(Row(FULL, (checks[0],)))
            if len(checks) > 1:
                more = checks[1:]
                rows.append(Row(SAME, tuple(more),
                                f"and {len(more)} more failed the same way ({titles(more)})"))
    return rows


def milestone_diagnoses(milestone: MilestoneResult) -> list[Diagnosis]:
    """The milestone's likely mistakes, once each, in the order its visible failures name them."""
    found: dict[str, Diagnosis] = {}
    for check in milestone.checks:
        if check.visibility == "visible" and not check.passed:
            for diagnosis in check.diagnoses:
                found.setdefault(diagnosis.id, diagnosis)
    return list(found.values())


def count_checks(count: int) -> str:
    return f"{count} check{'s' if count != 1 else ''}"


def lost(checks: list[CheckResult]) -> str:
    return f"{points(sum(c.score for c in checks))}/{points(sum(c.max_score for c in checks))}"


def titles(checks: list[CheckResult], shown: int = 3) -> str:
    names = [safe_text(check.title or check.id, 60) for check in checks[:shown]]
    rest = len(checks) - shown
    return ", ".join(names) + (f", +{rest}" if rest > 0 else "")


def short(text: str, limit: int = 90) -> str:
    text = safe_text(text, 400).splitlines()[0] if text else ""
    return text if len(text) <= limit else text[: limit - 1] + "…"
