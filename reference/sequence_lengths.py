"""Sequence lengths of a sentence under character-level, BPE and word-level tokenization.

The three counts are defined so BPE always lies between the extremes: character-level is BPE
with zero merges (each word's characters plus its end-of-word marker), BPE is the sum of the
word's token counts under the merges, and word-level is the number of whitespace words. Every
merge removes at least one symbol and no word ends below one token, so char >= bpe >= word.
"""

from __future__ import annotations

from reference.corpus import END_OF_WORD, check_end_of_word
from reference.encoding import encode
from reference.errors import BPEInputError


def sequence_lengths(sentence: str, merges: object, *, end_of_word: str = END_OF_WORD) -> dict[str, int]:
    """``{"char": ..., "bpe": ..., "word": ...}`` for ``sentence`` split on whitespace."""
    if not isinstance(sentence, str):
        raise BPEInputError(f"sentence must be a str, got {type(sentence).__name__}")
    check_end_of_word(end_of_word)
    words = sentence.split()
    return {
        "char": sum(len(encode(word, [], end_of_word=end_of_word)) for word in words),
        "bpe": sum(len(encode(word, merges, end_of_word=end_of_word)) for word in words),
        "word": len(words),
    }
