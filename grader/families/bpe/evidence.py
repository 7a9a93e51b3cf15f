"""Which right answers of character BPE a do-nothing implementation also gives.

Such an answer is no evidence of work (:mod:`grader.grading.evidence`). The trivial answers,
per role, are what the do-nothing implementations of :mod:`grader.families.bpe.do_nothing`
return on the input, and also:

- ``train``: no merges (``[]``);
- ``encode``: the word's bare characters, with or without the end-of-word marker as a token
  of its own, the whole word as one token (with or without the marker), or no tokens;
- ``sequence_lengths``: ``bpe`` equal to ``char`` (no merge applied) or to ``word`` (every
  word one token);
- ``count_pairs``: no pairs (``{}``);
- ``merge_pair``: the words as they were (the pair occurs nowhere).
"""

from __future__ import annotations

from typing import Any

from grader.families.bpe import do_nothing
from grader.families.api import Exercise

TRAIN, ENCODE, LENGTHS = "train", "encode", "sequence_lengths"
COUNT, MERGE = "count_pairs", "merge_pair"

NO_WORK = {
    TRAIN: ("no points until {name} gets right a case or generated input whose right "
            "merges are not an empty list"),
    ENCODE: ("no points until {name} gets right a case or generated input whose right "
             "tokens are not just the word's characters"),
    LENGTHS: ("no points until {name} gets right a case or generated input whose "
              "bpe count differs from both char and word"),
    COUNT: "no points until {name} gets right a case or generated input that has pairs to count",
    MERGE: "no points until {name} gets right a case or generated input that has a pair to merge",
}


def trivial_answer(exercise: Exercise, role: str, inputs: tuple, expected: Any) -> bool:
    """Whether ``expected``, the right answer of ``role`` on ``inputs`` (``(corpus,
    num_merges)`` for train, ``(word,)`` or ``(sentence,)`` otherwise), is what a do-nothing
    implementation returns."""
    if role == TRAIN:
        if not expected:
            return True
    elif role == ENCODE:
        word = inputs[0]
        marker = exercise.conventions.end_of_word
        tail = [marker] if marker else []
        if list(expected) in [list(word) + tail, list(word), [word + marker], [word], []]:
            return True
    elif role == LENGTHS:
        if not isinstance(expected, dict) or expected.get("bpe") in (expected.get("char"),
                                                                      expected.get("word")):
            return True
    elif role == COUNT:
        if not expected:
            return True
    elif role == MERGE:
        if expected == inputs[1]:  # the pair occurs nowhere: nothing to merge
            return True
    else:
        return True
    call = inputs if role in (TRAIN, COUNT, MERGE) else (inputs[0], [])
    return any(_same(do_nothing.answer(exercise, kind, role, *call), expected)
               for kind in do_nothing.KINDS)


def _same(answer: Any, expected: Any) -> bool:
    if isinstance(answer, list) and isinstance(expected, list):
        return [tuple(a) if isinstance(a, (list, tuple)) else a for a in answer] == \
            [tuple(e) if isinstance(e, (list, tuple)) else e for e in expected]
    return answer == expected
