"""The shape of ``CheckResult.details`` and its reading into display-ready evidence.

``details`` is structured evidence the engine attaches to a *visible* check (it is always
``None`` for hidden ones). Every renderer reads it through :func:`evidence`, so this
docstring is the contract the engine fills. All values are plain JSON; pairs are 2-item
lists ``[a, b]``; ``step`` numbers count from 1.

``merges`` — a training case::

    {"kind": "merges",
     "input": {"corpus": ["low lower", ...] | {"low": 5, ...}, "num_merges": 10},
     "expected": [["l", "o"], ...],          # the reference's (or the spec's) merges
     "actual": [["l", "o"], ...] | None,     # the student's, when its shape was valid
     "first_difference": {                   # absent when there is no differing step
         "step": 4,
         "expected": ["l", "o"] | None,      # None: the expected list had already ended
         "actual": ["o", "w"] | None,        # None: the student's list had already ended
         "pair_counts": [["l", "o", 9], ["o", "w", 9], ["w", "</w>", 7]],  # at that step,
                                             # highest count first (may be the top few)
         "tied": [["l", "o"], ["o", "w"]],   # the pairs sharing the top count
         "rule": "lexicographic",            # the exercise's tie-break rule id
         "rule_text": "the smallest pair (a, b), comparing a first, then b",
         "measure": "count"}}                 # optional: "score" when the third column of
                                             # pair_counts holds scores (WordPiece)

``tokens`` — an encode case::

    {"kind": "tokens", "input": {"word": "lowest", "merges": [...] (optional)},
     "expected": ["low", "est</w>"], "actual": ["lo", "w", "est</w>"] | None}

``counterexample`` — the shrunk smallest input on which a property check failed::

    {"kind": "counterexample", "property": "prefix-stable",
     "input": {"corpus": {...}, "num_merges": 3},   # whatever the property takes
     "expected": ... (optional), "actual": ... (optional),
     "explanation": "train(c, 3) is not a prefix of train(c, 4)" (optional),
     "first_difference": {...} (optional, as for ``merges``)}

``lengths`` — a per-sentence summary an exercise asks for (e.g. token counts)::

    {"kind": "lengths", "input": {"sentence": "the lowest", "merges": [...]},
     "expected": {"tokens": 4, ...}, "actual": {"tokens": 5, ...} | None}

``timing`` — the efficiency milestone::

    {"kind": "timing", "student_seconds": 1.9 | None, "reference_seconds": 0.08,
     "ratio": 23.7 (optional: derived from the two times when absent),
     "student_runs_seconds": [...], "reference_runs_seconds": [...] (optional: each round's
     times, of a run measured again near the bound; shown as the ratios' range),
     "limit_ratio": 20.0 (optional), "limit_seconds": 10.0 (optional)}

``trace`` — one question of an answers file (no code ran)::

    {"kind": "trace", "question": "first-merge", "expected": {...}, "answer": {...},
     "trace": "BPE training: ... (the grade trace text up to the step asked about)"}

``divergence`` (WordPiece's first_divergence) is shown as labelled values, as is any other
kind (e.g. ``byte-training``: input, expected and your merges as literals); a
``first_difference`` in any of them is shown as the step table, as for ``merges``.

Anywhere in ``details``, a value JSON cannot hold as it is (bytes) may be carried as its Python
literal, ``{"literal": "[(b'c', b'd')]"}``: every report shows the literal as written, not as
a quoted string.

Any other kind is shown as labelled values, and so is a mapping a reader cannot make
sense of.

Measured values (``*_seconds`` and the timing ``ratio``) differ between two gradings of
one submission, so the platform formats keep them out of their text: they appear only in
the human reports (text, markdown, html) or in dedicated fields.
"""

from __future__ import annotations

import re

from dataclasses import dataclass, field
from typing import Any

from grader.report.safety import safe_text

VALUE_LIMIT = 300
TRACE_LIMIT = 8000
MERGE_WINDOW = 8
STEP_TABLE_ROWS = 8


@dataclass(frozen=True)
class StepRow:
    """One pair in the table of pair counts at the first differing merge step."""

    pair: str
    count: str
    roles: tuple[str, ...]  # any of "expected", "actual", "tied"

    @property
    def notes(self) -> str:
        words = {
            "tied": "tied",
            "expected": "the rule picks this",
            "actual": "your code picked this",
        }
        return ", ".join(words[role] for role in ("tied", "expected", "actual") if role in self.roles)


@dataclass(frozen=True)
class StepTable:
    step: int | None
    expected: str
    actual: str
    rows: list[StepRow]
    omitted_rows: int
    rule: str
    rule_text: str
    actual_unlisted: bool = False  # the student's pair is not among the counted pairs
    measure: str = "count"  # what the second column holds: "count", or "score" (WordPiece)

    @property
    def unlisted_note(self) -> str:
        return "Your pair is not among the pairs counted at this step." if self.actual_unlisted else ""


@dataclass(frozen=True)
class Evidence:
    """What a renderer shows under a failed check: labelled values and an optional step table."""

    fields: list[tuple[str, str]] = field(default_factory=list)
    step_table: StepTable | None = None


def evidence(details: Any, *, include_measurements: bool = True) -> Evidence:
    """Display-ready evidence from ``details``; never raises on a malformed mapping."""
    if not isinstance(details, dict):
        return Evidence()
    readers = {
        "merges": _merges,
        "tokens": _tokens,
        "lengths": _lengths,
        "counterexample": _counterexample,
        "timing": _timing,
        "trace": _trace,
    }
    reader = readers.get(details.get("kind"), _generic)
    try:
        return reader(details, include_measurements)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError):
        return _generic(details, include_measurements, table=False)


def is_measurement(key: str) -> bool:
    return key == "seconds" or key.endswith("_seconds") or key == "ratio"


def show_value(value: Any, limit: int = VALUE_LIMIT, *, pairs: bool = False) -> str:
    """A short, unambiguous rendering of a JSON value; with ``pairs``, 2-item lists of
    strings inside a list are shown as tuples, as a merge list is in Python."""
    return safe_text(_python_repr(value, pairs), limit)


_BYTES_LITERAL = re.compile(r"""^b(?:'[^']*'|"[^"]*")$""")


def show_pair(pair: Any) -> str:
    """A pair as Python writes it; a pair of bytes literals (``["b'c'", "b'd'"]``, how a
    byte-level step table carries bytes) as the bytes pair ``(b'c', b'd')``."""
    if pair is None:
        return "(none: the list had ended)"
    if _is_pair(pair) and all(_BYTES_LITERAL.match(part) for part in pair):
        return safe_text(f"({pair[0]}, {pair[1]})", VALUE_LIMIT)
    if _is_pair(pair):
        return safe_text(repr(tuple(pair)), VALUE_LIMIT)
    return show_value(pair)


def show_merges(merges: Any, focus_step: int | None = None) -> str:
    """A merge list, or a window of it around ``focus_step`` when it is long."""
    if not isinstance(merges, list):
        return show_value(merges)
    if len(merges) <= MERGE_WINDOW + 2:
        return show_value(merges, limit=VALUE_LIMIT * 2, pairs=True)
    start = 0 if focus_step is None else max(0, min(focus_step - 3, len(merges) - MERGE_WINDOW))
    end = start + MERGE_WINDOW
    shown = ", ".join(_python_repr(pair, True) for pair in merges[start:end])
    before = f"... ({start} earlier) " if start else ""
    after = f" ... ({len(merges) - end} more)" if end < len(merges) else ""
    label = f"steps {start + 1}-{min(end, len(merges))} of {len(merges)}: "
    return safe_text(f"{label}{before}{shown}{after}", VALUE_LIMIT * 2)


def _is_pair(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(isinstance(item, str) for item in value)


def _is_pair_with_token(value: Any) -> bool:
    """``[["a", "b"], "ab"]``: a merge written as ``((a, b), "ab")``."""
    return isinstance(value, list) and len(value) == 2 and _is_pair(value[0]) and isinstance(value[1], str)


def _is_literal(value: Any) -> bool:
    return isinstance(value, dict) and list(value) == ["literal"] and isinstance(value["literal"], str)


def _python_repr(value: Any, pairs: bool) -> str:
    if _is_literal(value):
        return value["literal"]
    if isinstance(value, list):
        items = [
            repr(tuple(item)) if pairs and _is_pair(item)
            else repr((tuple(item[0]), item[1]))
            if pairs and _is_pair_with_token(item)
            else _python_repr(item, pairs)
            for item in value
        ]
        return "[" + ", ".join(items) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(
            f"{key!r}: {_python_repr(item, pairs or key == 'merges')}" for key, item in value.items()
        ) + "}"
    return repr(value)


def _input_fields(raw_input: Any) -> list[tuple[str, str]]:
    if isinstance(raw_input, dict):
        return [
            (f"Input {key}", show_value(value, pairs=key == "merges")) for key, value in raw_input.items()
        ]
    if raw_input is None:
        return []
    return [("Input", show_value(raw_input))]


def _merges(details: dict, include_measurements: bool) -> Evidence:
    difference = details.get("first_difference")
    step = difference.get("step") if isinstance(difference, dict) else None
    fields = _input_fields(details.get("input"))
    fields.append(("Expected merges", show_merges(details.get("expected"), step)))
    if "actual" in details:
        fields.append(("Your merges", show_merges(details.get("actual"), step)))
    table = step_table(difference) if isinstance(difference, dict) else None
    if table is not None and difference.get("actual", "") is None:
        table = None  # the list ended early: the message names the missing merge, no table
    return Evidence(fields, table)


def _tokens(details: dict, include_measurements: bool) -> Evidence:
    fields = _input_fields(details.get("input"))
    fields.append(("Expected tokens", show_value(details.get("expected"))))
    if "actual" in details:
        fields.append(("Your tokens", show_value(details.get("actual"))))
    return Evidence(fields)


def _lengths(details: dict, include_measurements: bool) -> Evidence:
    fields = _input_fields(details.get("input"))
    fields.append(("Expected", show_value(details.get("expected"))))
    if "actual" in details:
        fields.append(("Yours", show_value(details.get("actual"))))
    return Evidence(fields)


def _counterexample(details: dict, include_measurements: bool) -> Evidence:
    fields: list[tuple[str, str]] = []
    if details.get("property"):
        fields.append(("Property", show_value(details["property"]).strip("'")))
    fields.append(("Smallest failing input", show_value(details.get("input"))))
    for key, label in (("expected", "Expected"), ("actual", "Yours")):
        if key in details:
            fields.append((label, show_value(details[key], pairs=True)))
    if details.get("explanation"):
        fields.append(("Why", safe_text(str(details["explanation"]), VALUE_LIMIT)))
    difference = details.get("first_difference")
    table = step_table(difference) if isinstance(difference, dict) else None
    if table is not None and difference.get("actual", "") is None:
        table = None  # the list ended early: the message names the missing merge, no table
    return Evidence(fields, table)


CLOCK_NAMES = {"cpu": "CPU", "wall": "wall"}


def _timing(details: dict, include_measurements: bool) -> Evidence:
    fields: list[tuple[str, str]] = []
    if include_measurements:
        clock = details.get("clock")
        other = {"wall": "cpu", "cpu": "wall"}.get(clock)
        for who, label in (("student", "Your time"), ("reference", "Reference time")):
            if details.get(f"{who}_seconds") is not None:
                text = f"{float(details[f'{who}_seconds']):.3f} s"
                if other and details.get(f"{who}_{other}_seconds") is not None:
                    text += (f" {CLOCK_NAMES[clock]} ({float(details[f'{who}_{other}_seconds']):.3f}"
                             f" s {CLOCK_NAMES[other]})")
                fields.append((label, text))
        ratio = _timing_ratio(details)
        if ratio is not None:
            fields.append(("Ratio", f"{ratio:.1f}x the reference{_ratio_range(details)}"))
    if details.get("limit_ratio") is not None:
        fields.append(("Allowed", f"up to {float(details['limit_ratio']):g}x the reference"))
    if details.get("limit_seconds") is not None:
        fields.append(("Time cap", f"{float(details['limit_seconds']):g} s"))
    return Evidence(fields)


def _trace(details: dict, include_measurements: bool) -> Evidence:
    """An answers-file question: the expected answer, the student's, and the run's trace."""
    fields = [("Expected", show_value(details.get("expected"))),
              ("Your answer", show_value(details.get("answer")))]
    if details.get("trace"):
        fields.append(("Trace", safe_text(str(details["trace"]), TRACE_LIMIT)))
    return Evidence(fields)


def _ratio_range(details: dict) -> str:
    """The range of the ratios of a run measured in several rounds, from their times."""
    students, references = details.get("student_runs_seconds"), details.get("reference_runs_seconds")
    if not isinstance(students, list) or not isinstance(references, list):
        return ""
    ratios = [float(s) / float(r) for s, r in zip(students, references)
              if isinstance(s, (int, float)) and isinstance(r, (int, float)) and r]
    if len(ratios) < 2:
        return ""
    return (f" (best of {len(ratios)} interleaved rounds, measured at {min(ratios):.1f}x to "
            f"{max(ratios):.1f}x)")


def _timing_ratio(details: dict) -> float | None:
    if details.get("ratio") is not None:
        return float(details["ratio"])
    student, reference = details.get("student_seconds"), details.get("reference_seconds")
    if student is None or not reference:
        return None
    return float(student) / float(reference)


def _generic(details: dict, include_measurements: bool, table: bool = True) -> Evidence:
    """Each key as a labelled value; a ``first_difference`` (any kind may carry one) as the
    step table, as for ``merges`` (not when ``table`` is false: a kind whose reader failed
    on malformed details)."""
    fields = [
        (str(key).replace("_", " ").capitalize(), show_value(value))
        for key, value in details.items()
        if key not in ("kind", "first_difference")
        and (include_measurements or not is_measurement(str(key)))
    ]
    difference = details.get("first_difference")
    shown = step_table(difference) if table and isinstance(difference, dict) else None
    if shown is not None and difference.get("actual", "") is None:
        shown = None  # the list ended early: the message names the missing merge, no table
    return Evidence(fields, shown)


def step_table(difference: dict) -> StepTable:
    """The pair counts at the first differing step, marking the tie and both choices."""
    expected, actual = _as_pair(difference.get("expected")), _as_pair(difference.get("actual"))
    tied = {_as_pair(pair) for pair in difference.get("tied") or []}
    if len(tied) < 2:
        tied = set()
    counts = [(_as_pair(entry[:2]), entry[2]) for entry in difference.get("pair_counts") or []]
    rows = [_step_row(pair, count, expected, actual, tied) for pair, count in counts]
    kept = _rows_to_keep(rows)
    step = difference.get("step")
    return StepTable(
        step=step if isinstance(step, int) else None,
        expected=show_pair(difference.get("expected")),
        actual=show_pair(difference.get("actual")),
        rows=kept,
        omitted_rows=len(rows) - len(kept),
        rule=safe_text(str(difference.get("rule") or ""), 60),
        rule_text=safe_text(str(difference.get("rule_text") or ""), VALUE_LIMIT),
        actual_unlisted=bool(counts) and actual is not None and actual not in {pair for pair, _ in counts},
        measure="score" if difference.get("measure") == "score" else "count",
    )


def _as_pair(value: Any) -> tuple[str, str] | None:
    if value is None:
        return None
    first, second = value
    return (str(first), str(second))


def _step_row(pair, count, expected, actual, tied) -> StepRow:
    applicable = (("tied", pair in tied), ("expected", pair == expected), ("actual", pair == actual))
    roles = tuple(role for role, applies in applicable if applies)
    return StepRow(pair=show_pair(list(pair)), count=safe_text(str(count), 20), roles=roles)


def _rows_to_keep(rows: list[StepRow]) -> list[StepRow]:
    """The top rows, plus any further down that the table's notes refer to."""
    return [row for index, row in enumerate(rows) if index < STEP_TABLE_ROWS or row.roles]
