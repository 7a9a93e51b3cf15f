"""The plain-text explanation of one check, shared by every text-based format.

For a visible check: its message, each likely mistake with its hint, and on failure the
evidence (input, expected and actual values, the table of pair counts at the first
differing merge step). For a hidden check: pass or fail, nothing else.
"""

from __future__ import annotations

from grader.report.long_values import summarised
from grader.report.details import Evidence, StepTable, evidence
from grader.report.redaction import hidden_message
from grader.report.safety import safe_text
from grader.result import CheckResult, Diagnosis

MESSAGE_LIMIT = 2000


def check_feedback(check: CheckResult, *, include_measurements: bool = True) -> list[str]:
    """Lines explaining ``check``; measured times are left out when asked."""
    prose, shown_evidence = feedback_parts(check, include_measurements=include_measurements)
    return prose + shown_evidence


def feedback_parts(
    check: CheckResult, *, include_measurements: bool = True, with_diagnoses: bool = True
) -> tuple[list[str], list[str]]:
    """The explanation as prose lines (free to re-wrap) and evidence lines (aligned columns).

    ``with_diagnoses=False`` leaves the likely mistakes out, for a report that shows them
    once per milestone.
    """
    if check.visibility == "hidden":
        return [hidden_message(check.passed)], []
    prose = summarised(safe_text(check.message, MESSAGE_LIMIT)).splitlines() if check.message else []
    if with_diagnoses:
        prose += [diagnosis_line(diagnosis) for diagnosis in check.diagnoses]
    if not shows_evidence(check):
        return prose, []
    found = evidence(check.details, include_measurements=include_measurements)
    return prose, evidence_lines(found, check.message)


def shows_evidence(check: CheckResult) -> bool:
    """Evidence explains failures; timing figures are worth seeing either way."""
    is_timing = isinstance(check.details, dict) and check.details.get("kind") == "timing"
    return not check.passed or is_timing


def diagnosis_line(diagnosis: Diagnosis, *, lead: str = "Likely mistake: ") -> str:
    title = safe_text(diagnosis.title, 300)
    if diagnosis.evidence:
        title += f" ({safe_text(diagnosis.evidence, 200)})"
    hint = safe_text(diagnosis.message, MESSAGE_LIMIT)
    return f"{lead}{title} — {hint}" if hint else f"{lead}{title}"


def evidence_lines(found: Evidence, message: str = "") -> list[str]:
    """``found`` as lines; what the check's ``message`` already says is not said again."""
    lines = aligned_fields(found.fields)
    if found.step_table is not None:
        lines += step_table_lines(found.step_table, message)
    return lines


def aligned_fields(fields: list[tuple[str, str]]) -> list[str]:
    width = max((len(label) for label, _ in fields), default=0) + 1
    lines = []
    for label, value in fields:
        first, *rest = value.splitlines() or [""]
        lines.append(f"{label + ':':<{width}} {first}")
        lines += [" " * (width + 1) + line for line in rest]
    return lines


def step_heading(table: StepTable, message: str = "") -> str:
    """The line above the pair counts; when ``message`` already names both pairs, only where."""
    where = f"step {table.step}" if table.step is not None else "the first differing step"
    if table.rows and table.expected in (message or "") and table.actual in (message or ""):
        return f"Pair {table.measure}s at {where}:"
    return f"First difference at {where}: the rule picks {table.expected}; your code picked {table.actual}."


def states_rule(table: StepTable, message: str = "") -> bool:
    """Whether the tie-break rule goes without saying under the table: ``message`` already
    explains it, or no pairs tie at that step (the rule decided nothing there)."""
    if table.rows and not any("tied" in row.roles for row in table.rows):
        return True
    return bool(table.rule_text) and table.rule_text in (message or "")


def step_table_lines(table: StepTable, message: str = "") -> list[str]:
    lines = [step_heading(table, message)]
    if table.rows:
        pair_width = max(len("pair"), *(len(row.pair) for row in table.rows))
        count_width = max(len(table.measure), *(len(row.count) for row in table.rows))
        lines.append(f"  {'pair':<{pair_width}}  {table.measure:>{count_width}}  note")
        for row in table.rows:
            lines.append(f"  {row.pair:<{pair_width}}  {row.count:>{count_width}}  {row.notes}".rstrip())
        if table.omitted_rows:
            lines.append(f"  ({table.omitted_rows} more pairs with lower {table.measure}s not shown)")
        if table.unlisted_note:
            lines.append(f"  {table.unlisted_note}")
    if (table.rule or table.rule_text) and not states_rule(table, message):
        rule = ": ".join(part for part in (table.rule, table.rule_text) if part)
        lines.append(f"Tie-break rule: {rule}")
    return lines
