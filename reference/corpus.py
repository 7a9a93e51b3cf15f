"""Turning a corpus (texts or word counts) into ordered word counts and initial segmentations.

Both corpus forms become one insertion-ordered ``dict`` word -> count, words in order of
first appearance. That order is what the ``first-seen`` tie-break rule depends on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain

from reference.errors import BPEInputError

END_OF_WORD = "</w>"

Symbols = tuple[str, ...]


def word_counts(corpus: object) -> dict[str, int]:
    """Validate ``corpus`` and return word -> count in order of first appearance.

    ``corpus`` is a mapping word -> positive int, or a sequence of texts that are split on
    whitespace. A bare string is refused: iterating it would silently treat each character
    as a text.
    """
    if isinstance(corpus, Mapping):
        return _counts_from_mapping(corpus)
    if isinstance(corpus, (str, bytes)):
        raise BPEInputError(
            f"corpus must be a list of texts or a dict word -> count, not a single "
            f"{type(corpus).__name__}; wrap it in a list: [{corpus[:40]!r}]"
        )
    if isinstance(corpus, Iterable):
        return _counts_from_texts(corpus)
    raise BPEInputError(
        f"corpus must be a list of texts or a dict word -> count, got {type(corpus).__name__}"
    )


def _counts_from_mapping(corpus: Mapping) -> dict[str, int]:
    counts: dict[str, int] = {}
    for word, count in corpus.items():
        if not isinstance(word, str):
            raise BPEInputError(f"corpus words must be str, got {type(word).__name__} {word!r}")
        if isinstance(count, bool) or not isinstance(count, int):
            raise BPEInputError(
                f"count of word {word!r} must be an int, got {type(count).__name__} {count!r}"
            )
        if count <= 0:
            raise BPEInputError(f"count of word {word!r} must be positive, got {count}")
        counts[word] = count
    return counts


def _counts_from_texts(texts: Iterable) -> dict[str, int]:
    words = chain.from_iterable(map(str.split, _checked_texts(texts)))
    return dict(Counter(words))  # counted in C; a Counter keeps the order of first appearance


def _checked_texts(texts: Iterable) -> Iterator[str]:
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise BPEInputError(
                f"corpus texts must be str, got {type(text).__name__} at index {index}"
            )
        yield text


def check_end_of_word(end_of_word: object) -> str:
    if not isinstance(end_of_word, str):
        raise BPEInputError(f"end_of_word must be a str, got {type(end_of_word).__name__}")
    return end_of_word


def segment(word: str, end_of_word: str = END_OF_WORD, *, fuse_end_of_word: bool = False) -> Symbols:
    """A word's initial symbols: its characters, then the marker.

    The marker is a symbol of its own unless ``fuse_end_of_word`` glues it onto the last
    character (subword-nmt's convention). An empty ``end_of_word`` means no marker at all.
    Literal marker text inside a word (``"a</w>"``) is just more characters.
    """
    chars = tuple(word)
    if not end_of_word:
        return chars
    if fuse_end_of_word:
        if not chars:
            return (end_of_word,)
        return chars[:-1] + (chars[-1] + end_of_word,)
    return chars + (end_of_word,)
