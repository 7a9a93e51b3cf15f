"""The pair counts at the first merge where a student's byte-level trainer departs, as a table.

As character BPE shows a wrong merge: the step, both picks, the most frequent pairs of the
pre-tokens as rewritten by the merges both lists share (each pre-token weighted by how often
it occurs), and the tie with CS336's rule (the greater pair of bytes first). Counted afresh
from the text, never from the trainer being judged; pairs are written as Python bytes literals.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Optional

from grader.families.api import first_differing_index
from reference.byte_level import pretokenize

SHOWN = 8
RULE = "reverse-lexicographic"
RULE_TEXT = "the greatest pair of bytes, max(counts, key=lambda p: (counts[p], p))"

BytePair = tuple[bytes, bytes]


def pair_counts_after(text: str, special_tokens: list[str], merges: list[BytePair]) -> Counter:
    """The weighted pair counts of the text's pre-tokens after ``merges``."""
    words: Counter = Counter(tuple(bytes([b]) for b in piece.encode("utf-8"))
                             for piece in pretokenize(text, special_tokens))
    for pair in merges:
        rewritten: Counter = Counter()
        for word, count in words.items():
            rewritten[_merged(word, pair)] += count
        words = rewritten
    counts: Counter = Counter()
    for word, count in words.items():
        for pair in zip(word, word[1:]):
            counts[pair] += count
    return counts


def _merged(word: tuple[bytes, ...], pair: BytePair) -> tuple[bytes, ...]:
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def first_difference(text: str, special_tokens: list[str], expected: list[BytePair],
                     actual: list[Any]) -> Optional[dict[str, Any]]:
    """The first differing merge step in the shape of ``details["first_difference"]``, or None
    when the lists agree, the student's list ended early, or no pair is left there."""
    index = first_differing_index(expected, actual)
    if index is None or index >= len(actual) or index >= len(expected):
        return None
    counts = pair_counts_after(text, special_tokens, expected[:index])
    if not counts:
        return None
    ordered = sorted(counts, key=lambda pair: (counts[pair], pair), reverse=True)
    top = counts[ordered[0]]
    tied = [pair for pair in ordered if counts[pair] == top]
    got = tuple(actual[index])
    shown = ordered[:SHOWN] + ([got] if got in counts and got not in ordered[:SHOWN] else [])
    return {
        "step": index + 1,
        "expected": _shown(expected[index]),
        "actual": _shown(got),
        "pair_counts": [[*_shown(pair), counts[pair]] for pair in shown],
        "tied": [_shown(pair) for pair in tied] if len(tied) > 1 else [],
        "rule": RULE,
        "rule_text": RULE_TEXT,
    }


def _shown(pair: Any) -> list[str]:
    return [repr(part) for part in pair]
