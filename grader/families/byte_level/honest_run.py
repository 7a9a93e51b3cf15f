"""Is a byte-level training an honest BPE run on its text, whatever its tie rule?

The byte-level counterpart of :mod:`grader.families.bpe.merge_replay`, which it runs on the
text's pre-tokens: each distinct pre-token (GPT-2's pattern between special tokens) is a word
weighted by how often it occurs, its UTF-8 bytes its symbols (each byte spelled as the one
Latin-1 character of the same value, so that joining symbols joins bytes). At every step the
merge must be a most frequent pair of the pre-tokens as rewritten by the merges before it:
any tie rule passes; a trainer that counts pairs across pre-token boundaries, ignores how
often a pre-token occurs, or carries a table learned on another text fails at its first such
merge. The efficiency check times any run that does a training run's work
(:func:`does_the_work`: the text cut as other conventions and catalogued mistakes cut it, or
counted by other weights), and names the first departure from the exercise's own reading
when none does. The vocabulary must hold exactly the special tokens, the 256 single bytes and
one token per merge, under ids ``0..n-1``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Optional

from grader.families.bpe.merge_replay import Departure, departure_in
from grader.families.bpe.training_work import WEIGHTS
from grader.families.byte_level.real_code import EOT, without_specials
from reference.byte_level import _PRETOKENIZER, BytePair, Vocab, pretokenize, split_on_special_tokens

SPELLING = "latin-1"


def departure(text: str, special_tokens: Sequence[str], merges: list[BytePair]) -> Optional[Departure]:
    """The first merge that is not a most frequent pair of the rewritten pre-tokens, or None."""
    return departure_in(_spelled(Counter(pretokenize(text, list(special_tokens)))),
                        _spelled_pairs(merges))


def _spelled(counts: Counter, weigh: Callable[[int], int] = lambda count: count) -> dict:
    words: dict[tuple[str, ...], int] = {}
    for piece, times in counts.items():
        symbols = tuple(piece.encode("utf-8").decode(SPELLING))
        words[symbols] = words.get(symbols, 0) + weigh(times)
    return words


def _spelled_pairs(merges: list[BytePair]) -> list[tuple[str, str]]:
    return [(a.decode(SPELLING), b.decode(SPELLING)) for a, b in merges]


def pretokenizations(text: str, special_tokens: Sequence[str]) -> Iterator[list[str]]:
    """The text's pre-tokens each way a trainer may cut it: the exercise's (between the
    special tokens), CS336's 2024 rule (the whole text, special tokens' text included), the
    special tokens removed with ``str.replace``, ``<|endoftext|>`` alone split out, and each
    piece split on whitespace."""
    specials = list(special_tokens)
    yield pretokenize(text, specials)
    yield _PRETOKENIZER.findall(text)
    yield _PRETOKENIZER.findall(without_specials(text, specials))
    yield [piece for chunk in text.split(EOT) for piece in _PRETOKENIZER.findall(chunk)]
    yield [word for chunk in split_on_special_tokens(text, specials)[::2] for word in chunk.split()]


def does_the_work(text: str, special_tokens: Sequence[str], merges: list[BytePair]) -> bool:
    """Whether ``merges`` are a most frequent pair at every step, any tie rule, of one of
    :func:`pretokenizations`, each pre-token counted as often as it occurs, once, or its count
    squared: the work of a training run, right or wrong (one bug is charged by the train
    milestone, not again by speed); a table made for another text is none of these."""
    pairs = _spelled_pairs(merges)
    tried: list[list[str]] = []
    for pretokens in pretokenizations(text, special_tokens):
        if pretokens in tried:  # cut as another way cut it: its replays would repeat
            continue
        tried.append(pretokens)
        words = _spelled(Counter(pretokens))  # one word per pre-token: weighed below
        for weigh in WEIGHTS.values():
            if departure_in({word: weigh(times) for word, times in words.items()}, pairs) is None:
                return True
    return False


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
