"""What a student reads about a character-BPE check: merge steps, tokens, sequence lengths.

A wrong merge list is explained the way the hand exercises explain a step: the first step
that departs, the pair counts there, the tie and the rule that decides it. Merge lists are
shown in the form the student's functions take them (the exercise's merge form). The
evidence goes into ``details`` in the shapes documented by :mod:`grader.report.details`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Optional

from grader.families.bpe.expected import to_merge_form
from grader.families.api import (
    Claim,
    Exercise,
    first_differing_index,
    json_pair,
    json_pairs,
    said,
    show,
)
from reference.corpus import word_counts
from reference.plain import count_pairs, initial_segmentation, merge_words, train_steps
from reference.tie_breaks import DESCRIPTIONS, order_tied

Pair = tuple[str, str]

PAIR_COUNTS_SHOWN = 8
TIED_NAMED = 6


# --------------------------------------------------------------------------- values


def student_merges(exercise: Exercise, merges: Sequence[Pair]) -> list[Any]:
    """Bare pairs as the student's functions take them (the exercise's merge form), as JSON."""
    return _as_json(to_merge_form(list(merges), exercise.conventions.merge_form))


def merges_text(exercise: Exercise, merges: Sequence[Pair]) -> str:
    """The merges as Python, in the form the student's functions take."""
    return repr(to_merge_form(list(merges), exercise.conventions.merge_form))


def _as_json(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_as_json(item) for item in value]
    return value


def json_corpus(corpus: Any) -> Any:
    return dict(corpus) if isinstance(corpus, dict) else list(corpus)


# --------------------------------------------------------------------------- merges


def first_difference(
    exercise: Exercise, corpus: Any, num_merges: int, expected: list[Pair], actual: list[Pair]
) -> Optional[dict[str, Any]]:
    """The first differing merge step: both picks, the pair counts there, the tie and the rule.

    Up to that step both lists agree, so the counts are those of the reference's segmentation
    after the merges they share.
    """
    index = first_differing_index(expected, actual)
    if index is None:
        return None
    conventions = exercise.conventions
    rule = conventions.tie_break
    steps = list(
        train_steps(corpus, num_merges, tie_break=rule, end_of_word=conventions.end_of_word)
    )
    if index < len(steps):
        pair_counts, tied = steps[index].pair_counts, steps[index].tied
    else:
        pair_counts = _counts_after(corpus, expected[:index], conventions.end_of_word)
        tied = []
    want = expected[index] if index < len(expected) else None
    got = actual[index] if index < len(actual) else None
    return {
        "step": index + 1,
        "expected": json_pair(want),
        "actual": json_pair(got),
        "pair_counts": _top_counts(pair_counts, tied, rule, got),
        "tied": json_pairs(tied) if len(tied) > 1 else [],
        "rule": rule,
        "rule_text": DESCRIPTIONS[rule],
    }


def _counts_after(corpus: Any, merges: list[Pair], end_of_word: str) -> dict[Pair, int]:
    words = initial_segmentation(word_counts(corpus), end_of_word)
    for pair in merges:
        words = merge_words(words, pair)
    return count_pairs(words)


def _top_counts(
    pair_counts: dict[Pair, int], tied: list[Pair], rule: str, student_pick: Optional[Pair]
) -> list[list[Any]]:
    """Highest count first, the tie in the rule's order, plus the student's pick if lower."""
    ordered = sorted(pair_counts, key=lambda pair: -pair_counts[pair])  # stable: first-seen
    if tied:
        tied_in_order = order_tied(list(tied), rule)
        ordered = tied_in_order + [pair for pair in ordered if pair not in set(tied)]
    shown = ordered[:PAIR_COUNTS_SHOWN]
    if student_pick in pair_counts and student_pick not in shown:
        shown.append(student_pick)
    return [[a, b, pair_counts[(a, b)]] for a, b in shown]


def merges_details(
    corpus: Any,
    num_merges: int,
    expected: list[Pair],
    actual: Optional[list[Pair]],
    difference: Optional[dict[str, Any]],
) -> dict[str, Any]:
    """Evidence of a training case; ``actual`` is left out when no valid value came back."""
    details: dict[str, Any] = {
        "kind": "merges",
        "input": {"corpus": json_corpus(corpus), "num_merges": num_merges},
        "expected": json_pairs(expected),
    }
    if actual is not None:
        details["actual"] = json_pairs(actual)
    if difference is not None:
        details["first_difference"] = difference
    return details


def merges_message(difference: dict[str, Any], num_merges: int, corpus: Any = None,
                   end_of_word: Optional[str] = None, expected: Optional[list[Pair]] = None) -> str:
    """One paragraph on the first differing step: what the rule picks there and why.

    With ``corpus``, its marker and the ``expected`` merges, each sentence of fact about that step (a tie, the most
    frequent pair, a count, why training may stop there) is a claim re-counted from the corpus
    as rewritten by the merges both lists share, and left out unless the count shows it."""
    step = difference["step"]
    want, got = difference["expected"], difference["actual"]
    counts = {(a, b): count for a, b, count in difference["pair_counts"]}
    recount = _recount(corpus, difference, end_of_word, expected)
    if want is None:
        ended = (
            f"num_merges is {num_merges}"
            if step > num_merges
            else "no pair is left to merge (every word is a single symbol)"
        )
        return (
            f"merge {step} should not exist: training stops after {step - 1} merges because "
            f"{ended}; you returned {show(got)} as merge {step}."
        )
    want_count = counts.get(tuple(want))
    if got is None:
        return said(
            f"your merges stop after {step - 1}, but merge {step} should be {show(want)}"
            f" (count {want_count if want_count is not None else '?'}).",
            Claim("No pair occurs more than once there: code that stops when no pair has a "
                  "count of at least 2 stops at this step, but this exercise merges pairs that "
                  "occur once too.", lambda: max(recount().values()) == 1),
        )
    text = f"merge {step} differs: expected {show(want)}, got {show(got)}."
    tied = difference["tied"]
    got_count = counts.get(tuple(got))
    if got_count is None:
        # Not a pair of the words at all: the tie (if any) is not what went wrong.
        return said(text, f"{show(got)} is not an adjacent pair of the words at that step, so "
                    "it cannot be merged there;", Claim(
                        f"the pair to merge there is {show(want)} (count {want_count}).",
                        lambda: recount()[tuple(want)] == want_count))
    if tied:
        named = ", ".join(show(pair) for pair in tied[:TIED_NAMED])
        more = f" and {len(tied) - TIED_NAMED} more" if len(tied) > TIED_NAMED else ""
        fact = Claim(
            f"At that step {len(tied)} pairs tie at count {want_count} ({named}{more}); "
            f"the tie rule '{difference['rule']}' ({difference['rule_text']}) picks {show(want)}.",
            lambda: _ties(recount(), tied, want_count))
    else:
        fact = Claim(f"At that step {show(want)} is the most frequent pair (count {want_count}).",
                     lambda: _most_frequent(recount(), tuple(want), want_count))
    told = None
    if not tied or tuple(got) not in {tuple(pair) for pair in tied}:
        told = Claim(f"{show(got)} has count {got_count} there.",
                     lambda: recount().get(tuple(got)) == got_count)
    return said(text, fact, told)


def _recount(corpus: Any, difference: dict[str, Any], end_of_word: Optional[str],
             expected: Optional[list[Pair]]) -> Callable[[], dict[Pair, int]]:
    """The pair counts of the corpus after the merges both lists share, counted afresh (not
    from the step table), once; without a corpus, the table's own counts."""
    if corpus is None or end_of_word is None or expected is None:
        table = {(a, b): count for a, b, count in difference["pair_counts"]}
        return lambda: table
    shared = expected[:difference["step"] - 1]
    found: list[dict[Pair, int]] = []

    def counted() -> dict[Pair, int]:
        if not found:
            found.append(_counts_after(corpus, [tuple(p) for p in shared], end_of_word))
        return found[0]

    return counted


def _ties(counts: dict[Pair, int], tied: list[Any], count: Any) -> bool:
    top = max(counts.values())
    at_top = {pair for pair, n in counts.items() if n == top}
    return len(at_top) > 1 and top == count and at_top == {tuple(pair) for pair in tied}


def _most_frequent(counts: dict[Pair, int], pair: Pair, count: Any) -> bool:
    top = max(counts.values())
    return counts.get(pair) == count == top and sum(n == top for n in counts.values()) == 1


# --------------------------------------------------------------------------- tokens, lengths


def tokens_details(
    word: str, expected: list[str], actual: Optional[list[str]], merges: Optional[list[Pair]] = None,
    *, shown_merges: Optional[list[Any]] = None,
) -> dict[str, Any]:
    """``shown_merges`` (see :func:`student_merges`) replaces the bare pairs as shown."""
    given: dict[str, Any] = {"word": word}
    if merges is not None:
        given["merges"] = shown_merges if shown_merges is not None else json_pairs(merges)
    details: dict[str, Any] = {"kind": "tokens", "input": given, "expected": list(expected)}
    if actual is not None:
        details["actual"] = list(actual)
    return details


def tokens_message(function: str, word: str, expected: list[str], actual: list[str]) -> str:
    index = first_differing_index(expected, actual)
    where = (
        f"they first differ at token {index + 1}"
        if index is not None and index < min(len(expected), len(actual))
        else f"you returned {_tokens_count(len(actual))}, expected {len(expected)}"
    )
    return f"{function}({word!r}) returned {actual!r}, expected {expected!r}; {where}."


def _tokens_count(count: int) -> str:
    return "1 token" if count == 1 else f"{count} tokens"


def lengths_details(
    sentence: str, expected: dict[str, int], actual: Optional[dict[str, int]], merges: list[Pair],
    *, shown_merges: Optional[list[Any]] = None,
) -> dict[str, Any]:
    details: dict[str, Any] = {
        "kind": "lengths",
        "input": {"sentence": sentence,
                  "merges": shown_merges if shown_merges is not None else json_pairs(merges)},
        "expected": dict(expected),
    }
    if actual is not None:
        details["actual"] = dict(actual)
    return details


def lengths_message(function: str, sentence: str, expected: dict[str, int], actual: dict[str, int]) -> str:
    wrong = [key for key in expected if expected[key] != actual.get(key)]
    parts = ", ".join(f"{key} is {actual.get(key)} (expected {expected[key]})" for key in wrong)
    return f"{function}({sentence!r}, ...): {parts}."
