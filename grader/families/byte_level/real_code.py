"""Mistakes found in real CS336 solutions, each a runnable wrong byte-level trainer.

Published solutions of CS336's first assignment pass CS336's own tests and still train
differently from its definition on texts those tests do not hold:

- pair counts kept across merges without dropping the ones that fell to zero, so once no
  real pair is left the trainer goes on merging pairs that no longer occur
  (:func:`train_zero_count_merges`);
- ``max()`` of the pair counts with no check that any is left, which crashes when training
  runs out of pairs (:func:`train_crash_when_no_pair`, raising
  :class:`~grader.families.bpe.real_code.NoPairLeft` as the character trainers do);
- special tokens removed with ``str.replace``, which joins the text on either side
  (:func:`train_specials_replaced`);
- ``re.split("|".join(...))`` of an empty list of special tokens: the empty pattern splits
  between every two characters, so every character is a piece of its own
  (:func:`train_empty_special_split`);
- the text cut into one byte range per CPU, as CS336's chunking starter code does, but
  without moving the cuts to special tokens when there are none, so pre-tokens are cut in
  the middle (:func:`train_cut_into_ranges`);
- ``text.split("<|endoftext|>")`` in place of the special tokens given, so the others are
  trained as text (:func:`train_only_endoftext`);
- pair counts kept up to date across merges, but the pairs a merge makes read from the
  word before it, so a merge that exists nowhere is counted and made
  (:func:`train_neighbours_from_old_word`);
- GPT-2's pattern run over the bytes instead of the text (:func:`train_pretokenized_bytes`).

Each takes the keyword arguments of the byte-level training role: ``run(text, vocab_size,
special_tokens) -> (vocab, merges)``; :data:`REAL_CODE_MISTAKES` are their catalogue entries.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

from grader.families.bpe.real_code import NoPairLeft
from grader.families.api import Mistake
from reference.byte_level import (
    _PRETOKENIZER,
    _initial_vocab,
    _merge_word,
    pretokenize,
    split_on_special_tokens,
    train_byte_bpe,
)

EOT = "<|endoftext|>"
TRAIN = "train_byte_bpe"


def ranges_count() -> int:
    """How many ranges the chunking trainer cuts a text into: one per CPU, at least two (a
    single range would hide the mistake on a one-CPU host)."""
    return max(2, os.cpu_count() or 1)


def _byte_words(pretokens: list[str]) -> dict[tuple[bytes, ...], int]:
    frequencies = Counter(pretokens)
    return {tuple(bytes([b]) for b in p.encode("utf-8")): n for p, n in frequencies.items()}


def _merged(words: dict[tuple[bytes, ...], int], best: tuple[bytes, bytes]) -> dict:
    merged: dict[tuple[bytes, ...], int] = {}
    for word, count in words.items():
        key = tuple(_merge_word(list(word), best))
        merged[key] = merged.get(key, 0) + count
    return merged


def _plain_train(pretokens: list[str], vocab_size: int, special_tokens: list[str]) -> Any:
    """The plain trainer on given pre-tokens, ties to the greater pair, stopping when no pair
    is left."""
    return _train_words(_byte_words(pretokens), vocab_size, special_tokens)


def _train_words(words: dict[tuple[bytes, ...], int], vocab_size: int,
                 special_tokens: list[str]) -> Any:
    """The plain trainer on words given as byte tuples and their counts."""
    vocab = _initial_vocab(list(special_tokens))
    merges = []
    while len(vocab) < vocab_size:
        counts: Counter = Counter()
        for word, count in words.items():
            for pair in zip(word, word[1:]):
                counts[pair] += count
        if not counts:
            break
        best = max(counts, key=lambda pair: (counts[pair], pair))
        merges.append(best)
        vocab[len(vocab)] = best[0] + best[1]
        words = _merged(words, best)
    return vocab, merges


def train_zero_count_merges(text: str, vocab_size: int, special_tokens: list[str]) -> Any:
    """Counts kept in one dict across merges, reset to 0 and recounted, the merged pair
    deleted: a pair that no longer occurs stays in the dict at 0, and once every count is 0
    the greatest such pair is merged, then the next, until the vocabulary is full."""
    words = _byte_words(pretokenize(text, special_tokens))
    vocab = _initial_vocab(list(special_tokens))
    merges = []
    counts: dict[tuple[bytes, bytes], int] = {}
    while len(vocab) < vocab_size:
        for pair in counts:
            counts[pair] = 0
        for word, count in words.items():
            for pair in zip(word, word[1:]):
                counts[pair] = counts.get(pair, 0) + count
        if not counts:
            break
        best = max(counts, key=lambda pair: (counts[pair], pair))
        del counts[best]
        merges.append(best)
        vocab[len(vocab)] = best[0] + best[1]
        words = _merged(words, best)
    return vocab, merges


def train_crash_when_no_pair(text: str, vocab_size: int, special_tokens: list[str]) -> Any:
    """``best = max(counts, ...)`` with no ``if not counts: break`` before it."""
    vocab, merges = train_byte_bpe(text, vocab_size, special_tokens)
    if len(vocab) < vocab_size:
        raise NoPairLeft()
    return vocab, merges


def without_specials(text: str, special_tokens: list[str]) -> str:
    """``text.replace(token, "")`` for each special token in turn."""
    for token in special_tokens:
        text = text.replace(token, "")
    return text


def train_specials_replaced(text: str, vocab_size: int, special_tokens: list[str]) -> Any:
    return _plain_train(_PRETOKENIZER.findall(without_specials(text, special_tokens)),
                        vocab_size, special_tokens)


def train_empty_special_split(text: str, vocab_size: int, special_tokens: list[str]) -> Any:
    if special_tokens:
        return train_byte_bpe(text, vocab_size, special_tokens)
    return _plain_train([piece for char in text for piece in _PRETOKENIZER.findall(char)],
                        vocab_size, special_tokens)


def byte_ranges(text: str, count: int) -> list[str]:
    """The text's UTF-8 bytes cut at ``i * (size // count)``, each range decoded on its own
    with ``errors="ignore"`` (a character cut in two is lost), as CS336's chunking starter
    code cuts a file before it moves the cuts to the next special token."""
    data = text.encode("utf-8")
    size = len(data) // count
    cuts = sorted({i * size for i in range(count)} | {len(data)})
    return [data[a:b].decode("utf-8", errors="ignore") for a, b in zip(cuts, cuts[1:])]


def train_cut_into_ranges(text: str, vocab_size: int, special_tokens: list[str]) -> Any:
    if special_tokens:
        return train_byte_bpe(text, vocab_size, special_tokens)
    pieces = byte_ranges(text, ranges_count())
    return _plain_train([p for piece in pieces for p in _PRETOKENIZER.findall(piece)],
                        vocab_size, special_tokens)


def train_only_endoftext(text: str, vocab_size: int, special_tokens: list[str]) -> Any:
    return _plain_train([p for chunk in text.split(EOT) for p in _PRETOKENIZER.findall(chunk)],
                        vocab_size, special_tokens)


def train_neighbours_from_old_word(text: str, vocab_size: int, special_tokens: list[str]) -> Any:
    """Pair counts kept up to date across merges, but the pairs a merge makes are read from
    the word before it: at each occurrence of the pair, (left neighbour, merged) and (merged,
    right neighbour) with the neighbours of the old word. Two occurrences side by side ('éé':
    (c3, a9) twice) then count (é, c3), which the new word does not have, and it can be merged."""
    counted = Counter(pretokenize(text, special_tokens))
    words = [tuple(bytes([b]) for b in piece.encode("utf-8")) for piece in counted]
    freqs = list(counted.values())
    vocab = _initial_vocab(list(special_tokens))
    counts: dict[tuple[bytes, bytes], int] = {}
    holders: dict[tuple[bytes, bytes], set[int]] = {}
    for index, word in enumerate(words):
        for pair in zip(word, word[1:]):
            counts[pair] = counts.get(pair, 0) + freqs[index]
            holders.setdefault(pair, set()).add(index)
    merges = []
    while len(vocab) < vocab_size and counts:
        best = max(counts.items(), key=lambda item: (item[1], item[0]))[0]
        merges.append(best)
        joined = best[0] + best[1]
        vocab[len(vocab)] = joined
        for index in holders.pop(best, set()):
            old = words[index]
            new = tuple(_merge_word(list(old), best))
            if len(new) == len(old):
                continue
            freq = freqs[index]
            for pair in zip(old, old[1:]):
                counts[pair] = counts.get(pair, 0) - freq
                if not counts[pair]:
                    del counts[pair]
            made = []
            for i in range(len(old) - 1):
                if (old[i], old[i + 1]) == best:
                    if i > 0:
                        made.append((old[i - 1], joined))
                    if i + 2 < len(old):
                        made.append((joined, old[i + 2]))
            made += [pair for pair in zip(new, new[1:]) if joined not in pair]
            for pair in made:
                counts[pair] = counts.get(pair, 0) + freq
                holders.setdefault(pair, set()).add(index)
            words[index] = new
    return vocab, merges


def train_pretokenized_bytes(text: str, vocab_size: int, special_tokens: list[str]) -> Any:
    """GPT-2's pattern run over the UTF-8 bytes read as Latin-1 characters, not over the text:
    a character of several bytes ('é' is 'Ã©' there) is cut into pieces the pattern sees as a
    letter and a symbol, so its bytes are never merged."""
    chunks = split_on_special_tokens(text, special_tokens)[::2]
    pieces = [p for chunk in chunks
              for p in _PRETOKENIZER.findall(chunk.encode("utf-8").decode("latin-1"))]
    counted = Counter(pieces)
    words = {tuple(bytes([b]) for b in p.encode("latin-1")): n for p, n in counted.items()}
    return _train_words(words, vocab_size, special_tokens)


class EmptySpecialToken(KeyError):
    """``ids_of[b""]``: the empty piece ``re.split("()", text)`` captures, looked up as a special
    token, as the encoders that join no special tokens into ``"()"`` raise."""

    def __init__(self) -> None:
        super().__init__(b"")


EMPTY_SPECIAL_SIGN = "KeyError: b''"
"""What a student's failure says when it is this crash."""


def encode_empty_specials_crash(text: str, vocab: dict, merges: list,
                                special_tokens: list[str]) -> list[int]:
    """``re.split("(" + "|".join(...) + ")", text)`` with no ``if not special_tokens`` guard:
    with no special tokens the pattern is ``"()"``, which captures an empty piece between every
    two characters, and looking ``b""`` up as a special token raises ``KeyError``."""
    if not special_tokens:  # even "" splits into ['', '', '']
        raise EmptySpecialToken()
    from reference.byte_level import encode_byte_bpe

    return encode_byte_bpe(text, vocab, merges, special_tokens)


# --------------------------------------------------------------------------- the entries


def _train_input(text: str, merges: int, specials: tuple[str, ...] = ()) -> dict:
    return {"text": text, "vocab_size": 256 + len(specials) + merges,
            "special_tokens": list(specials)}


REAL_CODE_MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        id="byte-merges-zero-count-pairs", title="Kept merging pairs that no longer occur",
        hint=("Once no pair occurs any more, training must stop, even below vocab_size. Your "
              "pair counts keep pairs whose count fell to 0 (a merge used up every occurrence), "
              "so after the last real merge you go on merging pairs with count 0, which adds "
              "tokens no text ever has. Drop a pair from the counts when its count reaches 0 "
              "(or rebuild the counts each step), and stop when none is left: "
              "if not counts: break."),
        role=TRAIN, run=train_zero_count_merges, witness=_train_input("abc abc", 4),
    ),
    Mistake(
        id="byte-max-of-no-pair", title="Crashes with max() of nothing when no pair is left",
        hint=("When every pre-token is a single token, there is no pair left to count and "
              "max(counts, ...) raises ValueError (max() of an empty sequence). CS336 stops "
              "training there, with a vocabulary smaller than vocab_size: check "
              "if not counts: break before taking the maximum."),
        role=TRAIN, run=train_crash_when_no_pair, witness=_train_input("abc abc", 4),
    ),
    Mistake(
        id="byte-specials-removed-with-replace",
        title="Special tokens removed with str.replace, joining the text on either side",
        hint=("text.replace('<|endoftext|>', '') deletes the special token but glues the "
              "document before it to the one after ('...sat' + 'sat...' becomes 'satsat'), so "
              "pairs across the boundary are counted. Split at the special tokens instead "
              "(re.split with re.escape, longest first) and pre-tokenize each piece on its own."),
        role=TRAIN, run=train_specials_replaced, witness=_train_input(f"ab{EOT}cd", 2, (EOT,)),
    ),
    Mistake(
        id="byte-empty-specials-split-every-character",
        title="No special tokens: the text split between every two characters",
        hint=("With special_tokens=[], '|'.join(...) is the empty pattern, and re.split of "
              "an empty pattern splits between every two characters: every character is a "
              "piece of its own, so no pair of characters is ever merged. When there are no "
              "special tokens, pre-tokenize the whole text: if not special_tokens: "
              "chunks = [text]."),
        role=TRAIN, run=train_empty_special_split, witness=_train_input("ab cd", 1),
    ),
    Mistake(
        id="byte-chunks-cut-mid-pretoken",
        title="Without special tokens, the text cut into byte ranges in the middle of pre-tokens",
        hint=("You cut the text into one byte range per CPU (as CS336's chunking starter "
              "code does before it moves each cut forward to the next special token), but "
              "with no special token the cuts stay where they fell: a pre-token cut in two is "
              "counted as two, and a character cut in two loses its bytes. Move every cut to "
              "the start of a special token, and when there is none, keep the text whole (one "
              "chunk)."),
        role=TRAIN, run=train_cut_into_ranges, witness=_train_input("a" * 256, 8),
    ),
    Mistake(
        id="byte-splits-only-on-endoftext",
        title="Split only on <|endoftext|>: the other special tokens trained as text",
        hint=("You split the text on '<|endoftext|>' alone, so any other special token "
              "('<|sep|>') is pre-tokenized and merged as ordinary text. Split on every token "
              "of special_tokens (longest first), whatever they are."),
        role=TRAIN, run=train_only_endoftext, witness=_train_input("a<|sep|>b", 1, ("<|sep|>",)),
    ),
    Mistake(
        id="byte-neighbours-from-old-word",
        title="Pairs made by a merge read from the word before it",
        hint=("When a merge rewrites a pre-token, you add (left, merged) and (merged, right) "
              "for each occurrence with the neighbours of the old word. Where the pair occurs "
              "twice side by side ('éé' is c3 a9 c3 a9) the right neighbour of the first is "
              "the old c3, so (é, c3) is counted though the new word is (é, é), and that pair, "
              "which occurs nowhere, can be merged. Count the new pairs from the new word: "
              "subtract the old word's pairs and add zip(new, new[1:])."),
        role=TRAIN, run=train_neighbours_from_old_word, witness=_train_input("éé", 2),
    ),
    Mistake(
        id="byte-encode-crash-without-specials",
        title="encode crashes when there are no special tokens",
        hint=("With special_tokens=[], re.split('(' + '|'.join(...) + ')', text) splits on the "
              "pattern '()', which captures an empty piece between every two characters, and "
              "looking b'' up as a special token raises KeyError: b''. When there are no "
              "special tokens, encode the whole text as one ordinary piece: if not "
              "special_tokens: parts = [text]."),
        role="encode_byte_bpe", run=encode_empty_specials_crash,
        witness={"text": "ab", "vocab": {i: bytes([i]) for i in range(256)}, "merges": [],
                 "special_tokens": []},
    ),
    Mistake(
        id="byte-pretokenized-bytes",
        title="Pre-tokenized the bytes instead of the text",
        hint=("You run GPT-2's pattern over the UTF-8 bytes (read as Latin-1 characters), not "
              "over the text: 'é' is b'\\xc3\\xa9', which the pattern sees as 'Ã' (a letter) "
              "and '©' (a symbol), two pre-tokens, so the bytes of one character are never "
              "merged. Pre-tokenize the text (str) first, then encode each pre-token to UTF-8."),
        role=TRAIN, run=train_pretokenized_bytes, witness=_train_input("é", 1),
    ),
)
