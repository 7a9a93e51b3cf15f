"""Is a byte-level training an honest BPE run on its text, whatever its tie rule?

The byte-level counterpart of :mod:`grader.families.bpe.merge_replay`, which it runs on the
text's pre-tokens: each distinct pre-token (GPT-2's pattern between special tokens) is a word
weighted by how often it occurs, its UTF-8 bytes its symbols (each byte spelled as the one
Latin-1 character of the same value, so that joining symbols joins bytes). At every step the
merge must be a most frequent pair of the pre-tokens as rewritten by the merges before it:
any tie rule passes; a trainer that counts pairs across pre-token boundaries, ignores how
often a pre-token occurs, or carries a table learned on another text fails at its first such
merge. The vocabulary must hold exactly the special tokens, the 256 single bytes and one
token per merge, under ids ``0..n-1``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Optional

from grader.families.bpe.merge_replay import Departure, first_departure
from reference.byte_level import BytePair, Vocab, pretokenize

SPELLING = "latin-1"


def departure(text: str, special_tokens: Sequence[str], merges: list[BytePair]) -> Optional[Departure]:
    """The first merge that is not a most frequent pair of the rewritten pre-tokens, or None."""
    counts = Counter(pretokenize(text, list(special_tokens)))
    words = {piece.encode("utf-8").decode(SPELLING): times for piece, times in counts.items()}
    pairs = [(a.decode(SPELLING), b.decode(SPELLING)) for a, b in merges]
    return first_departure(words, pairs, "")


def pairs_left(text: str, special_tokens: Sequence[str], merges: list[BytePair]) -> bool:
    """Whether some pre-token still has two tokens after ``merges`` (assumed an honest run)."""
    counts = Counter(pretokenize(text, list(special_tokens)))
    ranks = {pair: rank for rank, pair in reversed(list(enumerate(merges)))}
    for piece in counts:
        word = [bytes([b]) for b in piece.encode("utf-8")]
        while len(word) > 1:
            ranked = [(ranks[pair], i) for i, pair in enumerate(zip(word, word[1:])) if pair in ranks]
            if not ranked:
                return True
            _, i = min(ranked)
            word[i:i + 2] = [word[i] + word[i + 1]]
    return False


def vocab_problem(vocab: Vocab, merges: list[BytePair], special_tokens: Sequence[str]) -> Optional[str]:
    """Why ``vocab`` is not the special tokens, the 256 bytes and one token per merge, or None."""
    if sorted(vocab) != list(range(len(vocab))):
        return f"the vocab's ids must be 0..{len(vocab) - 1} with none missing"
    want = ({token.encode("utf-8") for token in special_tokens} | {bytes([b]) for b in range(256)}
            | {a + b for a, b in merges})
    got = set(vocab.values())
    if got != want:
        missing, extra = sorted(want - got)[:3], sorted(got - want)[:3]
        return (f"the vocab is not the special tokens, the 256 single bytes and one token per "
                f"merge: missing {missing!r}, unexpected {extra!r}")
    expected = 256 + len(special_tokens) + len(merges)
    if len(vocab) != expected:
        return (f"the vocab has {len(vocab)} ids; expected {expected}: one per special token, "
                "one per single byte and one per merge")
    return None


def departure_text(name: str, merges: list[BytePair], found: Departure) -> str:
    """``found`` in words (no durations)."""
    merge = f"merge {found.index + 1} of {name}, {merges[found.index]!r},"
    if found.count == 0:
        return (f"{merge} occurs in no pre-token as rewritten by the merges before it (pairs "
                "are counted within pre-tokens only, never across a space or a special token)")
    return (f"{merge} occurs {found.count} times in the pre-tokens as rewritten by the merges "
            f"before it, but the most frequent pair there occurs {found.most} times (each "
            "pre-token counts as often as it occurs in the text): BPE merges a most frequent "
            "pair at every step")
