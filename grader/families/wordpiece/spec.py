"""The spec of a WordPiece exercise: BPE's conventions, cases and generated-input settings.

WordPiece starts exactly like character BPE (the same corpus forms, marker and tie rules), so
its model is BPE's with its own roles; only the choice of pair differs. Its merges are plain
``(a, b)`` pairs: its judges, student-style programs and audit know no other form, so
:class:`WordpieceConventions` refuses ``merge_form: pairs-with-token``.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from grader.families.api import ConfigDict, Field, FunctionSpec, functions_field, milestone_model

from grader.families.bpe.spec import BpeExercise, Conventions

ROLES = ("train_wordpiece", "first_divergence")


class WordpieceConventions(Conventions):
    """BPE's conventions, every corpus form, marker and tie rule, with merges as pairs only."""

    merge_form: Literal["pairs"] = "pairs"  # type: ignore[assignment]
    """WordPiece's merges are (a, b) pairs, as train_wordpiece returns them: "pairs" only."""


WordpieceMilestone = milestone_model(ROLES, "WordpieceMilestone", __name__)


class WordpieceExercise(BpeExercise):
    """A WordPiece exercise: train by score, and find where WordPiece parts from BPE."""

    model_config = ConfigDict(title="wordpiece exercise")
    role_order: ClassVar[tuple[str, ...]] = ROLES

    family: Literal["wordpiece"] = "wordpiece"  # type: ignore[assignment]
    """The family: wordpiece (merges chosen by count(ab) / (count(a) * count(b)))."""
    functions: dict[str, FunctionSpec] = functions_field(ROLES)
    milestones: list[WordpieceMilestone] = Field(min_length=1)  # type: ignore[valid-type]
    """Graded steps with their points and checks."""
    conventions: WordpieceConventions  # type: ignore[assignment]
    """BPE's conventions, with merges as (a, b) pairs (the family writes no other form)."""
