"""How the WordPiece roles are checked on generated inputs: BPE's corpora, WordPiece's answers.

Both roles take ``(corpus, num_merges)`` and are generated like BPE training; a wrong merge
list is explained at its first differing step with the scores there, a wrong divergence by
the expected and the returned triple. A generated input whose right answer a do-nothing
function also gives is no evidence of work. Besides BPE's inputs, both roles get corpora whose
scores agree to one, two, ... eight decimals and still differ (:mod:`.near_ties`), where code
comparing rounded scores shows whatever it rounds to.
"""

from __future__ import annotations

from typing import Any

from grader.families.bpe import generated as bpe_inputs
from grader.families.bpe.differential import corpus_record, judge_against
from grader.families.wordpiece import near_ties
from grader.families.wordpiece.do_nothing import trivial_answer
from grader.families.wordpiece.expected import divergence, wordpiece_merges
from grader.families.wordpiece.feedback import wordpiece_difference, wordpiece_message
from grader.families.api import Calls, Exercise, Failure, Shown, json_pairs

TRAIN, DIVERGENCE = "train_wordpiece", "first_divergence"


def train_shown(calls: Calls, failure: Failure) -> Shown:
    expected = json_pairs(failure.expected)
    if not failure.answer.ok:
        return Shown(expected)
    corpus, num_merges = failure.example
    difference = wordpiece_difference(calls.exercise, corpus, num_merges, failure.expected,
                                      failure.answer.value)
    what = wordpiece_message(difference, num_merges) if difference else ""
    return Shown(expected, json_pairs(failure.answer.value), what, difference)


def divergence_shown(calls: Calls, failure: Failure) -> Shown:
    if not failure.answer.ok:
        return Shown(failure.expected)
    return Shown(failure.expected, failure.answer.value,
                 f"expected {failure.expected!r}, got {failure.answer.value!r}.")


def _work_shown(role: str, expected: Any) -> Any:
    def shown(exercise: Exercise, example: Any) -> bool:
        return not trivial_answer(exercise, role, example, expected(exercise, *example))
    return shown


def _strategy(exercise: Exercise) -> Any:
    return near_ties.near_tie_strategy(exercise, bpe_inputs.training_strategy(exercise))


def _targeted(exercise: Exercise) -> list:
    return (bpe_inputs.targeted_examples(exercise, bpe_inputs.TRAIN)
            + near_ties.targeted_examples(exercise))


TRAIN_INPUTS = corpus_record(TRAIN, judge_against(TRAIN, wordpiece_merges), train_shown,
                             _work_shown(TRAIN, wordpiece_merges), _strategy, _targeted)
DIVERGENCE_INPUTS = corpus_record(DIVERGENCE, judge_against(DIVERGENCE, divergence),
                                  divergence_shown, _work_shown(DIVERGENCE, divergence),
                                  _strategy, _targeted)
