"""What a student reads about one check: the result, its message, the evidence in ``details``.

Messages are short sentences; the evidence (input, expected, actual, the first difference)
goes into ``details`` in the shape documented by :mod:`grader.report.details`; each family
writes its own messages and evidence with these pieces. :func:`graded` builds every
:class:`CheckResult`, and is the one place that enforces the rule for hidden checks:
pass/fail and points only, never their input, expected value or a hint derived from them. No
message contains a measured duration.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Optional

from grader.grading.scoring import earned
from grader.result import CheckResult, Diagnosis, Visibility

Pair = tuple[str, str]

HIDDEN_PASSED = "passed"
HIDDEN_FAILED = "failed (hidden case)"


# --------------------------------------------------------------------------- results


def graded(
    check_id: str,
    title: str,
    share: float,
    passed: bool,
    *,
    visibility: Visibility = "visible",
    message: str = "",
    details: Optional[dict[str, Any]] = None,
    diagnoses: Sequence[Diagnosis] = (),
    steps: Optional[dict[str, Any]] = None,
) -> CheckResult:
    """A check result worth ``share`` points; hidden ones keep only pass/fail and points."""
    if visibility == "hidden":
        message, details, diagnoses = (HIDDEN_PASSED if passed else HIDDEN_FAILED), None, ()
        steps = None
    return CheckResult(
        id=check_id,
        title=title,
        passed=passed,
        score=earned(share, passed),
        max_score=share,
        visibility=visibility,
        message=message or ("passed" if passed else "failed"),
        diagnoses=list(diagnoses),
        details=details,
        steps=steps,
    )


def timed(run: Callable[[], CheckResult]) -> CheckResult:
    """``run()``, with its wall time in the result's own ``seconds`` field (never a message)."""
    started = time.perf_counter()
    result = run()
    result.seconds = round(time.perf_counter() - started, 4)
    return result


# --------------------------------------------------------------------------- values


def show(value: Any) -> str:
    return repr(tuple(value)) if isinstance(value, list) and len(value) == 2 else repr(value)


def json_pairs(pairs: Optional[Sequence[Pair]]) -> Optional[list[list[str]]]:
    return None if pairs is None else [[a, b] for a, b in pairs]


def json_pair(pair: Optional[Pair]) -> Optional[list[str]]:
    return None if pair is None else [pair[0], pair[1]]


def literal(value: Any) -> dict[str, str]:
    """A value JSON cannot hold as it is (bytes, tuples of bytes), carried in ``details`` as its
    Python literal, ``{"literal": "[(b'c', b'd')]"}``, which every report shows as written."""
    return {"literal": repr(value)}


def first_differing_index(expected: Sequence[Any], actual: Sequence[Any]) -> Optional[int]:
    """The first index where the two lists differ (one ending counts), or None if equal."""
    for index, (want, got) in enumerate(zip(expected, actual)):
        if want != got:
            return index
    return None if len(expected) == len(actual) else min(len(expected), len(actual))


# --------------------------------------------------------------------------- counterexamples


def counterexample_details(
    prop: str,
    given: dict[str, Any],
    *,
    expected: Any = None,
    actual: Any = None,
    explanation: str = "",
    difference: Optional[dict[str, Any]] = None,
) -> dict[str, Any]:
    details: dict[str, Any] = {"kind": "counterexample", "property": prop, "input": given}
    if expected is not None:
        details["expected"] = expected
    if actual is not None:
        details["actual"] = actual
    if explanation:
        details["explanation"] = explanation
    if difference is not None:
        details["first_difference"] = difference
    return details
