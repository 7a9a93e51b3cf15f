"""The spec of a byte-level BPE exercise (CS336 conventions): text cases with special tokens.

A byte-level case's corpus is its text in pieces, joined without separators (long texts and
special tokens read better that way in YAML); it trains until the vocabulary holds the 256
bytes, the case's special tokens and ``num_merges`` merged tokens. Its ``encode`` items are
texts to encode with, and decode from, the reference's vocab and merges. The timed run trains
on a text shipped beside the specs (``efficiency.text_file``).
"""

from __future__ import annotations

from typing import ClassVar, Literal, Optional

from pydantic import ConfigDict, Field

from grader.families.bpe.spec import BpeCase, BpeExercise, EfficiencySettings
from grader.spec.models import FunctionSpec, functions_field, milestone_model

ROLES = ("train_byte_bpe", "encode_byte_bpe", "decode_byte_bpe")


class ByteCase(BpeCase):
    """A text (its pieces joined), a number of merges, texts to encode, special tokens."""

    special_tokens: list[str] = Field(default_factory=list)
    """Special tokens of the case: cut out first, each one token of its own, never merged."""


class ByteEfficiency(EfficiencySettings):
    """The timed training: a shipped text, its special tokens, the merges it learns."""

    text_file: Optional[str] = None
    """A text in exercises/data/ to train on."""
    special_tokens: list[str] = Field(default_factory=list)
    """The special tokens of the timed training."""


ByteMilestone = milestone_model(ROLES, "ByteMilestone", __name__)


class ByteExercise(BpeExercise):
    """A byte-level BPE exercise: train, encode and decode with bytes, as CS336 does."""

    model_config = ConfigDict(title="byte exercise (byte-level BPE, CS336)")
    role_order: ClassVar[tuple[str, ...]] = ROLES

    family: Literal["byte"] = "byte"  # type: ignore[assignment]
    """The family: byte (byte-level BPE in the conventions of CS336)."""
    functions: dict[str, FunctionSpec] = functions_field(ROLES)
    milestones: list[ByteMilestone] = Field(min_length=1)  # type: ignore[valid-type]
    """Graded steps with their points and checks."""
    efficiency: ByteEfficiency = ByteEfficiency()  # type: ignore[assignment]
    """The timed training of the efficiency check."""
    cases: list[ByteCase] = Field(default_factory=list)  # type: ignore[assignment]
    """Texts with special tokens; every expected value is computed by the reference."""
