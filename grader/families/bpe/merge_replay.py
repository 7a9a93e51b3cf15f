"""Is a merge list an honest BPE run on a corpus, whatever its counting or tie rule?

The efficiency check grades speed on any honest run, not only on the reference's merges:
each ``(a, b)`` must occur as adjacent symbols somewhere in the corpus as rewritten by the
merges before it. Any tie rule, and even a trainer that does not pick the most frequent
pair, passes; merges that occur nowhere (a marker glued onto the last character, pairs
made up or copied from another corpus) fail at the first such merge.

Replaying keeps an index from each pair to the distinct words containing it, so each merge
touches only those words: the cost is that of a fast trainer, never merges x words.
"""

from __future__ import annotations

from typing import Any, Optional

from reference.corpus import segment, word_counts

Pair = tuple[str, str]


def _pairs(symbols: list[str]) -> set[Pair]:
    return set(zip(symbols, symbols[1:]))


def _merged(symbols: list[str], pair: Pair) -> list[str]:
    a, b = pair
    out: list[str] = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
            out.append(a + b)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def first_unfounded_merge(corpus: Any, merges: list[Pair], end_of_word: str) -> Optional[int]:
    """The index of the first merge that occurs nowhere in the rewritten corpus, or None."""
    words = [list(segment(word, end_of_word)) for word in word_counts(corpus)]
    index: dict[Pair, set[int]] = {}
    for number, symbols in enumerate(words):
        for pair in _pairs(symbols):
            index.setdefault(pair, set()).add(number)
    for position, pair in enumerate(merges):
        holders = index.pop(pair, None)
        if not holders:
            return position
        for number in holders:
            old = words[number]
            for other in _pairs(old) - {pair}:
                owners = index.get(other)
                if owners is not None:
                    owners.discard(number)
                    if not owners:
                        del index[other]
            new = _merged(old, pair)
            words[number] = new
            for other in _pairs(new):
                index.setdefault(other, set()).add(number)
    return None
