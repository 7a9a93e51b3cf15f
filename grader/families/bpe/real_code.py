"""Mistakes found in published BPE code: the paper's listing, its descendants, course notebooks.

Each is a catalogue entry like those of :mod:`grader.families.bpe.catalogue`, with its own wrong
implementation here: trainers that crash once no pair is left (``max()`` of an empty dict),
trainers that stop when the best pair occurs only once, encoders that cut out the longest
known token anywhere in the word and recurse on both sides, and encoders that lowercase or
strip the word before encoding it, encoders that read only its word characters (punctuation
lost anywhere), and encoders that take the marker off the last token
(subword-nmt's output).

A crash is an outcome too: :class:`NoPairLeft` is what a crashing entry raises, so naming can
tell "this mistake crashes here" from "this mistake does not apply here".
"""

from __future__ import annotations

from grader.families.bpe.witnesses import LESSON_WORD_COUNTS, encode_input, train_input
from grader.families.api import Mistake
from reference.corpus import END_OF_WORD, segment
from reference.encoding import encode
from reference.plain import train_bpe
from reference.tie_breaks import LEXICOGRAPHIC

PUNCTUATION = ".,;:!?\"'()"
"""What ``word.strip(...)`` removes in the stripping encoders."""


class NoPairLeft(ValueError):
    """``max()`` of an empty pair count, as the trainers that never check for it raise."""

    def __init__(self) -> None:
        super().__init__("max() arg is an empty sequence")


CRASH_SIGNS = ("empty sequence", "ValueError", "IndexError", "required positional argument",
               "NoneType")
"""Words in a student's failure that say it is this crash: ``max``/``min`` of nothing,
``most_common(1)[0]`` of nothing, and the HF course's form: the best pair left as ``""`` or
``None`` when nothing is counted, then ``merge_pair(*best_pair, splits)`` (a ``TypeError``:
missing required positional arguments) or ``best[0]`` of ``None``. A ``KeyError`` is not
among them: it says a lookup failed, which is many other bugs."""


def crash_looks_like_no_pair_left(failure: str) -> bool:
    return any(sign in failure for sign in CRASH_SIGNS)


# --- training ----------------------------------------------------------------------------


def train_crash_when_no_pair(corpus, num_merges, *, tie_break=LEXICOGRAPHIC, end_of_word=END_OF_WORD):
    """``best = max(pairs, key=pairs.get)`` with no ``if not pairs: break`` before it."""
    merges = train_bpe(corpus, num_merges, tie_break=tie_break, end_of_word=end_of_word)
    if len(merges) < num_merges:
        raise NoPairLeft()
    return merges


def train_min_count_two(corpus, num_merges, *, tie_break=LEXICOGRAPHIC, end_of_word=END_OF_WORD):
    """``if pairs[best] < 2: break``: subword-nmt's default minimum frequency."""
    return train_bpe(corpus, num_merges, tie_break=tie_break, end_of_word=end_of_word, min_count=2)


# --- encoding ----------------------------------------------------------------------------


def encode_longest_anywhere(word, merges, *, end_of_word=END_OF_WORD):
    """The longest known token anywhere in the word (leftmost of equals), then each side alike."""
    vocabulary = {first + second for first, second in merges}
    return _split_longest(list(segment(word, end_of_word)), vocabulary)


def _split_longest(symbols: list[str], vocabulary: set[str]) -> list[str]:
    for length in range(len(symbols), 1, -1):
        for start in range(len(symbols) - length + 1):
            if "".join(symbols[start:start + length]) in vocabulary:
                return (
                    _split_longest(symbols[:start], vocabulary)
                    + ["".join(symbols[start:start + length])]
                    + _split_longest(symbols[start + length:], vocabulary)
                )
    return symbols


def encode_lowercased(word, merges, *, end_of_word=END_OF_WORD):
    return encode(word.lower(), merges, end_of_word=end_of_word)


def encode_stripped(word, merges, *, end_of_word=END_OF_WORD):
    return encode(word.strip(PUNCTUATION), merges, end_of_word=end_of_word)


def encode_non_word_dropped(word, merges, *, end_of_word=END_OF_WORD):
    """Symbols read from the word characters only (letters, digits, ``_``; as
    ``re.findall(r"\\w", word)`` mostly reads them): punctuation anywhere is lost."""
    return encode(word_characters(word), merges, end_of_word=end_of_word)


def word_characters(word: str) -> str:
    return "".join(character for character in word if character.isalnum() or character == "_")


def encode_marker_stripped(word, merges, *, end_of_word=END_OF_WORD):
    """subword-nmt's output: the marker taken off the last token (a lone one dropped)."""
    tokens = encode(word, merges, end_of_word=end_of_word)
    if not end_of_word or not tokens or not tokens[-1].endswith(end_of_word):
        return tokens
    if tokens[-1] == end_of_word:
        return tokens[:-1]
    return tokens[:-1] + [tokens[-1][: -len(end_of_word)]]


def real_code_mistakes():
    """The train entries and the encode entries (the catalogue lists them with its own)."""
    train = (
        Mistake(
            id="no-pair-crash",
            title="Crash when no pair is left to merge",
            hint=(
                "Once every word is a single symbol the pair counts are empty, and "
                "`max(pairs, key=pairs.get)` raises `ValueError: max() arg is an empty "
                "sequence` (or a best pair left at its starting value, `\"\"` or `None`, "
                "fails when it is used). Check `if not pairs: break` before picking, so "
                "training just stops early when asked for more merges than the corpus has."
            ),
            role="train",
            run=train_crash_when_no_pair,
            witness=train_input(["ab"], 3),
        ),
        Mistake(
            id="min-count-two",
            title="Training stops when the best pair occurs only once",
            hint=(
                "Your loop stops as soon as the most frequent pair has a count below 2 "
                "(`if pairs[best] < 2: break`, subword-nmt's default minimum frequency). This "
                "exercise keeps merging pairs that occur once, until num_merges merges are made "
                "or no pair is left."
            ),
            role="train",
            run=train_min_count_two,
            witness=train_input(["low low lower"], 5),
        ),
    )
    encode_entries = (
        Mistake(
            id="encode-longest-anywhere",
            title="Encoded by cutting out the longest known token anywhere in the word",
            hint=(
                "You find the longest learned token anywhere in the word, cut it out and do the "
                "same on each side. BPE does not look for long tokens: it replays the merges, "
                "the one learned earliest first, and a long token only appears if the merges "
                "that build it fire in that order."
            ),
            role="encode",
            run=encode_longest_anywhere,
            witness=encode_input("aac", train_bpe({"aaa": 1, "acc": 3, "baac": 2}, 4)),
        ),
        Mistake(
            id="encode-lowercased",
            title="Word lowercased before encoding",
            hint=(
                "You encode `word.lower()`, so `Low` comes out as the tokens of `low`. "
                "Tokenization is case-sensitive: `L` and `l` are different characters, and a "
                "character never seen in training simply stays a token of its own."
            ),
            role="encode",
            run=encode_lowercased,
            witness=encode_input("Lowest"),
        ),
        Mistake(
            id="encode-stripped",
            title="Punctuation stripped from the word before encoding",
            hint=(
                "You encode `word.strip(...)`, so `low.` loses its full stop. Encode the word "
                "exactly as given: punctuation is characters like any other, and unknown ones "
                "stay tokens of their own."
            ),
            role="encode",
            run=encode_stripped,
            witness=encode_input("lowest."),
            probes=(encode_input("lo.w."),),  # strip keeps the inner full stop
        ),
        Mistake(
            id="encode-non-word-dropped",
            title="Punctuation dropped wherever it is in the word",
            hint=(
                "You build the symbols from word characters only (`re.findall(r\"\\w\", "
                "word)`, or a pattern of escaped tokens that never matches `.`), so every `.` or "
                "`,` vanishes, inside the word too: `lo.w.` is encoded as `low`. Start from every "
                "character of the word: punctuation is characters like any other, and unknown "
                "ones stay tokens of their own."
            ),
            role="encode",
            run=encode_non_word_dropped,
            witness=encode_input("lo.w."),
        ),
        Mistake(
            id="encode-marker-stripped",
            title="End-of-word marker stripped from the last token",
            hint=(
                "Your tokens are right except that the last one lost its `</w>` (`est</w>` "
                "came out as `est`, a lone `</w>` vanished), as subword-nmt prints them. The "
                "marker is part of the token: `est</w>` (a word's end) and `est` (inside a "
                "word) are different tokens with different ids, so return the last token whole."
            ),
            role="encode",
            run=encode_marker_stripped,
            # (d, est</w>) fires: stripped gives dest, no marker at all leaves d est
            witness=encode_input("dest", train_bpe(LESSON_WORD_COUNTS, 10,
                                                   tie_break="concatenated")),
        ),
    )
    return train, encode_entries

