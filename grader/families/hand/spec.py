"""The spec of a hand-exercise answers file: each student's own corpus, and the questions asked.

Students run BPE by hand on a small corpus of their own (their *variant*) and write their
answers in a YAML file; no code runs. :class:`AnswerSettings` says how each variant is drawn;
each milestone grades some of the :data:`QUESTIONS` with one ``answers`` check. The
conventions are character BPE's.
"""

from __future__ import annotations

from typing import Literal, Optional

from grader.families.api import ConfigDict, Exercise, Field, Milestone, SpecModel

from grader.families.bpe.spec import Conventions

QUESTIONS = ("first-merge", "pair-counts", "vocabulary", "tokens", "tie")


class AnswerSettings(SpecModel):
    """How an answers exercise makes each student's variant and what it asks.

    The corpus of a variant is ``corpus_words`` words drawn from ``word_pool`` with counts
    from 1 to ``max_count``; ``encode_words`` words to tokenize are drawn from
    ``encode_pool``. Draws are repeated until the first ``num_merges`` merges include a tie
    that the exercise's rule decides (see :mod:`grader.families.hand.variants`).
    """

    word_pool: list[str] = Field(min_length=2)
    """The words a variant's corpus is drawn from."""
    corpus_words: int = Field(default=3, ge=2)
    """How many words of the pool make a variant's corpus."""
    max_count: int = Field(default=6, ge=1)
    """The largest count a corpus word is drawn with (counts run from 1)."""
    num_merges: int = Field(default=4, ge=1)
    """How many merges students carry out by hand."""
    pair_counts_step: int = Field(default=2, ge=1)
    """The merge (1: the first) before which students write down every pair and its count."""
    encode_pool: list[str] = Field(min_length=1)
    """The words students tokenize with their merges are drawn from."""
    encode_words: int = Field(default=2, ge=1)
    """How many words of the encode pool students tokenize."""
    max_file_bytes: int = Field(default=65536, gt=0)
    """The largest answers file read, in bytes (a larger one is not graded)."""


class HandMilestone(Milestone):
    """A graded step of an answers file: the questions it asks."""

    questions: list[Literal[QUESTIONS]] = Field(default_factory=list)  # type: ignore[valid-type]
    """The questions of the hand exercises this milestone asks."""


class HandExercise(Exercise):
    """An answers file of the hand exercises: no code, each student's own corpus."""

    model_config = ConfigDict(title="hand exercise (an answers file, no code)")

    family: Literal["hand"] = "hand"
    """The family: hand (answers to the hand exercises, in a YAML file)."""
    kind: Optional[Literal["answers"]] = None
    """Older name of this family: answers."""
    conventions: Conventions
    """The rules of the run students do by hand."""
    answers: Optional[AnswerSettings] = None
    """How each student's variant is drawn."""
    milestones: list[HandMilestone] = Field(min_length=1)  # type: ignore[assignment]
    """Graded steps, each with its questions and one answers check."""
