"""The laws every right Unigram answer obeys, checked on generated inputs without the reference.

``segment``: its pieces join back to the normalized text; each is a piece of the model or a
run of unknown characters; no segmentation one step away (two adjacent pieces merged into
one, or one split into two) scores higher, as none can beat the Viterbi best.
``log_likelihood``: at least the log-probability of the best segmentation (the sum over
every path holds the best one), and additive over words (no piece spans a space).
``em_step``: a distribution (its probabilities sum to 1) over pieces of the model.
``prune``: a part of the model with its log-probabilities unchanged, every single character
kept, and as many pieces as ``keep`` allows. Every role is deterministic and leaves its
arguments as they were.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

from grader.families.unigram.expected import EM_STEP, LIKELIHOOD, PRUNE, SEGMENT, close, tolerance
from grader.families.unigram.feedback import path_score
from grader.families.api import (
    Calls,
    Failure,
    Property,
    deterministic,
    failed_call,
    inputs_unmodified,
)
from reference.unigram import log_sum_exp, normalize, viterbi


def _common(calls: Calls, role: str, title: str) -> list[Property]:
    return [
        deterministic(title, lambda example: calls.remembered(role, *example),
                      lambda example: calls.answer(role, *example)),
        inputs_unmodified(lambda example: calls.remembered(role, *example)),
    ]


def _law(calls: Calls, role: str, check: Callable[[tuple, Any], Optional[str]]
         ) -> Callable[[tuple], Optional[Failure]]:
    """A property judge: ``check(example, value)`` says why the law fails, or None."""
    def judge(example: tuple) -> Optional[Failure]:
        answer = calls.remembered(role, *example)
        if not answer.ok:
            return failed_call(example, answer)
        why = check(example, answer.value)
        return None if why is None else Failure(example, answer, explanation=why)
    return judge


def _neighbours(tokens: list[str], pieces: dict[str, float]) -> list[list[str]]:
    """Segmentations one step away: two adjacent tokens merged, or one split in two."""
    found = []
    for index in range(len(tokens) - 1):
        merged = tokens[index] + tokens[index + 1]
        if merged in pieces:
            found.append(tokens[:index] + [merged] + tokens[index + 2:])
    for index, token in enumerate(tokens):
        for cut in range(1, len(token)):
            left, right = token[:cut], token[cut:]
            if left in pieces and right in pieces:
                found.append(tokens[:index] + [left, right] + tokens[index + 1:])
    return found


def segment_properties(calls: Calls) -> list[Property]:
    def joins(example: tuple, value: list[str]) -> Optional[str]:
        normalized = normalize(example[0])
        if "".join(value) != normalized:
            return f"the pieces join to {''.join(value)!r}, not the normalized text {normalized!r}"
        return None

    def known(example: tuple, value: list[str]) -> Optional[str]:
        if path_score(value, example[1]) is None:
            return "a piece is neither in the model nor a run of unknown characters"
        return None

    def locally_best(example: tuple, value: list[str]) -> Optional[str]:
        pieces = example[1]
        score = path_score(value, pieces)
        if score is None or "".join(value) != normalize(example[0]):
            return None  # the other laws say what is wrong
        for other in _neighbours(value, pieces):
            better = path_score(other, pieces)
            if better is not None and better > score + 1e-9:
                return (f"{other!r} scores {better:.4f}, more than your {value!r} at "
                        f"{score:.4f}: the Viterbi segmentation has the highest score")
        return None

    return [
        *_common(calls, SEGMENT, "same input, same pieces"),
        Property("joins-back", "the pieces join back to the normalized text",
                 _law(calls, SEGMENT, joins)),
        Property("known-pieces", "every piece is in the model or unknown",
                 _law(calls, SEGMENT, known)),
        Property("no-better-neighbour", "no segmentation one merge or split away scores higher",
                 _law(calls, SEGMENT, locally_best)),
    ]


def likelihood_properties(calls: Calls) -> list[Property]:
    within = tolerance(calls.exercise)

    def above_best(example: tuple, value: float) -> Optional[str]:
        best = viterbi(*example)[1]
        if value < best - within * max(1.0, abs(best)):
            return (f"the log-likelihood {value:.6f} is below the best segmentation's "
                    f"log-probability {best:.6f}; the sum over all paths includes that one")
        return None

    def additive(example: tuple) -> Optional[Failure]:
        text, pieces = example
        words = text.split()
        whole = calls.remembered(LIKELIHOOD, text, pieces)
        if not whole.ok:
            return failed_call(example, whole)
        if len(words) < 2:
            return None
        parts = [calls.remembered(LIKELIHOOD, word, pieces) for word in words]
        for part in parts:
            if not part.ok:
                return failed_call(example, part)
        summed = sum(part.value for part in parts)
        if not close(whole.value, summed, within * len(words)):
            return Failure(example, whole, explanation=(
                f"no piece spans a space here, so the log-likelihood of {text!r} is the sum of "
                f"its words' ({summed:.6f}), but it is {whole.value:.6f}"))
        return None

    return [
        *_common(calls, LIKELIHOOD, "same input, same log-likelihood"),
        Property("at-least-viterbi", "at least the best segmentation's log-probability",
                 _law(calls, LIKELIHOOD, above_best)),
        Property("additive-over-words", "the sum of its words' log-likelihoods", additive),
    ]


def em_properties(calls: Calls) -> list[Property]:
    def distribution(example: tuple, value: dict[str, float]) -> Optional[str]:
        if not value:
            return "the new model is empty"
        mass = math.exp(log_sum_exp(list(value.values())))
        if not close(mass, 1.0, 1e-6):
            return f"the probabilities sum to {mass:.6f}, not 1"
        return None

    def of_the_model(example: tuple, value: dict[str, float]) -> Optional[str]:
        strangers = sorted(set(value) - set(example[1]))
        if strangers:
            return f"{strangers[0]!r} is not a piece of the model"
        return None

    return [
        *_common(calls, EM_STEP, "same input, same model"),
        Property("normalized", "the probabilities sum to 1", _law(calls, EM_STEP, distribution)),
        Property("pieces-of-the-model", "every piece is one of the model's",
                 _law(calls, EM_STEP, of_the_model)),
    ]


def prune_properties(calls: Calls) -> list[Property]:
    def sub_model(example: tuple, value: dict[str, float]) -> Optional[str]:
        pieces = example[1]
        for piece, score in value.items():
            if piece not in pieces:
                return f"{piece!r} is not a piece of the model"
            if score != pieces[piece]:
                return f"{piece!r} changed from {pieces[piece]} to {score}: pruning keeps the scores"
        return None

    def characters_kept(example: tuple, value: dict[str, float]) -> Optional[str]:
        lost = sorted(piece for piece in example[1] if len(piece) == 1 and piece not in value)
        return f"the single character {lost[0]!r} was removed" if lost else None

    def size(example: tuple, value: dict[str, float]) -> Optional[str]:
        corpus, pieces, keep = example
        singles = sum(len(piece) == 1 for piece in pieces)
        want = max(singles, min(keep, len(pieces)))
        if len(value) != want:
            return (f"{len(value)} pieces kept; with {len(pieces)} pieces, {singles} of them "
                    f"single characters, and keep={keep} there should be {want}")
        return None

    return [
        *_common(calls, PRUNE, "same input, same pieces kept"),
        Property("sub-model", "a part of the model, scores unchanged", _law(calls, PRUNE, sub_model)),
        Property("characters-kept", "every single character is kept",
                 _law(calls, PRUNE, characters_kept)),
        Property("size", "as many pieces as keep allows", _law(calls, PRUNE, size)),
    ]
