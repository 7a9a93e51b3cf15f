"""Per-exercise settings that change how reports are rendered, checked once up front.

An exercise may carry a mapping of report options (``exercise_options``):

- ``visibility``: Gradescope visibility of the whole result (default ``visible``).
- ``hidden_visibility``: Gradescope visibility of hidden checks (default
  ``after_published``: shown once the instructor publishes grades).
- ``show_student_output``: whether platform formats (gradescope, prairielearn, classroom)
  include what the student's code printed. Default: only when the exercise has no hidden
  checks, because code that receives a hidden case's input could print it.
- ``student_output_limit``: characters of captured output kept (default 4000).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

GRADESCOPE_VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
DEFAULT_STUDENT_OUTPUT_LIMIT = 4000


class ReportOptionsError(ValueError):
    """An exercise's report options are malformed; the message says which and how to fix it."""


@dataclass(frozen=True)
class ReportOptions:
    visibility: str = "visible"
    hidden_visibility: str = "after_published"
    show_student_output: bool | None = None
    student_output_limit: int = DEFAULT_STUDENT_OUTPUT_LIMIT


def parse_options(raw: Mapping[str, Any] | None) -> ReportOptions:
    """Validate ``exercise_options`` and fill in the defaults."""
    if raw is None:
        return ReportOptions()
    if not isinstance(raw, Mapping):
        raise ReportOptionsError(
            f"report options must be a mapping of option names to values, got {type(raw).__name__}"
        )
    known = ReportOptions.__dataclass_fields__
    unknown = sorted(str(key) for key in raw if key not in known)
    if unknown:
        raise ReportOptionsError(
            f"unknown report option(s) {', '.join(unknown)}; known options are "
            f"{', '.join(known)}"
        )
    for key in ("visibility", "hidden_visibility"):
        if key in raw and raw[key] not in GRADESCOPE_VISIBILITIES:
            raise ReportOptionsError(
                f"report option {key!r} must be one of {', '.join(GRADESCOPE_VISIBILITIES)}; "
                f"got {raw[key]!r}"
            )
    show = raw.get("show_student_output")
    if show is not None and not isinstance(show, bool):
        raise ReportOptionsError(
            f"report option 'show_student_output' must be true or false; got {show!r}"
        )
    limit = raw.get("student_output_limit", DEFAULT_STUDENT_OUTPUT_LIMIT)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ReportOptionsError(
            f"report option 'student_output_limit' must be a whole number of characters >= 0; "
            f"got {limit!r}"
        )
    return ReportOptions(**dict(raw))
