"""The spec fields of a character-BPE exercise: conventions, cases, generated inputs, timed run.

:class:`BpeExercise` adds to the fields every spec has: the ``conventions`` students follow
(corpus form, end-of-word marker, tie rule, merge form), the sizes of the generated inputs
(``properties``), the generated Zipf corpus of the timed run (``efficiency``), and cases that
hold a corpus and a number of merges, optional words to encode and a sentence to measure.
WordPiece and byte-level exercises build on these models.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, Optional

from grader.families.api import (
    Case,
    ConfigDict,
    Exercise,
    Field,
    FunctionSpec,
    SpecModel,
    WithJsonSchema,
    functions_field,
    milestone_model,
)

from reference import TIE_BREAKS

Pair = tuple[str, str]

CORPUS_FORMS = ("texts", "word-counts")
MERGE_FORMS = ("pairs", "pairs-with-token")
TieBreak = Literal[TIE_BREAKS]  # type: ignore[valid-type]
Clock = Literal["cpu", "wall"]
"""What an efficiency check's time limits measure."""

_PAIR_SCHEMA = {
    "type": "array",
    "prefixItems": [{"type": "string"}, {"type": "string"}],
    "items": False,
    "minItems": 2,
    "maxItems": 2,
}
_CORPUS_SCHEMA = {
    "description": "texts (split on whitespace) or a mapping word -> count, per conventions.corpus_form",
    "oneOf": [
        {"type": "array", "items": {"type": "string"}},
        {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1}},
    ],
}
_MERGES_SCHEMA = {
    "description": "expected merges, all in conventions.merge_form: [a, b] or [[a, b], ab]",
    "anyOf": [
        {"type": "array", "items": _PAIR_SCHEMA},
        {
            "type": "array",
            "items": {
                "type": "array",
                "prefixItems": [_PAIR_SCHEMA, {"type": "string"}],
                "items": False,
                "minItems": 2,
                "maxItems": 2,
            },
        },
        {"type": "null"},
    ],
}

# Corpus and merge lists take one of two forms chosen by the conventions, so their shape is
# checked by the family's rules (which know the conventions and report the exact item).
Corpus = Annotated[Any, WithJsonSchema(_CORPUS_SCHEMA)]
Merges = Annotated[Optional[Any], WithJsonSchema(_MERGES_SCHEMA)]


class Conventions(SpecModel):
    """The rules students must follow: corpus form, end-of-word marker, tie-break, merge form."""

    corpus_form: Literal[CORPUS_FORMS]  # type: ignore[valid-type]
    """How train receives its corpus: "texts" (a list of strings split on whitespace) or "word-counts" (a dict word -> count)."""
    end_of_word: str = "</w>"
    """The end-of-word marker appended to every word as a symbol of its own; "" for none."""
    tie_break: TieBreak
    """Which pair wins when several share the highest count: lexicographic, concatenated, first-seen or reverse-lexicographic (see the README)."""
    merge_form: Literal[MERGE_FORMS] = "pairs"  # type: ignore[valid-type]
    """How merges are written: "pairs" as (a, b), "pairs-with-token" as ((a, b), ab)."""
    accept_lists_for_tuples: bool = True
    """Whether lists are accepted where tuples are asked for."""
    tie_example: Optional[str] = None
    """Optional extra words on ties, shown in the stub after the generated worked tie; grade check rejects text that states another tie rule."""


class PropertySettings(SpecModel):
    """Sizes of the generated inputs for differential and property checks."""

    examples: int = Field(default=60, gt=0)
    """How many generated inputs the differential check tries."""
    alphabet: str = Field(default="abc", min_length=1)
    """Characters the generated words are made of."""
    max_words: int = Field(default=6, gt=0)
    """Most distinct words in a generated corpus."""
    max_word_length: int = Field(default=6, gt=0)
    """Longest generated word."""
    max_count: int = Field(default=5, gt=0)
    """Highest count of a generated word."""
    max_merges: int = Field(default=10, ge=0)
    """Most merges asked for on a generated input."""


class EfficiencySettings(SpecModel):
    """The generated Zipf corpus and time budget of the efficiency check."""

    distinct_words: int = Field(default=5000, gt=0)
    """Distinct words of the generated Zipf corpus."""
    total_words: int = Field(default=200000, gt=0)
    """Total words (with repeats) of the generated corpus."""
    zipf_exponent: float = Field(default=1.1, gt=0)
    """Exponent of the Zipf distribution of word frequencies."""
    seed: int = 97
    """Seed of the corpus generator."""
    num_merges: int = Field(default=300, ge=0)
    """Merges the timed training learns."""
    max_ratio: float = Field(default=20.0, gt=0)
    """Most times slower than the reference a passing trainer may be."""
    max_seconds: float = Field(default=30.0, gt=0)
    """Time limit of the timed training, in seconds."""
    clock: Clock = "cpu"
    """What the limits measure: "cpu" (the CPU time of the call's processes) or "wall"
    (elapsed time, never more than the CPU time: a parallel run is not charged for its
    workers, nor any run for waiting on a busy machine)."""


class EncodeItem(SpecModel):
    """A word to encode with the case's reference merges; tokens, when written, are verified."""

    word: str
    """A word to encode with the case's reference merges."""
    tokens: Optional[list[str]] = None
    """Its expected tokens; written ones are verified by grade check, missing ones computed."""


class Lengths(SpecModel):
    """Expected sequence lengths of a case's sentence."""

    char: int = Field(ge=0)
    """Characters of every word plus one per end-of-word marker."""
    bpe: int = Field(ge=0)
    """Tokens after encoding every word."""
    word: int = Field(ge=0)
    """Words of the sentence."""


class TradeoffRow(SpecModel):
    """One vocabulary size's row of the trade-off."""

    size: int = Field(ge=0)
    """The vocabulary size."""
    avg_tokens: float = Field(ge=0)
    """Tokens per document, averaged over the documents."""
    params: int = Field(ge=0)
    """Parameters of the embedding table: size * d_model."""


class Tradeoff(SpecModel):
    """Documents and vocabulary sizes whose trade-off is checked; rows computed when left out."""

    documents: list[str] = Field(min_length=1)
    """The documents (texts split on whitespace) training sees and the average is taken over."""
    sizes: list[int] = Field(min_length=1)
    """Vocabulary sizes: the base vocabulary (characters and marker) plus the merges learned."""
    d_model: int = Field(gt=0)
    """The embedding dimension."""
    rows: Optional[list[TradeoffRow]] = None
    """Expected rows, one per size; written ones are verified by grade check."""


class BpeCase(Case):
    """One input: a corpus and number of merges, optional words to encode, a sentence to
    measure and documents whose vocabulary-size trade-off is checked; expected values are
    optional (written ones are verified, missing ones computed)."""

    corpus: Corpus
    num_merges: int = Field(ge=0)
    """How many merges to learn from the corpus."""
    merges: Merges = None
    encode: list[EncodeItem] = Field(default_factory=list)
    """Words to encode with the case's reference merges."""
    sentence: Optional[str] = None
    """A sentence whose sequence lengths are checked."""
    lengths: Optional[Lengths] = None
    """Expected sequence lengths of the sentence; computed when left out."""
    tradeoff: Optional[Tradeoff] = None
    """Documents, vocabulary sizes and d_model whose trade-off rows are checked."""

    def expected_pairs(self) -> Optional[list[Pair]]:
        """The author's expected merges as bare pairs, whichever form they were written in."""
        if self.merges is None:
            return None
        return [bare_pair(item) for item in self.merges]


def bare_pair(item: Any) -> Pair:
    """``(a, b)`` from a merge written as ``[a, b]`` or ``[[a, b], ab]`` (lists or tuples)."""
    first = item[0]
    if isinstance(first, (list, tuple)):
        return (first[0], first[1])
    return (item[0], item[1])


ROLES = ("count_pairs", "merge_pair", "train", "encode", "sequence_lengths", "vocab_tradeoff")
"""The roles in the order stubs list them: a helper before the functions built on it."""


BpeMilestone = milestone_model(ROLES, "BpeMilestone", __name__)


class BpeExercise(Exercise):
    """A character-BPE exercise: students train merges, encode words, count sequence lengths,
    write the steps training is made of (counting pairs, applying one merge) and tabulate
    the vocabulary-size trade-off."""

    model_config = ConfigDict(title="bpe exercise (character BPE)")
    role_order: ClassVar[tuple[str, ...]] = ROLES

    family: Literal["bpe"] = "bpe"
    """The family: bpe (character-level Byte-Pair Encoding)."""
    kind: Optional[Literal["code"]] = None
    """Older way to say the submission is code (the default)."""
    functions: dict[str, FunctionSpec] = functions_field(ROLES)
    milestones: list[BpeMilestone] = Field(min_length=1)  # type: ignore[valid-type]
    """Graded steps with their points and checks."""
    conventions: Conventions
    """The rules students follow; every convention text of the stub is generated from them."""
    properties: PropertySettings = PropertySettings.model_construct()
    """Sizes of the inputs generated for differential and property checks."""
    efficiency: EfficiencySettings = EfficiencySettings.model_construct()
    """The timed training of the efficiency check."""
    cases: list[BpeCase] = Field(default_factory=list)
    """Inputs with optional expected values: written ones are verified, missing ones computed."""
