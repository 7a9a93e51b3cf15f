"""What wrong log-likelihoods show when no catalogued mistake explains them: a shifted best path.

Code that scores only the best segmentation (the Viterbi path) and then subtracts something
fixed (a penalty, an end-of-text probability, a normalisation) matches no entry: its answers
are neither the best path (``unigram-likelihood-max``) nor the total. :func:`likelihood_signals`
computes, on each failing input, the best path's score minus the student's answer; when that
difference is the same non-zero number on every failing input, and the total over all paths
is not off by one same number (which would be another mistake), the signal says so, with the
constant computed from the run. It is a fact about the student's answers, never a guess.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Optional

from grader.families.unigram.expected import DEFAULT_TOLERANCE, LIKELIHOOD, close
from grader.families.api import Observation
from reference.unigram import log_likelihood, viterbi

SIGNAL_ID = "signal-likelihood-shifted-best-path"
TITLE = "The best path's score minus a constant taken for the likelihood"
FEWEST_INPUTS = 2
"""A difference is "the same on every failing input" only when there are at least this many."""


def _answer(observation: Observation) -> Optional[float]:
    value = observation.actual
    if type(value) not in (int, float) or not math.isfinite(value):
        return None
    return float(value)


def _all_same(values: Sequence[float]) -> bool:
    return all(close(values[0], value, DEFAULT_TOLERANCE) for value in values[1:])


def shifted_best_path(observations: Sequence[Observation]) -> Optional[tuple[float, int]]:
    """``(constant, inputs)`` when the best path's score minus the answer is the same non-zero
    ``constant`` on each of the ``inputs`` distinct failing inputs (at least
    :data:`FEWEST_INPUTS`, every one a finite float) and the total minus the answer is not one
    same number on them; else ``None``."""
    seen: dict[str, tuple[float, float]] = {}
    for observation in observations:
        answer = _answer(observation)
        text, pieces = observation.inputs.get("text"), observation.inputs.get("pieces")
        if answer is None or not isinstance(text, str) or not isinstance(pieces, Mapping):
            return None
        best = viterbi(text, dict(pieces))[1]
        total = log_likelihood(text, dict(pieces))
        seen[repr((text, sorted(pieces.items())))] = (best - answer, total - answer)
    if len(seen) < FEWEST_INPUTS:
        return None
    to_best = [difference for difference, _ in seen.values()]
    to_total = [difference for _, difference in seen.values()]
    if not _all_same(to_best) or close(to_best[0], 0.0, DEFAULT_TOLERANCE) or _all_same(to_total):
        return None
    return sum(to_best) / len(to_best), len(seen)


def likelihood_signals(role: str, observations: Sequence[Observation],
                       options: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """``(id, title, message)`` when the failing log-likelihoods are the best path shifted by
    one computed constant (see :func:`shifted_best_path`); none otherwise."""
    if role != LIKELIHOOD:
        return []
    found = shifted_best_path(observations)
    if found is None:
        return []
    constant, inputs = found
    how = "minus" if constant > 0 else "plus"
    return [(SIGNAL_ID, TITLE, (
        f"On each of your {inputs} failing inputs, your answer is the log-probability of the "
        f"best segmentation alone (the Viterbi path) {how} the same {abs(constant):.6g}. "
        "The log-likelihood is the log of the total probability of every segmentation, with "
        "nothing subtracted or added: combine the paths ending at each position with "
        "log-sum-exp, alpha[end] = logsumexp(alpha[start] + logp(piece)), instead of keeping "
        "the best one, and return alpha at the end of the text as it is (0.0 for the empty "
        "text)."))]
