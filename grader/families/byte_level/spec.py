"""The spec of a byte-level BPE exercise (CS336 conventions): text cases with special tokens.

A byte-level case's corpus is its text in pieces, joined without separators (long texts and
special tokens read better that way in YAML); it trains until the vocabulary holds the 256
bytes, the case's special tokens and ``num_merges`` merged tokens. Its ``encode`` items are
texts to encode with, and decode from, the reference's vocab and merges. Generated inputs
follow ``properties``; the timed run trains on a text generated from the seed secret (or one
shipped beside the specs, ``efficiency.text_file``), timed on the clock ``efficiency.clock``.
"""

from __future__ import annotations

from typing import ClassVar, Literal, Optional

from grader.families.api import (
    ConfigDict,
    Field,
    FunctionSpec,
    SpecModel,
    functions_field,
    milestone_model,
)

from grader.families.bpe.spec import BpeCase, BpeExercise, Clock, Conventions, EfficiencySettings

ROLES = ("train_byte_bpe", "encode_byte_bpe", "decode_byte_bpe", "encode_iterable_byte_bpe")


class ByteConventions(Conventions):
    """CS336's conventions, the only ones byte-level BPE is graded in: texts, no end-of-word
    marker, ties to the greatest pair of bytes, merges as (a, b) pairs. The reference, the
    stub and the audit follow these, so a spec may state them but not change them."""

    corpus_form: Literal["texts"]  # type: ignore[assignment]
    """Byte-level BPE trains on texts (pre-tokenized by the GPT-2 pattern): "texts" only."""
    end_of_word: Literal[""] = ""  # type: ignore[assignment]
    """Byte-level BPE marks no word ends (a pre-token carries its leading space): "" only."""
    tie_break: Literal["reverse-lexicographic"]  # type: ignore[assignment]
    """Ties go to the greatest pair of bytes, as CS336 says: "reverse-lexicographic" only."""
    merge_form: Literal["pairs"] = "pairs"  # type: ignore[assignment]
    """Merges are (a, b) pairs of bytes: "pairs" only."""


class ByteCase(BpeCase):
    """A text (its pieces joined), a number of merges, texts to encode, special tokens."""

    special_tokens: list[str] = Field(default_factory=list)
    """Special tokens of the case: cut out first, each one token of its own, never merged."""


class ByteProperties(SpecModel):
    """Sizes of the texts generated for the differential and property checks."""

    examples: int = Field(default=60, gt=0)
    """How many generated inputs the differential check tries."""
    alphabet: str = Field(default="ab", min_length=1)
    """Letters the generated words are made of (few letters: pairs repeat, counts tie)."""
    characters: str = "é日🙂"
    """Characters of several UTF-8 bytes mixed into some generated words."""
    max_documents: int = Field(default=3, gt=0)
    """Most documents in a generated text, joined by its special tokens."""
    max_word_length: int = Field(default=5, gt=0)
    """Longest generated word, in letters."""
    max_merges: int = Field(default=12, ge=0)
    """Most merges asked for on a generated input (vocab_size is 256 + specials + merges)."""


class ByteEfficiency(EfficiencySettings):
    """The timed training: a text generated from the seed secret (or a shipped one), its
    special tokens, the merges it learns, and the bound on time relative to the reference."""

    characters: int = Field(default=130_000, gt=0)
    """Size of the generated timed text in characters: TinyStories-like stories separated by
    the first special token, drawn from the spec's seed and the course's seed secret."""
    text_file: Optional[str] = None
    """A text in exercises/data/ to train on instead of the generated one: the same text for
    every course, so a trainer could carry its merges."""
    special_tokens: list[str] = Field(default_factory=list)
    """The special tokens of the timed training."""
    max_ratio: float = Field(default=4.0, gt=0)
    """Most times slower than the reference a passing trainer may be (CS336's speed test
    allows about 4x its reference)."""
    clock: Clock = "wall"
    """What the limits measure: "wall" (elapsed time, as CS336's speed test does, so a
    parallel pre-tokenizer is not charged for its workers; never more than the CPU time, so
    waiting for a core that other load holds is not charged either) or "cpu"; both are
    reported."""


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
    properties: ByteProperties = ByteProperties.model_construct()  # type: ignore[assignment]
    """Sizes of the texts generated for differential and property checks."""
    efficiency: ByteEfficiency = ByteEfficiency.model_construct()  # type: ignore[assignment]
    """The timed training of the efficiency check."""
    conventions: ByteConventions  # type: ignore[assignment]
    """CS336's conventions (the family supports no others)."""
    cases: list[ByteCase] = Field(default_factory=list)  # type: ignore[assignment]
    """Texts with special tokens; every expected value is computed by the reference."""
