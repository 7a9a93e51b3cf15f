"""The vocabulary-size trade-off: tokens per document and embedding parameters per size.

A corpus is a list of documents (texts split on whitespace). Training sees the documents'
words with their counts, in the order they first occur. The base vocabulary is every
distinct character of the corpus plus the end-of-word marker; a vocabulary of ``size``
tokens learns ``size - base`` merges (none when ``size`` is not above the base). For each
size the row holds the size, the average number of tokens per document (every document
counts, an empty one as 0 tokens) and the embedding table's parameters, ``size * d_model``:
one row of ``d_model`` numbers per vocabulary entry, the input and output tables tied.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from reference.corpus import END_OF_WORD, check_end_of_word
from reference.encoding import encode
from reference.errors import BPEInputError
from reference.fast import train_bpe
from reference.tie_breaks import LEXICOGRAPHIC

Pair = tuple[str, str]
Row = dict[str, Any]
Trainer = Callable[[dict[str, int], int], list[Pair]]
Encoder = Callable[[str, list[Pair]], list[str]]


def check_documents(corpus: object) -> list[str]:
    """``corpus`` as a list of documents, or :class:`BPEInputError`."""
    if not isinstance(corpus, (list, tuple)) or not corpus:
        raise BPEInputError("corpus must be a non-empty list of documents (str)")
    for index, document in enumerate(corpus):
        if not isinstance(document, str):
            raise BPEInputError(f"document {index} is a {type(document).__name__}, not a str")
    return list(corpus)


def document_word_counts(documents: Sequence[str]) -> dict[str, int]:
    """Every word of the documents with its count, in the order words first occur."""
    counts: dict[str, int] = {}
    for document in documents:
        for word in document.split():
            counts[word] = counts.get(word, 0) + 1
    return counts


def base_vocabulary_size(documents: Sequence[str], end_of_word: str = END_OF_WORD) -> int:
    """Distinct characters of the documents' words, plus one for the marker when there is one."""
    characters = {character for document in documents for character in "".join(document.split())}
    return len(characters) + (1 if end_of_word else 0)


def merges_for_size(size: int, base: int) -> int:
    return max(0, size - base)


def average_tokens(documents: Sequence[str], tokens_of: Callable[[str], int]) -> float:
    """Tokens per document: every word's tokens summed, divided by the number of documents."""
    total = sum(tokens_of(word) for document in documents for word in document.split())
    return total / len(documents)


def tradeoff_rows(documents: Sequence[str], sizes: Sequence[int], d_model: int,
                  train: Trainer, tokenize: Encoder, end_of_word: str = END_OF_WORD) -> list[Row]:
    """The rows of :func:`vocab_tradeoff` with any trainer and encoder (a student's own)."""
    base = base_vocabulary_size(documents, end_of_word)
    counts = document_word_counts(documents)
    rows = []
    for size in sizes:
        merges = train(counts, merges_for_size(size, base))
        rows.append({"size": size,
                     "avg_tokens": average_tokens(documents, lambda word: len(tokenize(word, merges))),
                     "params": size * d_model})
    return rows


def vocab_tradeoff(corpus: object, sizes: Sequence[int], d_model: int, *,
                   tie_break: str = LEXICOGRAPHIC, end_of_word: str = END_OF_WORD) -> list[Row]:
    """``[{"size", "avg_tokens", "params"}, ...]``, one row per size in the order given."""
    documents = check_documents(corpus)
    check_end_of_word(end_of_word)
    if not isinstance(sizes, (list, tuple)) or not all(_count(size) for size in sizes):
        raise BPEInputError("sizes must be a list of non-negative int")
    if not _count(d_model) or d_model == 0:
        raise BPEInputError("d_model must be a positive int")

    def train(counts: dict[str, int], num_merges: int) -> list[Pair]:
        return train_bpe(counts, num_merges, tie_break=tie_break, end_of_word=end_of_word)

    def tokenize(word: str, merges: list[Pair]) -> list[str]:
        return encode(word, merges, end_of_word=end_of_word)

    return tradeoff_rows(documents, sizes, d_model, train, tokenize, end_of_word)


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
