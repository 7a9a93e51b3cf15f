"""Byte-level BPE as GPT-2 and Stanford CS336 (assignment 1) define it: the reference for the
byte-level exercises.

Where the character-level reference (:mod:`reference.plain`) starts each word from its
characters and an end-of-word marker, byte-level BPE starts from the UTF-8 bytes of each
pre-token, so every text has a tokenization and nothing is ever unknown:

- Special tokens (``"<|endoftext|>"``) cut the text into chunks; nothing is merged across or
  into them. The text is scanned left to right; of special tokens starting at the same place,
  the longest is taken.
- Each chunk is pre-tokenized with GPT-2's regex (:data:`GPT2_PRETOKENIZE_PATTERN`): a
  pre-token is a contraction, a run of letters, of digits or of other symbols (each with at
  most one leading space), or a run of whitespace. Merges never cross pre-token boundaries.
- Training counts adjacent pairs of tokens within the pre-tokens, weighted by how often each
  pre-token occurs, and merges the most frequent pair; ties go to the greater pair, comparing
  ``(bytes, bytes)`` tuples.
- The vocabulary lists the special tokens (ids ``0..``), then the 256 single bytes in the order
  of GPT-2's byte-to-unicode table (the printable bytes ``!``..``~``, ``¡``..``¬`` and
  ``®``..``ÿ``, then the others by value), then one token per merge. That is the order of CS336's
  ``train-bpe-reference-vocab.json`` and of GPT-2's ``vocab.json``.
- Encoding applies the merges within each pre-token, lowest rank first; decoding joins the
  tokens' bytes and decodes them as UTF-8, invalid sequences becoming U+FFFD.
- :func:`encode_iterable_byte_bpe` is CS336's ``encode_iterable``: a generator over an
  iterable of strings (a file's lines) yielding exactly the ids of their joined text, each as
  soon as no later string can change it.

Vocab and merges files in GPT-2's format (``vocab.json``, ``merges.txt``) spell each token's
bytes with the printable characters of :func:`gpt2_bytes_to_unicode`; space is ``Ġ``, newline
``Ċ``. :func:`load_gpt2_vocab_and_merges` reads them.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from os import PathLike

import regex

from .errors import BPEInputError

GPT2_PRETOKENIZE_PATTERN = (
    r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
)
_PRETOKENIZER = regex.compile(GPT2_PRETOKENIZE_PATTERN)
_WHITESPACE = regex.compile(r"\s*")

BytePair = tuple[bytes, bytes]
Vocab = dict[int, bytes]

_SINGLE_BYTES = tuple(bytes([value]) for value in range(256))


# -- GPT-2's printable spelling of bytes ---------------------------------------------------------


@lru_cache(maxsize=1)
def _gpt2_table() -> tuple[tuple[int, str], ...]:
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    others = [value for value in range(256) if value not in printable]
    return tuple(
        [(value, chr(value)) for value in printable]
        + [(value, chr(256 + shift)) for shift, value in enumerate(others)]
    )


def gpt2_bytes_to_unicode() -> dict[int, str]:
    """GPT-2's table byte value -> one printable character, in GPT-2's order.

    The printable bytes ``!``..``~``, ``¡``..``¬`` and ``®``..``ÿ`` stand for themselves and
    come first; the other 68 (controls, space, ``\\x7f``..``\\xa0``, ``\\xad``) follow in
    byte order, spelled ``chr(256)``, ``chr(257)``, ... (so space, byte 32, is ``Ġ``).
    """
    return dict(_gpt2_table())


def gpt2_byte_order() -> list[int]:
    """The 256 byte values in the order of :func:`gpt2_bytes_to_unicode` (vocabulary order)."""
    return [value for value, _char in _gpt2_table()]


@lru_cache(maxsize=1)
def _byte_to_char() -> tuple[str, ...]:
    table = dict(_gpt2_table())
    return tuple(table[value] for value in range(256))


@lru_cache(maxsize=1)
def _char_to_byte() -> dict[str, int]:
    return {char: value for value, char in _gpt2_table()}


def to_gpt2_string(token: bytes) -> str:
    """A token's bytes spelled as in GPT-2's vocab and merges files (``b" the"`` -> ``"Ġthe"``)."""
    chars = _byte_to_char()
    return "".join(chars[value] for value in token)


def from_gpt2_string(spelled: str) -> bytes:
    """The bytes a GPT-2 file spelling stands for; the inverse of :func:`to_gpt2_string`."""
    table = _char_to_byte()
    try:
        return bytes(table[char] for char in spelled)
    except KeyError as missing:
        raise BPEInputError(
            f"{spelled!r} is not a GPT-2 byte spelling: {missing.args[0]!r} stands for no byte"
        ) from None


# -- checking arguments --------------------------------------------------------------------------


def _check_text(text: object, name: str = "text") -> str:
    if not isinstance(text, str):
        raise BPEInputError(f"{name} must be a str, got {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise BPEInputError(
            f"{name} has a lone surrogate {text[error.start]!r} at index {error.start}; "
            f"it has no UTF-8 bytes"
        ) from None
    return text


def _check_special_tokens(special_tokens: object) -> list[str]:
    if special_tokens is None:
        return []
    if isinstance(special_tokens, (str, bytes)) or not isinstance(special_tokens, Iterable):
        raise BPEInputError(
            f"special_tokens must be a list of str, got {type(special_tokens).__name__}"
        )
    tokens: list[str] = []
    for index, token in enumerate(special_tokens):
        if not isinstance(token, str):
            raise BPEInputError(
                f"special_tokens[{index}] must be a str, got {type(token).__name__} {token!r}"
            )
        if not token:
            raise BPEInputError(f"special_tokens[{index}] is empty; a special token needs text")
        _check_text(token, f"special_tokens[{index}]")
        if token in tokens:
            raise BPEInputError(f"special_tokens[{index}] repeats {token!r}")
        tokens.append(token)
    return tokens


def _check_vocab_size(vocab_size: object, special_tokens: list[str]) -> int:
    smallest = 256 + len(special_tokens)
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise BPEInputError(
            f"vocab_size must be an int, got {type(vocab_size).__name__} {vocab_size!r}"
        )
    if vocab_size < smallest:
        raise BPEInputError(
            f"vocab_size must be at least {smallest} (256 bytes + {len(special_tokens)} special "
            f"tokens), got {vocab_size}"
        )
    return vocab_size


def _check_vocab(vocab: object) -> Vocab:
    if not isinstance(vocab, dict):
        raise BPEInputError(f"vocab must be a dict id -> bytes, got {type(vocab).__name__}")
    for token_id, token in vocab.items():
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise BPEInputError(
                f"vocab ids must be int, got {type(token_id).__name__} {token_id!r}"
            )
        if not isinstance(token, bytes):
            raise BPEInputError(
                f"vocab[{token_id}] must be bytes, got {type(token).__name__} {token!r}"
            )
    return vocab


def _check_byte_merges(merges: object) -> list[BytePair]:
    if isinstance(merges, (str, bytes)) or not isinstance(merges, Iterable):
        raise BPEInputError(
            f"merges must be a list of (bytes, bytes) pairs, got {type(merges).__name__}"
        )
    pairs: list[BytePair] = []
    for index, item in enumerate(merges):
        if (
            not isinstance(item, (tuple, list))
            or len(item) != 2
            or not all(isinstance(part, bytes) and part for part in item)
        ):
            raise BPEInputError(
                f"merges[{index}] must be a pair of two non-empty bytes, got {item!r}"
            )
        pairs.append((item[0], item[1]))
    return pairs


# -- splitting text ------------------------------------------------------------------------------


def split_on_special_tokens(text: str, special_tokens: Sequence[str] = ()) -> list[str]:
    """Cut ``text`` at its special tokens: ordinary chunks at even indexes, specials at odd ones.

    Chunks may be empty (``"<|endoftext|>"`` gives ``["", "<|endoftext|>", ""]``). The text is
    scanned left to right and, among special tokens starting at the same place, the longest
    is taken (``"<a><a>"`` is one token if it is special, even when ``"<a>"`` is too).
    """
    text = _check_text(text)
    specials = _check_special_tokens(special_tokens)
    if not specials:
        return [text]
    longest_first = sorted(specials, key=len, reverse=True)
    splitter = re.compile("(" + "|".join(map(re.escape, longest_first)) + ")")
    return splitter.split(text)


def pretokenize(text: str, special_tokens: Sequence[str] = ()) -> list[str]:
    """The pre-tokens of ``text`` in order: GPT-2's regex applied between special tokens.

    The special tokens themselves are boundaries and are left out. Joined, the pre-tokens and
    the special tokens give back the text.
    """
    chunks = split_on_special_tokens(text, special_tokens)
    return [piece for chunk in chunks[::2] for piece in _PRETOKENIZER.findall(chunk)]


# -- training ------------------------------------------------------------------------------------


def _pairs(word: list[bytes]) -> list[BytePair]:
    return list(zip(word, word[1:]))


def _merge_word(word: list[bytes], pair: BytePair) -> list[bytes]:
    """Replace every occurrence of ``pair`` in ``word``, left to right, without overlaps."""
    first, second = pair
    merged: list[bytes] = []
    i = 0
    while i < len(word):
        if i + 1 < len(word) and word[i] == first and word[i + 1] == second:
            merged.append(first + second)
            i += 2
        else:
            merged.append(word[i])
            i += 1
    return merged


def _initial_vocab(special_tokens: list[str]) -> Vocab:
    vocab: Vocab = {}
    for token in special_tokens:
        vocab[len(vocab)] = token.encode("utf-8")
    for value in gpt2_byte_order():
        vocab[len(vocab)] = _SINGLE_BYTES[value]
    return vocab


def train_byte_bpe(
    text: str, vocab_size: int, special_tokens: Sequence[str] = ()
) -> tuple[Vocab, list[BytePair]]:
    """Learn byte-level BPE from ``text`` until the vocabulary has ``vocab_size`` tokens.

    Returns ``(vocab, merges)``: ``vocab`` maps id -> token bytes (special tokens, the 256
    bytes, then the merged tokens in merge order) and ``merges`` lists the merged pairs in the
    order they were learned. Training stops early, with a smaller vocabulary, when no pre-token
    has two tokens left to merge.

    The pair counts are kept up to date across merges: an index from each pair to the
    pre-tokens that contained it means a merge only revisits those pre-tokens.
    """
    text = _check_text(text)
    specials = _check_special_tokens(special_tokens)
    vocab_size = _check_vocab_size(vocab_size, specials)

    # Unique pre-tokens as lists of single-byte tokens, and how often each occurs.
    frequencies = Counter(pretokenize(text, specials))
    words: list[list[bytes]] = [
        [_SINGLE_BYTES[value] for value in pretoken.encode("utf-8")] for pretoken in frequencies
    ]
    counts: list[int] = list(frequencies.values())

    pair_counts: Counter[BytePair] = Counter()
    containing: dict[BytePair, set[int]] = {}
    for word_id, word in enumerate(words):
        for pair in _pairs(word):
            pair_counts[pair] += counts[word_id]
            containing.setdefault(pair, set()).add(word_id)

    vocab = _initial_vocab(specials)
    merges: list[BytePair] = []
    while len(vocab) < vocab_size and pair_counts:
        # The most frequent pair; among equals, the greatest (bytes, bytes) tuple.
        best = max(pair_counts, key=lambda pair: (pair_counts[pair], pair))
        merges.append(best)
        vocab[len(vocab)] = best[0] + best[1]
        # ``containing`` may list pre-tokens that lost the pair to an earlier merge; merging
        # leaves those unchanged, so recounting them changes nothing.
        for word_id in containing.pop(best):
            old = words[word_id]
            new = _merge_word(old, best)
            if len(new) == len(old):
                continue
            count = counts[word_id]
            for pair in _pairs(old):
                pair_counts[pair] -= count
                if not pair_counts[pair]:
                    del pair_counts[pair]
            for pair in _pairs(new):
                pair_counts[pair] += count
                containing.setdefault(pair, set()).add(word_id)
            words[word_id] = new
    return vocab, merges


# -- encoding and decoding -----------------------------------------------------------------------


class ByteLevelEncoder:
    """Encodes text with a fixed vocab, merge list and special tokens; caches each pre-token.

    Every single byte must be in ``vocab``, and so must every merge's result. A special token
    is looked up by its UTF-8 bytes; if those bytes are also an ordinary token, ordinary text
    still encodes to the ordinary id.
    """

    def __init__(
        self, vocab: Vocab, merges: Sequence[BytePair], special_tokens: Sequence[str] = ()
    ) -> None:
        self.vocab = _check_vocab(vocab)
        self.special_tokens = _check_special_tokens(special_tokens)
        self.ranks: dict[BytePair, int] = {}
        for rank, pair in enumerate(_check_byte_merges(merges)):
            self.ranks.setdefault(pair, rank)  # a repeated merge keeps its first rank

        special_ids: dict[str, int] = {}
        by_bytes: dict[bytes, list[int]] = {}
        for token_id, token in vocab.items():
            by_bytes.setdefault(token, []).append(token_id)
        for special in self.special_tokens:
            ids = by_bytes.get(special.encode("utf-8"))
            if not ids:
                raise BPEInputError(f"special token {special!r} is not in the vocab")
            special_ids[special] = ids[0]
        self.special_ids = special_ids
        reserved = set(special_ids.values())
        self.ids: dict[bytes, int] = {}
        for token, ids in by_bytes.items():
            ordinary = [token_id for token_id in ids if token_id not in reserved]
            if ordinary:
                self.ids[token] = ordinary[0]
        for value in range(256):
            if _SINGLE_BYTES[value] not in self.ids:
                raise BPEInputError(f"vocab has no token for the single byte {value:#04x}")
        for (first, second), rank in self.ranks.items():
            if first + second not in self.ids:
                raise BPEInputError(
                    f"merges[{rank}] makes {first + second!r}, which is not in the vocab"
                )
        self._cache: dict[str, list[int]] = {}

    def tokens(self, pretoken: str) -> list[bytes]:
        """The tokens of one pre-token: its bytes, merged lowest rank first until none applies."""
        word = [_SINGLE_BYTES[value] for value in pretoken.encode("utf-8")]
        ranks = self.ranks
        while len(word) > 1:
            ranked = [(ranks[pair], pair) for pair in _pairs(word) if pair in ranks]
            if not ranked:
                break
            word = _merge_word(word, min(ranked)[1])
        return word

    def encode(self, text: str) -> list[int]:
        chunks = split_on_special_tokens(text, self.special_tokens)
        ids: list[int] = []
        for index, chunk in enumerate(chunks):
            if index % 2:
                ids.append(self.special_ids[chunk])
                continue
            for pretoken in _PRETOKENIZER.findall(chunk):
                ids.extend(self._ids_of(pretoken))
        return ids

    def decode(self, ids: Iterable[int]) -> str:
        return _decode(ids, self.vocab)

    def encode_iterable(self, lines: Iterable[str]) -> Iterator[int]:
        """The ids of the joined ``lines``, yielded as soon as no later line can change them.

        Each line is added to a pending text; the ids of its settled part are yielded and the
        rest is kept (usually the last pre-token or two), so memory holds one line and a tail.
        """
        pending = ""
        for index, line in enumerate(lines):
            if not isinstance(line, str):
                raise BPEInputError(f"lines[{index}] must be a str, got {type(line).__name__}")
            pending += _check_text(line, f"lines[{index}]")
            ids, cut = self._settled(pending)
            yield from ids
            pending = pending[cut:]
        yield from self.encode(pending)

    def _settled(self, text: str) -> tuple[list[int], int]:
        """The ids of the longest prefix of ``text`` that no text appended later can change,
        and where that prefix ends.

        A special token is settled when every special token starting where it does would fit
        in ``text``; a text chunk before a settled special token is settled whole. In the last
        chunk, a pre-token is settled when every character the pattern looked at to match it
        is one that appended text cannot change or turn into a special token: its own, the one
        after it (where its run stopped), up to two more for a contraction, and for whitespace
        the whole run and the character after it.
        """
        longest = max((len(token) for token in self.special_tokens), default=0)
        stable = len(text) - max(longest - 1, 0)  # characters before this index are known
        chunks = split_on_special_tokens(text, self.special_tokens)
        ids: list[int] = []
        cut = position = 0
        for index, chunk in enumerate(chunks):
            start, position = position, position + len(chunk)
            if index % 2:
                if start + longest > len(text):
                    break
                ids.append(self.special_ids[chunk])
                cut = position
                continue
            whole = index + 1 < len(chunks) and position + longest <= len(text)
            for match in _PRETOKENIZER.finditer(chunk):
                if not whole and start + _looked_at(chunk, match) > stable:
                    return ids, cut
                ids.extend(self._ids_of(match.group()))
                cut = start + match.end()
        return ids, cut

    def _ids_of(self, pretoken: str) -> list[int]:
        cached = self._cache.get(pretoken)
        if cached is None:
            cached = self._cache[pretoken] = [self.ids[t] for t in self.tokens(pretoken)]
        return cached


def encode_byte_bpe(
    text: str, vocab: Vocab, merges: Sequence[BytePair], special_tokens: Sequence[str] = ()
) -> list[int]:
    """Token ids of ``text``: special tokens whole, every pre-token's bytes merged by rank."""
    return ByteLevelEncoder(vocab, merges, special_tokens).encode(text)


def encode_iterable_byte_bpe(
    lines: Iterable[str], vocab: Vocab, merges: Sequence[BytePair],
    special_tokens: Sequence[str] = (),
) -> Iterator[int]:
    """A generator of the ids of ``"".join(lines)``, as CS336's ``encode_iterable``: it reads
    ``lines`` (a file, say) one at a time and yields each id once later lines cannot change
    it, so a text too large for memory streams through. Bad arguments raise here, not on the
    first ``next()``."""
    if isinstance(lines, (str, bytes)) or not isinstance(lines, Iterable):
        raise BPEInputError(f"lines must be an iterable of str, got {type(lines).__name__}")
    return ByteLevelEncoder(vocab, merges, special_tokens).encode_iterable(lines)


def _looked_at(chunk: str, match: "regex.Match[str]") -> int:
    """One past the last index of ``chunk`` GPT-2's pattern examines to make ``match``: the
    character after it, two more after its start (a contraction is tried first), and for a
    whitespace match the rest of its run and the character after that."""
    end = max(match.end() + 1, match.start() + 3)
    if _WHITESPACE.fullmatch(match.group()):
        end = max(end, _WHITESPACE.match(chunk, match.end()).end() + 1)
    return end


def decode_byte_bpe(ids: Iterable[int], vocab: Vocab) -> str:
    """The text of ``ids``: their tokens' bytes joined and decoded as UTF-8.

    A byte sequence that is not valid UTF-8 (say, the ids of half a character) decodes to
    U+FFFD replacement characters instead of failing, as CS336's ``decode`` does.
    """
    return _decode(ids, _check_vocab(vocab))


def _decode(ids: Iterable[int], vocab: Vocab) -> str:
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
        raise BPEInputError(f"ids must be a list of int, got {type(ids).__name__}")
    parts: list[bytes] = []
    for index, token_id in enumerate(ids):
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise BPEInputError(
                f"ids[{index}] must be an int, got {type(token_id).__name__} {token_id!r}"
            )
        token = vocab.get(token_id)
        if token is None:
            raise BPEInputError(f"ids[{index}] is {token_id}, which is not in the vocab")
        parts.append(token)
    return b"".join(parts).decode("utf-8", errors="replace")


# -- GPT-2-style files ---------------------------------------------------------------------------


def load_gpt2_vocab_and_merges(
    vocab_path: str | PathLike,
    merges_path: str | PathLike,
    special_tokens: Sequence[str] = (),
) -> tuple[Vocab, list[BytePair]]:
    """Read a GPT-2-style ``vocab.json`` (spelling -> id) and ``merges.txt`` (``a b`` lines).

    Spellings are decoded with :func:`gpt2_bytes_to_unicode`, except that an entry equal to one
    of ``special_tokens`` stands for that token's UTF-8 text. A special token missing from the
    vocab file is added at the next free id. ``#version`` lines and blank lines of the merges
    file are skipped.
    """
    specials = _check_special_tokens(special_tokens)
    with open(vocab_path, encoding="utf-8") as handle:
        spelled = json.load(handle)
    if not isinstance(spelled, dict):
        raise BPEInputError(f"{vocab_path}: expected a JSON object spelling -> id")
    vocab: Vocab = {}
    for spelling, token_id in spelled.items():
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise BPEInputError(
                f"{vocab_path}: id of {spelling!r} must be an int, got {token_id!r}"
            )
        if token_id in vocab:
            raise BPEInputError(f"{vocab_path}: id {token_id} is given twice")
        if spelling in specials:
            vocab[token_id] = spelling.encode("utf-8")
        else:
            try:
                vocab[token_id] = from_gpt2_string(spelling)
            except BPEInputError as error:
                raise BPEInputError(f"{vocab_path}: {error}") from None
    for special in specials:
        if special not in spelled:
            vocab[max(vocab, default=-1) + 1] = special.encode("utf-8")

    merges: list[BytePair] = []
    with open(merges_path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            line = line.rstrip("\r\n")
            if not line.strip() or line.startswith("#version"):
                continue
            parts = line.split(" ")
            if len(parts) != 2 or not all(parts):
                raise BPEInputError(f"{merges_path}:{number}: expected 'a b', got {line!r}")
            try:
                merges.append((from_gpt2_string(parts[0]), from_gpt2_string(parts[1])))
            except BPEInputError as error:
                raise BPEInputError(f"{merges_path}:{number}: {error}") from None
    return vocab, merges
