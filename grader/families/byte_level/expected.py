"""Expected values of a byte-level exercise's cases, computed with :mod:`reference.byte_level`.

A byte-level case's corpus is its text, given as a list of pieces joined without separators
(long texts and special tokens read better that way in YAML); it trains until the vocabulary
holds the 256 bytes, the case's special tokens and ``num_merges`` merged tokens. Each item of
``encode`` is a text to encode with, and decode from, the reference's vocab and merges.
"""

from __future__ import annotations

from functools import lru_cache

from grader.families.byte_level.spec import ByteCase as Case
from reference.byte_level import BytePair, ByteLevelEncoder, Vocab, decode_byte_bpe, train_byte_bpe


def case_text(case: Case) -> str:
    corpus = case.corpus
    return "".join(corpus) if isinstance(corpus, list) else ""


def vocab_size(case: Case) -> int:
    return 256 + len(case.special_tokens) + case.num_merges


def reference_byte_bpe(case: Case) -> tuple[Vocab, list[BytePair]]:
    """The reference's ``(vocab, merges)`` for the case."""
    return trained(case_text(case), vocab_size(case), tuple(case.special_tokens))


@lru_cache(maxsize=64)
def trained(text: str, size: int, special_tokens: tuple[str, ...]) -> tuple[Vocab, list[BytePair]]:
    return train_byte_bpe(text, size, list(special_tokens))


@lru_cache(maxsize=64)
def encoder(text: str, size: int, special_tokens: tuple[str, ...]) -> ByteLevelEncoder:
    """The reference's encoder with what it trains on ``text`` (built once for every text a
    case encodes: ``encode_byte_bpe`` with that vocab and those merges)."""
    vocab, merges = trained(text, size, special_tokens)
    return ByteLevelEncoder(vocab, merges, list(special_tokens))


def expected_ids(case: Case, text: str) -> list[int]:
    return encoder(case_text(case), vocab_size(case), tuple(case.special_tokens)).encode(text)


def expected_text(case: Case, ids: list[int]) -> str:
    vocab, _ = reference_byte_bpe(case)
    return decode_byte_bpe(ids, vocab)
