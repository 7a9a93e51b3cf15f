"""Known byte-level BPE mistakes (CS336 conventions), each one a runnable wrong implementation.

The conventions are :mod:`reference.byte_level`'s: GPT-2's pre-tokenizer between special
tokens, special tokens whole and never merged, ties to the greater pair of bytes, tokens as
``bytes``, decoding the joined bytes once: CS336 spring 2025 (handout v1.0.4 and later). The
mistakes: pre-tokenizing on whitespace only, ties to the smaller pair, tokens as ``str``,
special tokens encoded as ordinary text, and decoding each token on its own (which breaks a
character whose bytes are split over two tokens); the six found in real CS336 solutions
(:mod:`.real_code`: merging pairs that no longer occur, ``max()`` of no pair, special tokens
removed with ``str.replace``, an empty special-token list splitting every character, the text
cut into byte ranges mid-pre-token, splitting on ``<|endoftext|>`` alone); and one convention
difference, the 2024 handout's rule that special tokens do not otherwise affect training (they
are not split out, so their text is merged like any other).

Run signatures (keyword arguments): ``train_byte_bpe``: ``run(text, vocab_size,
special_tokens) -> (vocab, merges)``; ``encode_byte_bpe``: ``run(text, vocab, merges,
special_tokens) -> ids``; ``decode_byte_bpe``: ``run(ids, vocab) -> str``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from grader.families.bpe.real_code import NoPairLeft, crash_looks_like_no_pair_left
from grader.families.byte_level.do_nothing import BYTE_LEVEL, trivial_answer
from grader.families.byte_level.signals import encode_signals
from grader.families.byte_level.real_code import (
    EMPTY_SPECIAL_SIGN,
    REAL_CODE_MISTAKES,
    EmptySpecialToken,
)
from grader.families.api import Mistake, MistakeBook, NOT_COMPARABLE
from reference.byte_level import (
    _PRETOKENIZER,
    _initial_vocab,
    _merge_word,
    _pairs,
    decode_byte_bpe,
    encode_byte_bpe,
    pretokenize,
    train_byte_bpe,
)

EOT = "<|endoftext|>"


def _train(pretokens: list[str], vocab_size: int, special_tokens: list[str],
           pick: Callable[[Counter], Any]) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Plain byte-level training on given pre-tokens, choosing each merge with ``pick``."""
    frequencies = Counter(pretokens)
    words = {tuple(bytes([b]) for b in p.encode("utf-8")): n for p, n in frequencies.items()}
    vocab = _initial_vocab(list(special_tokens))
    merges = []
    while len(vocab) < vocab_size:
        counts: Counter = Counter()
        for word, count in words.items():
            for pair in _pairs(list(word)):
                counts[pair] += count
        if not counts:
            break
        best = pick(counts)
        merges.append(best)
        vocab[len(vocab)] = best[0] + best[1]
        merged: dict[tuple, int] = {}
        for word, count in words.items():
            key = tuple(_merge_word(list(word), best))
            merged[key] = merged.get(key, 0) + count
        words = merged
    return vocab, merges


def _greatest(counts: Counter) -> Any:
    return max(counts, key=lambda pair: (counts[pair], pair))


def _smallest(counts: Counter) -> Any:
    return min(counts, key=lambda pair: (-counts[pair], pair))


def train_whitespace_split(text: str, vocab_size: int, special_tokens: list[str]) -> Any:
    chunks = _chunks(text, special_tokens)
    return _train([w for chunk in chunks for w in chunk.split()], vocab_size, special_tokens, _greatest)


def train_across_specials(text: str, vocab_size: int, special_tokens: list[str]) -> Any:
    return _train(_PRETOKENIZER.findall(text), vocab_size, special_tokens, _greatest)


def train_ties_smaller(text: str, vocab_size: int, special_tokens: list[str]) -> Any:
    return _train(pretokenize(text, special_tokens), vocab_size, special_tokens, _smallest)


def train_str_tokens(text: str, vocab_size: int, special_tokens: list[str]) -> Any:
    vocab, merges = train_byte_bpe(text, vocab_size, special_tokens)
    spell = lambda token: token.decode("latin-1")  # noqa: E731
    return {i: spell(t) for i, t in vocab.items()}, [(spell(a), spell(b)) for a, b in merges]


def _chunks(text: str, special_tokens: list[str]) -> list[str]:
    from reference.byte_level import split_on_special_tokens

    return split_on_special_tokens(text, special_tokens)[::2]


def encode_specials_as_text(text: str, vocab: dict, merges: list, special_tokens: list[str]) -> list[int]:
    return encode_byte_bpe(text, vocab, merges, [])


def decode_each_token(ids: list[int], vocab: dict) -> str:
    return "".join(vocab[i].decode("utf-8", errors="replace") for i in ids)


# --------------------------------------------------------------------------- the entries

WITNESS_TEXT = f"low low lower{EOT}newest newest{EOT} widest"


def _train_input(text: str = WITNESS_TEXT, merges: int = 6, specials: tuple = (EOT,)) -> dict:
    return {"text": text, "vocab_size": 256 + len(specials) + merges, "special_tokens": list(specials)}


def _encode_input(text: str) -> dict:
    vocab, merges = train_byte_bpe(WITNESS_TEXT, 263, [EOT])
    return {"text": text, "vocab": vocab, "merges": merges, "special_tokens": [EOT]}


def _decode_input(text: str) -> dict:
    vocab, merges = train_byte_bpe(WITNESS_TEXT, 263, [EOT])
    return {"ids": encode_byte_bpe(text, vocab, merges, [EOT]), "vocab": vocab}


BYTE_MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        id="byte-whitespace-pretokenize", title="Pre-tokenized on whitespace only",
        hint=("You split the text on whitespace, so spaces vanish and punctuation sticks to "
              "words. Pre-tokenize with GPT-2's pattern (regex.findall(PAT, chunk)): a "
              "pre-token keeps its leading space (' world'), and letters, digits and "
              "punctuation are separate pre-tokens."),
        role="train_byte_bpe", run=train_whitespace_split,
        witness=_train_input("to be, or not to be", 3, ()),
    ),
    Mistake(
        id="byte-2024-specials-not-split",
        title="CS336's 2024 rule: special tokens not split out before training",
        hint=("This is not a bug: it is the rule of CS336's 2024 handout, where special tokens "
              "'do not otherwise affect BPE training', so the text is pre-tokenized whole and "
              "the special token's text ('<|', 'endoftext', '|>') is counted and merged like "
              "any other. This exercise follows CS336 spring 2025 (handout v1.0.4 and later): "
              "cut the text at the special tokens first (re.split with re.escape, longest "
              "first) and pre-tokenize only the pieces between them, so nothing is merged "
              "across or into a special token."),
        role="train_byte_bpe", run=train_across_specials,
        witness=_train_input(f"a{EOT}b{EOT}c{EOT}", 3),
    ),
    Mistake(
        id="byte-ties-smaller", title="Ties broken towards the smaller pair",
        hint=("Among pairs with the highest count, CS336 merges the lexicographically greater "
              "pair of bytes: max(counts, key=lambda p: (counts[p], p)). You took the smaller."),
        role="train_byte_bpe", run=train_ties_smaller,
        witness=_train_input("ab cd", 1, ()),
    ),
    Mistake(
        id="byte-str-tokens", title="Tokens as str instead of bytes",
        hint=("Byte-level tokens are bytes: the vocab maps ids to bytes (b' t') and merges are "
              "(bytes, bytes) pairs. Work on text.encode('utf-8') and keep bytes throughout."),
        role="train_byte_bpe", run=train_str_tokens,
        witness=_train_input("ab ab", 1, ()),
    ),
    Mistake(
        id="byte-encode-specials-as-text", title="Special tokens encoded as ordinary text",
        hint=("A special token in the text must become its single id from the vocab. Cut the "
              "text at the special tokens (longest first) before pre-tokenizing, and look each "
              "one up by its UTF-8 bytes."),
        role="encode_byte_bpe", run=encode_specials_as_text,
        witness=_encode_input(f"low{EOT}new"),
    ),
    Mistake(
        id="byte-decode-each-token", title="Each token decoded on its own",
        hint=("A character's UTF-8 bytes can be split over two tokens ('é' is b'\\xc3' + "
              "b'\\xa9'), and neither half is text on its own. Join every token's bytes first, "
              "then decode once: b''.join(vocab[i] for i in ids).decode('utf-8', "
              "errors='replace')."),
        role="decode_byte_bpe", run=decode_each_token,
        witness=_decode_input("café"),
    ),
) + REAL_CODE_MISTAKES

REFERENCES: dict[str, Callable[..., Any]] = {
    "train_byte_bpe": train_byte_bpe,
    "encode_byte_bpe": encode_byte_bpe,
    "decode_byte_bpe": decode_byte_bpe,
}


STR_TOKENS = ("tokens as str",)
"""The canonical form of any training answer whose tokens are ``str``: what matters for naming
is that shape, not which strings (a student spells bytes as text in more than one way)."""


def canonical(role: str, value: Any) -> Any:
    """A comparable form of an answer of ``role``, or ``NOT_COMPARABLE`` when it is malformed."""
    try:
        if role == "train_byte_bpe":
            vocab, merges = value  # which id a token gets is free: compare the tokens
            tokens = list(dict(vocab).values()) + [part for pair in merges for part in pair]
            if any(type(token) is str for token in tokens):
                return STR_TOKENS
            return (sorted(dict(vocab).values()), [tuple(pair) for pair in merges])
        if role == "encode_byte_bpe":
            return [int(i) for i in value]
        return value if isinstance(value, str) else NOT_COMPARABLE
    except (TypeError, ValueError, AttributeError):
        return NOT_COMPARABLE


def trivial(exercise: Any, role: str, inputs: Mapping[str, Any], value: Any) -> bool:
    """Whether a student's ``value`` on ``inputs`` is what do-nothing code also returns."""
    if canonical(role, value) in (NOT_COMPARABLE, STR_TOKENS):
        return True
    arguments = tuple(inputs[name] for name in BYTE_LEVEL.parameters[role].split(", "))
    try:
        return trivial_answer(exercise, role, arguments, value)
    except (TypeError, ValueError, AttributeError, KeyError):
        return True


def telling_crash(role: str, failure: str) -> bool:
    """Whether a crash is one a mistake reproduces: a training crash ``max()`` of no pair
    (:func:`.real_code.train_crash_when_no_pair`), an encoding crash ``KeyError: b''``
    (:func:`.real_code.encode_empty_specials_crash`)."""
    if role == "encode_byte_bpe":
        return EMPTY_SPECIAL_SIGN in failure
    return role == "train_byte_bpe" and crash_looks_like_no_pair_left(failure)


BOOK = MistakeBook(entries=BYTE_MISTAKES, reference=REFERENCES, canonical=canonical,
                   trivial=trivial, crash=(NoPairLeft, EmptySpecialToken),
                   telling_crash=telling_crash, signals=encode_signals)
"""The runs take no convention options: CS336's conventions are fixed."""
