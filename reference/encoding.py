"""Encoding a word with learned merges: lowest training rank first, until none applies.

An :class:`Encoder` ranks the merges once and caches each word's tokens; :func:`encode`
reuses one encoder per distinct merge list.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from reference.corpus import END_OF_WORD, check_end_of_word, segment
from reference.errors import BPEInputError
from reference.plain import merge_symbols
from reference.tie_breaks import Pair
from reference.validation import check_merges


@dataclass(frozen=True)
class EncodeStep:
    """One applied merge while encoding: its rank, the pair, and the tokens after it."""

    rank: int
    pair: Pair
    tokens: tuple[str, ...]


class Encoder:
    """Tokenizes words with a fixed merge list; results are cached per word."""

    def __init__(
        self, merges: object, *, end_of_word: str = END_OF_WORD, fuse_end_of_word: bool = False
    ) -> None:
        pairs = check_merges(merges)
        self.end_of_word = check_end_of_word(end_of_word)
        self.fuse_end_of_word = fuse_end_of_word
        self.ranks: dict[Pair, int] = {}
        for rank, pair in enumerate(pairs):
            self.ranks.setdefault(pair, rank)  # a repeated merge keeps its first (lowest) rank
        self._cache: dict[str, list[str]] = {}

    def steps(self, word: str) -> Iterator[EncodeStep]:
        """Yield every merge applied to ``word``, in the order it is applied."""
        if not isinstance(word, str):
            raise BPEInputError(f"word must be a str, got {type(word).__name__}")
        symbols = segment(word, self.end_of_word, fuse_end_of_word=self.fuse_end_of_word)
        ranks = self.ranks
        while len(symbols) > 1:
            found = [ranks[p] for p in zip(symbols, symbols[1:]) if p in ranks]
            if not found:
                return
            rank = min(found)
            pair = self._pair_at(symbols, rank)
            symbols = merge_symbols(symbols, pair)
            yield EncodeStep(rank, pair, symbols)

    def _pair_at(self, symbols: tuple[str, ...], rank: int) -> Pair:
        for pair in zip(symbols, symbols[1:]):
            if self.ranks.get(pair) == rank:
                return pair
        raise AssertionError("rank not present")  # unreachable: rank came from these symbols

    def encode(self, word: str) -> list[str]:
        cached = self._cache.get(word)
        if cached is None:
            tokens = segment(word, self.end_of_word, fuse_end_of_word=self.fuse_end_of_word)
            for step in self.steps(word):
                tokens = step.tokens
            cached = self._cache[word] = list(tokens)
        return list(cached)


@lru_cache(maxsize=32)
def _encoder(merges: tuple[Pair, ...], end_of_word: str, fuse_end_of_word: bool) -> Encoder:
    return Encoder(merges, end_of_word=end_of_word, fuse_end_of_word=fuse_end_of_word)


def encode(
    word: str, merges: object, *, end_of_word: str = END_OF_WORD, fuse_end_of_word: bool = False
) -> list[str]:
    """Tokens of ``word``: its characters and the marker, merged by rank, lowest first.

    Characters never seen in training stay single-character tokens.
    """
    if not isinstance(word, str):
        raise BPEInputError(f"word must be a str, got {type(word).__name__}")
    pairs = tuple(check_merges(merges))
    return _encoder(pairs, check_end_of_word(end_of_word), bool(fuse_end_of_word)).encode(word)
