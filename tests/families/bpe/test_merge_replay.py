"""Replaying merges (``grader.families.bpe.merge_replay``) finds the same first departure as
recounting every pair at every step, on honest runs, runs with a wrong merge, and merges that
occur nowhere."""

from __future__ import annotations

import random

from grader.families.bpe.merge_replay import Departure, departure_in


def recounted_departure(words: dict, merges: list) -> Departure | None:
    """The definition: recount the pairs of the rewritten words before every merge."""
    current = dict(words)
    for position, (a, b) in enumerate(merges):
        counts: dict = {}
        for symbols, weight in current.items():
            for pair in zip(symbols, symbols[1:]):
                counts[pair] = counts.get(pair, 0) + weight
        count, most = counts.get((a, b), 0), max(counts.values(), default=0)
        if count == 0 or count < most:
            return Departure(position, count, most)
        current = rewritten(current, (a, b))
    return None


def honest_run(words: dict, steps: int, rng: random.Random) -> list:
    """A BPE run on ``words`` that breaks ties at random."""
    merges, current = [], dict(words)
    for _ in range(steps):
        counts: dict = {}
        for symbols, weight in current.items():
            for pair in zip(symbols, symbols[1:]):
                counts[pair] = counts.get(pair, 0) + weight
        if not counts:
            break
        most = max(counts.values())
        pair = rng.choice(sorted(p for p, c in counts.items() if c == most))
        merges.append(pair)
        current = rewritten(current, pair)
    return merges


def rewritten(words: dict, pair: tuple) -> dict:
    """``words`` with every occurrence of ``pair`` merged, left to right."""
    a, b = pair
    result: dict = {}
    for symbols, weight in words.items():
        out, i = [], 0
        while i < len(symbols):
            if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == (a, b):
                out.append(a + b)
                i += 2
            else:
                out.append(symbols[i])
                i += 1
        result[tuple(out)] = result.get(tuple(out), 0) + weight
    return result


def test_the_replay_departs_where_recounting_departs():
    rng = random.Random(7)
    departed_first = departed_later = honest = 0
    for _ in range(600):
        words: dict = {}
        for _ in range(rng.randint(0, 7)):
            word = tuple(rng.choice("abc") for _ in range(rng.randint(1, 6)))
            words[word] = words.get(word, 0) + rng.choice([1, 1, 2, 3, 5])
        merges = honest_run(words, rng.randint(0, 7), rng)
        if merges and rng.random() < 0.5:  # one merge replaced: the run departs there or later
            merges[rng.randrange(len(merges))] = (rng.choice("abc"), rng.choice("abc"))
        expected = recounted_departure(words, merges)
        assert departure_in(words, merges) == expected, (words, merges)
        if expected is None:
            honest += 1
        elif expected.index == 0:
            departed_first += 1
        else:
            departed_later += 1
    assert min(departed_first, departed_later, honest) > 20  # every kind of run was tried
