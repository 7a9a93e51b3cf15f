"""Feedback for the WordPiece roles: the first differing merge step, shown with its scores.

A WordPiece merge is chosen by score ``count(ab) / (count(a) * count(b))``, so the evidence at
the first differing step lists scores where BPE feedback lists counts: each entry reads
``3/(3*3)=1/3``, exact fractions, in the step table's count column (the structure of
:mod:`grader.report.details` is unchanged). A divergence answer is explained by the two pairs
each algorithm picks at the step where they first part.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Optional

from grader.families.bpe.feedback import json_corpus
from grader.families.api import Exercise, first_differing_index, json_pair, json_pairs, show
from reference.corpus import word_counts
from reference.plain import initial_segmentation, merge_words
from reference.tie_breaks import DESCRIPTIONS, order_tied
from reference.wordpiece import symbol_counts, wordpiece_steps

Pair = tuple[str, str]
SCORES_SHOWN = 8
TIED_NAMED = 6


def score_text(score: Fraction, pair_count: int, count_a: int, count_b: int) -> str:
    """``3/(3*3)=1/3``: the counts a score comes from and the exact score (short enough for
    the step table's count column)."""
    return f"{pair_count}/({count_a}*{count_b})={score}"


def wordpiece_difference(
    exercise: Exercise, corpus: Any, num_merges: int, expected: list[Pair], actual: list[Pair]
) -> Optional[dict[str, Any]]:
    """The first differing WordPiece step: both picks, the scores there, the tie and the rule."""
    index = first_differing_index(expected, actual)
    if index is None:
        return None
    conventions = exercise.conventions
    rule = conventions.tie_break
    steps = list(wordpiece_steps(corpus, num_merges, tie_break=rule,
                                 end_of_word=conventions.end_of_word))
    words = initial_segmentation(word_counts(corpus), conventions.end_of_word)
    for pair in expected[:index]:
        words = merge_words(words, pair)
    symbols = symbol_counts(words)
    scores = steps[index].scores if index < len(steps) else {}
    tied = steps[index].tied if index < len(steps) else []
    want = expected[index] if index < len(expected) else None
    got = tuple(actual[index]) if index < len(actual) else None
    ordered = sorted(scores, key=lambda pair: -scores[pair])
    if len(tied) > 1:
        ordered = order_tied(list(tied), rule) + [p for p in ordered if p not in set(tied)]
    shown = ordered[:SCORES_SHOWN]
    if got in scores and got not in shown:
        shown.append(got)
    pair_counts = _pair_counts(words)
    top = max(pair_counts.values(), default=0)
    frequent = [pair for pair, count in pair_counts.items() if count == top]
    return {
        "step": index + 1,
        "expected": json_pair(want),
        "actual": json_pair(got),
        "pair_counts": [
            [a, b, score_text(scores[(a, b)], pair_counts[(a, b)], symbols[a], symbols[b])]
            for a, b in shown
        ],
        # a tie is described only where the student's code met it: its pair among the tied
        "tied": json_pairs(tied) if len(tied) > 1 and got in set(tied) else [],
        # BPE's candidates at this step: what a trainer ranking by raw count would pick.
        "most_frequent": {"pairs": json_pairs(frequent), "count": top,
                          "pick": json_pair(order_tied(frequent, rule)[0] if frequent else None)},
        "rule": rule,
        "rule_text": DESCRIPTIONS[rule],
        "measure": "score",
    }


def _pair_counts(words: dict) -> dict[Pair, int]:
    counts: dict[Pair, int] = {}
    for symbols, count in words.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + count
    return counts


def wordpiece_message(difference: dict[str, Any], num_merges: int) -> str:
    """One paragraph on the first differing WordPiece step."""
    step = difference["step"]
    want, got = difference["expected"], difference["actual"]
    scores = {(a, b): text for a, b, text in difference["pair_counts"]}
    if want is None:
        return (f"merge {step} should not exist: training stops after {step - 1} merges; "
                f"you returned {show(got)} as merge {step}.")
    if got is None:
        return f"your merges stop after {step - 1}, but merge {step} should be {show(want)}."
    text = (f"merge {step} differs: expected {show(want)} (score {scores.get(tuple(want), '?')}), "
            f"got {show(got)}")
    got_score = scores.get(tuple(got))
    text += f" (score {got_score})." if got_score else ", which is not an adjacent pair at that step."
    tied = difference["tied"]
    if tied and tuple(got) in {tuple(pair) for pair in tied}:
        named = ", ".join(show(pair) for pair in tied[:TIED_NAMED])
        text += (f" {len(tied)} pairs tie on the highest score ({named}); the tie rule "
                 f"'{difference['rule']}' ({difference['rule_text']}) picks {show(want)}.")
    elif got_score:
        text += " " + _why_not(difference, got)
    return text


def _why_not(difference: dict[str, Any], got: list[str]) -> str:
    """Why the student's pair is not WordPiece's pick, claiming only what the step shows: that
    it is the most frequent pair (BPE's pick) only when it is."""
    rule = ("WordPiece merges the pair with the highest score count(ab)/(count(a)*count(b)), "
            "compared exactly")
    frequent = difference.get("most_frequent") or {}
    pairs = [tuple(pair) for pair in frequent.get("pairs") or []]
    count = frequent.get("count")
    times = f"{count} time{'s' if count != 1 else ''}"
    if tuple(got) not in pairs:
        return f"{rule}; {show(got)} does not have the highest score at this step."
    if len(pairs) == 1:
        return (f"{show(got)} is the most frequent pair here ({times}), which is BPE's choice; "
                f"{rule}, not by frequency.")
    if frequent.get("pick") is not None and tuple(got) == tuple(frequent["pick"]):
        return (f"{show(got)} is BPE's choice here: {len(pairs)} pairs share the highest count "
                f"({times} each) and the tie rule '{difference['rule']}' picks it; {rule}, "
                "not by frequency.")
    return (f"{show(got)} is one of the {len(pairs)} pairs with the highest count here "
            f"({times} each); {rule}, and {show(got)} does not have the highest score.")


def show_divergence(value: Optional[tuple[int, Pair, Pair]]) -> str:
    if value is None:
        return "None (the two never part)"
    step, bpe, wordpiece = value
    return f"({step}, {show(bpe)}, {show(wordpiece)})"


def divergence_details(corpus: Any, num_merges: int, expected: Any, actual: Any = None,
                       answered: bool = False) -> dict[str, Any]:
    details: dict[str, Any] = {
        "kind": "divergence",
        "input": {"corpus": json_corpus(corpus), "num_merges": num_merges},
        "expected": _json_divergence(expected),
    }
    if answered:
        details["actual"] = _json_divergence(actual)
    return details


def _json_divergence(value: Any) -> Any:
    if value is None:
        return None
    step, bpe, wordpiece = value
    return [step, json_pair(bpe), json_pair(wordpiece)]


def divergence_message(function: str, corpus: Any, num_merges: int, expected: Any, actual: Any) -> str:
    """What the student's divergence answer got wrong, in one or two sentences."""
    text = (f"{function}(corpus, {num_merges}) returned {show_divergence(actual)}, "
            f"expected {show_divergence(expected)}.")
    if expected is None:
        return text + " BPE and WordPiece merge the same pair at every step here."
    step, bpe, wordpiece = expected
    agree = (f"Up to step {step - 1} both merge the same pairs; at step {step}" if step > 1
             else "They part at the first merge, step 1:")
    text += (f" {agree} BPE takes {show(bpe)} (the most frequent) and WordPiece "
             f"{show(wordpiece)} (the highest score); steps count from 1.")
    return text
