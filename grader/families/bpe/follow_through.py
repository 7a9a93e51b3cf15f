"""Follow-through: a function that builds on another graded function is judged on its own work.

``sequence_lengths`` counts the tokens of the student's own ``tokenize`` (its role depends on
``encode``). When that ``tokenize`` is wrong, the right counts for *it* differ
from the reference's, and charging ``sequence_lengths`` for them would charge one mistake
twice. :func:`own_lengths` gives the counts that are right for the student's own encoder on a
sentence, and a sentence saying so, whenever its tokens differ from the reference's there;
the checks then accept those counts and say where the real mistake is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from grader.families.api import Calls
from reference import encode as reference_encode

ENCODE = "encode"

Pair = tuple[str, str]


@dataclass(frozen=True)
class OwnLengths:
    """The counts right for the student's encoder, and a word where it departs."""

    expected: dict[str, int]
    word: str
    their_tokens: list[str]
    reference_tokens: list[str]

    def passed_note(self, calls: Calls) -> str:
        encoder = calls.function_name(ENCODE)
        return (
            f"your counts are right for your {encoder}; {encoder} itself differs from the "
            f"reference ({encoder}({self.word!r}) gives {self.their_tokens!r}, expected "
            f"{self.reference_tokens!r}), which {_milestone_of_encode(calls)} charges."
        )

    def failed_note(self, calls: Calls, reference: dict[str, int]) -> str:
        encoder = calls.function_name(ENCODE)
        return (
            f"Expected counts are those of your own {encoder} (the reference's give "
            f"{reference!r}; {encoder}({self.word!r}) gives {self.their_tokens!r}, not "
            f"{self.reference_tokens!r})."
        )


def own_lengths(
    calls: Calls, sentence: str, merges: list[Pair], reference: dict[str, int]
) -> Optional[OwnLengths]:
    """The counts right for the student's own encoder, or None when they are the reference's
    (or the encoder cannot be called, or fails on a word)."""
    if ENCODE not in calls.exercise.roles() or calls.missing_message(ENCODE):
        return None
    end_of_word = calls.exercise.conventions.end_of_word
    bpe, departure = 0, None
    for word in sentence.split():
        answer = calls.remembered(ENCODE, word, merges)
        if not answer.ok:
            return None
        bpe += len(answer.value)
        expected = reference_encode(word, merges, end_of_word=end_of_word)
        if departure is None and answer.value != expected:
            departure = (word, list(answer.value), expected)
    if departure is None or "bpe" not in reference:
        return None
    return OwnLengths({**reference, "bpe": bpe}, *departure)


def _milestone_of_encode(calls: Calls) -> str:
    milestones = [m for m in calls.exercise.milestones if m.function == ENCODE]
    return f"the '{milestones[0].title}' milestone" if milestones else "its own check"
