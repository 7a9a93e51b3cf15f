"""Byte-level BPE (CS336's conventions) on the fast trainer of :mod:`reference.fast`.

The same merges as :func:`reference.byte_level.train_byte_bpe`, learned the way the character
reference learns them: each byte is spelled as the Latin-1 character of the same value, so a
pre-token's bytes become a string whose characters sort exactly as the bytes do, and the
reverse-lexicographic rule of the fast trainer picks the greatest pair of bytes among equals,
as ``max(counts, key=lambda p: (counts[p], p))`` does. Pre-tokens are counted chunk by chunk
between special tokens, so memory grows with the distinct pre-tokens, not with the text.

:func:`reference.byte_level.train_byte_bpe` stays the yardstick of the byte-level exercise's
efficiency milestone (CS336's own cost model); this trainer is for large corpora.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import regex

from reference.byte_level import (
    GPT2_PRETOKENIZE_PATTERN,
    BytePair,
    Vocab,
    _check_special_tokens,
    _check_text,
    _check_vocab_size,
    _initial_vocab,
    split_on_special_tokens,
)
from reference.fast import IncrementalTrainer
from reference.tie_breaks import REVERSE_LEXICOGRAPHIC

_PATTERN = regex.compile(GPT2_PRETOKENIZE_PATTERN)


def pretoken_counts(text: str, special_tokens: Sequence[str] = ()) -> Counter[str]:
    """How often each pre-token occurs, counted one special-token chunk at a time."""
    counts: Counter[str] = Counter()
    for chunk in split_on_special_tokens(text, special_tokens)[::2]:  # specials at odd places
        counts.update(match.group() for match in _PATTERN.finditer(chunk))
    return counts


def train_byte_bpe_fast(
    text: str, vocab_size: int, special_tokens: Sequence[str] = ()
) -> tuple[Vocab, list[BytePair]]:
    """The vocabulary and merges of :func:`reference.byte_level.train_byte_bpe`, faster."""
    text = _check_text(text)
    specials = _check_special_tokens(special_tokens)
    vocab_size = _check_vocab_size(vocab_size, specials)
    vocab = _initial_vocab(specials)
    wanted = vocab_size - len(vocab)
    spelled = {pretoken.encode("utf-8").decode("latin-1"): count
               for pretoken, count in pretoken_counts(text, specials).items()}
    trainer = IncrementalTrainer(spelled, tie_break=REVERSE_LEXICOGRAPHIC, end_of_word="")
    merges: list[BytePair] = []
    for _ in range(wanted):
        chosen = trainer.best()
        if chosen is None:
            break
        left, right = trainer.merge(chosen[0])
        pair = (left.encode("latin-1"), right.encode("latin-1"))
        merges.append(pair)
        vocab[len(vocab)] = pair[0] + pair[1]
    return vocab, merges
