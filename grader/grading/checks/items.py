"""The graded items of a ``cases`` check, and how one went: what a family's judges return.

A family turns one case into :class:`CaseItem` objects (a train case is one item; each word
of an encode case another), each with a judge that calls the student and returns a
:class:`Verdict`. :class:`CaseLabel` is how the case is named in results: its id when public,
a number when hidden, so hidden cases say nothing about their inputs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

from grader.mistakes.narrowing import Observation
from grader.result import Visibility


@dataclass(frozen=True)
class Verdict:
    """How one item went; ``observation`` is what a failing call did, for naming its mistake."""

    passed: bool
    message: str = ""
    details: Optional[dict[str, Any]] = None
    observation: Optional[Observation] = None
    trivial: bool = False  # passed only against an answer a do-nothing function gives


@dataclass(frozen=True)
class CaseItem:
    """One graded input of a case."""

    check_id: str
    title: str
    visibility: Visibility
    judge: Callable[[], Verdict]
    real_work: bool = False  # its right answer is not what a do-nothing function returns


@dataclass(frozen=True)
class CaseLabel:
    """How one case is named in results: ``check_id`` (``cases:ID`` or ``cases:hidden-N``)
    and ``name`` (its id, or ``Hidden case N``)."""

    check_id: str
    name: str
    visibility: Visibility

    @property
    def public(self) -> bool:
        return self.visibility == "visible"

    def title(self, public_title: str) -> str:
        """``name: public_title`` for a public case, the bare name for a hidden one."""
        return f"{self.name}: {public_title}" if self.public else self.name
