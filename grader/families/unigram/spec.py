"""The spec of a Unigram LM exercise: its roles, tolerance, generated-input settings and cases.

A case holds a model (``pieces``: piece -> log-probability) and what the roles take from it:
a ``text`` to segment and score, a ``corpus`` (a list of texts) for an EM step, and ``keep``
for pruning, and optionally the expected segmentation and log-likelihood of the text, which
``grade check`` verifies. The conventions (SentencePiece's normalization, the tie rule and the unknown
penalty of :mod:`reference.unigram`) are fixed; the float answers are compared within
``tolerance``.
"""

from __future__ import annotations

from typing import ClassVar, Literal, Optional

from grader.families.api import (
    Case,
    ConfigDict,
    Exercise,
    Field,
    FunctionSpec,
    SpecModel,
    functions_field,
    milestone_model,
)


ROLES = ("segment", "log_likelihood", "em_step", "prune")


class UnigramConventions(SpecModel):
    """How answers are compared (the algorithm's conventions are SentencePiece's, fixed)."""

    tolerance: float = Field(default=1e-6, gt=0, le=1e-3)
    """Float answers (log-likelihoods, log-probabilities) count as equal within this absolute
    or relative difference."""


class UnigramPropertySettings(SpecModel):
    """How the generated inputs of the differential and property checks are drawn."""

    examples: int = Field(default=60, ge=1, le=500)
    """How many generated inputs the differential check judges per role."""
    alphabet: str = Field(default="abc", min_length=1, max_length=8)
    """The letters generated texts and pieces are made of."""
    max_pieces: int = Field(default=8, ge=0, le=40)
    """At most this many multi-character pieces besides the single characters."""
    max_piece_length: int = Field(default=4, ge=2, le=8)
    """The longest generated piece, in characters (a leading ▁ counted)."""
    max_words: int = Field(default=4, ge=1, le=12)
    """The most words of a generated text."""
    max_word_length: int = Field(default=6, ge=1, le=12)
    """The longest generated word."""
    max_texts: int = Field(default=3, ge=1, le=8)
    """The most texts of a generated corpus."""


class UnigramCase(Case):
    """A model and the inputs of the roles that serve it."""

    pieces: dict[str, float]
    """The model: piece -> log-probability (a leading ▁ marks a word start)."""
    text: Optional[str] = None
    """A text to segment and score (segment, log_likelihood)."""
    corpus: Optional[list[str]] = None
    """Texts for one EM step and for pruning (em_step, prune); the pieces must hold every
    character of them as a piece of its own, and ▁."""
    keep: Optional[int] = Field(default=None, ge=0)
    """How many pieces pruning keeps (prune)."""
    segmentation: Optional[list[str]] = None
    """The expected segmentation of the text, if written (grade check verifies it)."""
    log_likelihood: Optional[float] = None
    """The expected log-likelihood of the text, if written (verified within the tolerance)."""


UnigramMilestone = milestone_model(ROLES, "UnigramMilestone", __name__)


class UnigramExercise(Exercise):
    """A Unigram LM exercise: Viterbi segmentation, likelihood, one EM step and pruning."""

    model_config = ConfigDict(title="unigram exercise")
    role_order: ClassVar[tuple[str, ...]] = ROLES

    family: Literal["unigram"] = "unigram"
    """The family: unigram (a Unigram language model over pieces, SentencePiece conventions)."""
    functions: dict[str, FunctionSpec] = functions_field(ROLES)
    milestones: list[UnigramMilestone] = Field(min_length=1)  # type: ignore[valid-type]
    """Graded steps with their points and checks."""
    conventions: UnigramConventions = UnigramConventions.model_construct()
    """How float answers are compared."""
    properties: UnigramPropertySettings = UnigramPropertySettings.model_construct()
    """Settings of the generated inputs."""
    cases: list[UnigramCase] = Field(default_factory=list)
    """Inputs; their expected values are computed with the reference."""
