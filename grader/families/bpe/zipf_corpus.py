"""A large, reproducible corpus of pseudo-words with Zipf-distributed frequencies.

The efficiency milestone times training on a corpus far larger than any hand-written case.
Real text follows Zipf's law (the word of rank ``r`` occurs about ``1 / r**s`` as often as the
most frequent one) and its frequent words are short, so the generated corpus does too:
syllable-built pseudo-words over a small alphabet (so pairs repeat and merges mean something),
the shortest words given the highest ranks, counts apportioned exactly to ``total_words``.

Everything is derived from ``random.Random(seed).random()`` alone (no ``choices``,
``shuffle`` or ``randrange``, whose algorithms have changed between Python versions), so one
seed gives one corpus on every supported Python.
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass
from typing import Union

ONSETS = "bdfgklmnprstvz"
VOWELS = "aeiou"
CODAS = "lnrst"
# Chance of 1, 2, 3 or 4 syllables; with an optional closing consonant this gives words of
# 2 to 9 letters, most of them 4 to 7 long, as in running English text.
SYLLABLE_WEIGHTS = (0.25, 0.40, 0.25, 0.10)
CODA_CHANCE = 0.3
WORDS_PER_LINE = 12
# Distinct words to draw before giving up: generous, yet it ends when the settings ask for
# more distinct words than the syllables can spell.
ATTEMPTS_PER_WORD = 50

Corpus = Union[list[str], dict[str, int]]


class CorpusSettingsError(ValueError):
    """The requested corpus cannot be generated (e.g. fewer words than distinct words)."""


@dataclass(frozen=True)
class ZipfSpec:
    """What to generate: the knobs of an exercise's ``efficiency`` settings that shape the corpus."""

    distinct_words: int
    total_words: int
    zipf_exponent: float
    seed: int

    def problems(self) -> list[str]:
        found = []
        if self.distinct_words < 1:
            found.append(f"distinct_words must be at least 1, got {self.distinct_words}")
        if self.total_words < self.distinct_words:
            found.append(
                f"total_words ({self.total_words}) must be at least distinct_words "
                f"({self.distinct_words}) so that every distinct word occurs"
            )
        if not self.zipf_exponent > 0:
            found.append(f"zipf_exponent must be > 0, got {self.zipf_exponent}")
        return found


def _pick(rng: random.Random, items: str) -> str:
    return items[int(rng.random() * len(items))]


def _syllable_count(rng: random.Random) -> int:
    roll = rng.random()
    for count, weight in enumerate(SYLLABLE_WEIGHTS, start=1):
        if roll < weight:
            return count
        roll -= weight
    return len(SYLLABLE_WEIGHTS)


def pseudo_word(rng: random.Random) -> str:
    """One pronounceable pseudo-word: consonant-vowel syllables, maybe a closing consonant."""
    letters = [_pick(rng, ONSETS) + _pick(rng, VOWELS) for _ in range(_syllable_count(rng))]
    if rng.random() < CODA_CHANCE:
        letters.append(_pick(rng, CODAS))
    return "".join(letters)


def vocabulary(distinct_words: int, rng: random.Random) -> list[str]:
    """``distinct_words`` different pseudo-words, shortest first (frequent words are short)."""
    words: dict[str, None] = {}
    attempts = 0
    while len(words) < distinct_words:
        attempts += 1
        if attempts > ATTEMPTS_PER_WORD * distinct_words:
            raise CorpusSettingsError(
                f"could not make {distinct_words} distinct pseudo-words; ask for fewer"
            )
        words.setdefault(pseudo_word(rng), None)
    return sorted(words, key=len)  # stable: equal lengths keep their drawing order


def zipf_counts(distinct_words: int, total_words: int, exponent: float) -> list[int]:
    """Counts for ranks 1..n that sum to ``total_words``, each at least 1, shaped ``1 / r**s``.

    Every word gets one occurrence; the rest are shared in proportion to the Zipf weights by
    largest remainder (ties to the better rank), so the total is exact and no word vanishes.
    """
    weights = [rank ** -exponent for rank in range(1, distinct_words + 1)]
    spare = total_words - distinct_words
    total_weight = math.fsum(weights)
    shares = [spare * weight / total_weight for weight in weights]
    counts = [1 + int(share) for share in shares]
    leftover = total_words - sum(counts)
    by_remainder = sorted(range(distinct_words), key=lambda i: (-(shares[i] - int(shares[i])), i))
    for index in by_remainder[:leftover]:
        counts[index] += 1
    return counts


def _shuffled(items: list[str], rng: random.Random) -> list[str]:
    """Fisher-Yates with ``rng.random()`` only (``random.shuffle`` is not version-stable)."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        out[i], out[j] = out[j], out[i]
    return out


@functools.lru_cache(maxsize=4)
def _generate(spec: ZipfSpec) -> tuple[tuple[tuple[str, int], ...], tuple[str, ...]]:
    problems = spec.problems()
    if problems:
        raise CorpusSettingsError("; ".join(problems))
    rng = random.Random(spec.seed)
    words = vocabulary(spec.distinct_words, rng)
    counts = zipf_counts(spec.distinct_words, spec.total_words, spec.zipf_exponent)
    stream = _shuffled([word for word, count in zip(words, counts) for _ in range(count)], rng)
    lines = tuple(
        " ".join(stream[start:start + WORDS_PER_LINE])
        for start in range(0, len(stream), WORDS_PER_LINE)
    )
    return tuple(zip(words, counts)), lines


def word_counts(spec: ZipfSpec) -> dict[str, int]:
    """word -> count, most frequent first."""
    return dict(_generate(spec)[0])


def texts(spec: ZipfSpec) -> list[str]:
    """The same words as lines of running text (``WORDS_PER_LINE`` words per line, shuffled)."""
    return list(_generate(spec)[1])


def generate(spec: ZipfSpec, corpus_form: str) -> Corpus:
    """The corpus in an exercise's ``corpus_form``: ``texts`` or ``word-counts``."""
    if corpus_form == "texts":
        return texts(spec)
    if corpus_form == "word-counts":
        return word_counts(spec)
    raise CorpusSettingsError(f"unknown corpus form {corpus_form!r}; use texts or word-counts")
