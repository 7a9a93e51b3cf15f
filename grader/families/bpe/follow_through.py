"""Follow-through: a function that builds on another graded function is judged on its own work.

``sequence_lengths`` counts the tokens of the student's own ``tokenize`` (its role depends on
``encode``). When that ``tokenize`` is wrong, the right counts for *it* differ
from the reference's, and charging ``sequence_lengths`` for them would charge one mistake
twice. :func:`own_lengths` gives the counts that are right for the student's own encoder on a
sentence, and a sentence saying so, whenever its tokens differ from the reference's there;
the checks then accept those counts and say where the real mistake is.

``train`` builds on ``get_stats`` and ``merge_vocab`` the same way: :func:`own_merges` runs
the reference's training loop with the student's own two functions, and a trainer whose
merges equal those is right for its helpers; the helpers' milestones charge their mistake.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any, Optional

from grader.families.api import Calls
from reference import encode as reference_encode
from reference.plain import count_pairs, initial_segmentation, merge_words
from reference.tie_breaks import best_pair

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


# --------------------------------------------------------------------------- training on own helpers

COUNT, MERGE, TRAIN = "count_pairs", "merge_pair", "train"


@dataclass(frozen=True)
class OwnMerges:
    """The merges the reference's training loop learns with the student's own ``get_stats``
    and ``merge_vocab``, where they differ from the reference's merges."""

    expected: list[Pair]
    departed: tuple[str, ...]  # the helper roles whose answers differed from the reference's

    def passed_note(self, calls: Calls) -> str:
        helpers = " and ".join(calls.function_name(role) for role in self.departed)
        titles = [m.title for role in self.departed for m in calls.exercise.milestones
                  if m.function == role]
        where = " and ".join(f"'{title}'" for title in titles) or "its own check"
        return (f"where your {helpers} differs from the reference's, your merges are those "
                f"the reference's training loop learns with it; {where} charges that.")


def own_merges(calls: Calls, corpus: dict[str, int], num_merges: int,
               reference: list[Pair]) -> Optional[OwnMerges]:
    """The merges of the reference's loop (count with the student's counting function, merge
    the most frequent pair by the exercise's tie rule, merge it with the student's merging
    function, count again) when they differ from ``reference`` and are as many, else None
    (also when a helper is missing or gives no usable answer, or a merge that does not spell
    the same words with the same counts, as a do-nothing one: nothing to follow through).

    The loop's steps done so far are kept per grading (:func:`_training_of`): a judge asked
    again (once per round of calls made ahead, :func:`grader.grading.search.prefetch`) goes
    on from the step whose answer it lacked, the answers before it being the same."""
    roles = calls.exercise.roles()
    if not {COUNT, MERGE, TRAIN} <= set(roles) or any(
            calls.missing_message(role) for role in (COUNT, MERGE)):
        return None
    run = _training_of(calls, corpus, num_merges)
    while not run.ended and len(run.merges) < num_merges:
        _step(calls, run)
    merges = run.merges
    if run.unusable or merges == reference or len(merges) != len(reference) or not run.departed:
        return None
    return OwnMerges(list(merges), tuple(sorted(run.departed, key=(COUNT, MERGE).index)))


@dataclass
class _Training:
    """The reference's loop on the student's helpers, as far as it went."""

    words: dict
    merges: list[Pair] = field(default_factory=list)
    departed: dict[str, None] = field(default_factory=dict)
    ended: bool = False  # no pair left, or no usable answer
    unusable: bool = False


_TRAININGS: "weakref.WeakKeyDictionary[Any, dict[tuple, _Training]]" = weakref.WeakKeyDictionary()


def _training_of(calls: Calls, corpus: dict[str, int], num_merges: int) -> _Training:
    """The loop on ``corpus`` of this grading's ``calls``, new or as far as it went."""
    runs = _TRAININGS.setdefault(calls, {})
    key = (repr(corpus), num_merges)
    if key not in runs:
        runs[key] = _Training(initial_segmentation(corpus, calls.exercise.conventions.end_of_word))
    return runs[key]


def _step(calls: Calls, run: _Training) -> None:
    """One step of the loop; ``run`` changes only once the step's answers are all there."""
    words = run.words
    counts = calls.remembered(COUNT, words)
    if not counts.ok or not isinstance(counts.value, dict):
        run.ended = run.unusable = True
        return
    departed = {COUNT: None} if counts.value != count_pairs(words) else {}
    if not counts.value:
        run.departed.update(departed)
        run.ended = True
        return
    pair = best_pair(_in_scan_order(counts.value, words), calls.exercise.conventions.tie_break)
    merged = calls.remembered(MERGE, pair, words)
    if not merged.ok or not isinstance(merged.value, dict) or (
            _spelled(merged.value) != _spelled(words)):
        run.ended = run.unusable = True  # not a rewriting of the same words: nothing to follow
        return
    if merged.value != merge_words(words, pair):
        departed[MERGE] = None
    run.departed.update(departed)
    run.merges.append(pair)
    run.words = merged.value


def _spelled(words: dict) -> list[tuple[str, int]]:
    """The words a segmentation spells, with their counts (a merge never changes them)."""
    return sorted(("".join(symbols), count) for symbols, count in words.items())


def _in_scan_order(counts: dict, words: dict) -> dict:
    """``counts`` in the order a scan of ``words`` meets the pairs (what the first-seen rule
    reads), pairs never met last."""
    order = {}
    for symbols in words:
        for pair in zip(symbols, symbols[1:]):
            if pair in counts:
                order.setdefault(pair, counts[pair])
    return {**order, **{pair: count for pair, count in counts.items() if pair not in order}}
