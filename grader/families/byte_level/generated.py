"""Generated inputs for byte-level BPE: small texts with special tokens, where mistakes show.

Hypothesis generates them in the trusted process from the exercise's ``properties`` settings,
seeded from the course's secret as every generated input is (:mod:`grader.grading.search`).
A training input is ``(text, special_tokens, num_merges)``: one to ``max_documents``
documents joined by special tokens, each made of words over a small alphabet (so pairs repeat
and ties are common: random ``ab`` texts are where counting bugs show) and sometimes
*decorated* with a multi-byte character, a digit, punctuation, a contraction or a newline, or
replaced by a run of one byte; the special tokens are none (the empty list), one, or two
where one holds the other; ``num_merges`` leans high, so training often runs out of pairs. An
encoding input adds a text to encode (pieces of the training text, special tokens among
them, or fresh characters); a decoding input adds whether the ids end in the middle of a
character (the text up to its last character of several bytes, then that character's
bytes but the last, one single-byte id each). A few targeted inputs
go in early: no pair left, runs of one byte, documents split by special tokens, multi-byte
words. The reference's training on each text is remembered, and computed ahead by a
grading's helper. A failing input shrinks by :func:`reductions`: fewer words or special
tokens, fewer characters, fewer merges, a shorter text to encode.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from grader.families.api import Exercise, fewer_items, smaller_int, st
from reference.byte_level import BytePair, ByteLevelEncoder, Vocab, train_byte_bpe

Train = tuple[str, tuple[str, ...], int]
"""``(text, special_tokens, num_merges)``: trains to ``256 + len(specials) + num_merges``."""

EOT = "<|endoftext|>"
SPECIAL_SETS: tuple[tuple[str, ...], ...] = (
    (), (EOT,), (), (EOT, "<|pad|>"), ("<|x|>", "<|x|><|x|>"), (EOT,),
)
"""The special-token lists drawn from: none (twice as often), CS336's separator, two
separators, and two where one holds the other (the longer must win)."""
DECORATIONS = ("multibyte", "digit", "punctuation", "contraction", "newline", "run")
PLAIN_DRAWS = 5
WORDS_PER_DOCUMENT = 6
MAX_PIECES = 4


def vocab_size(example: Train) -> int:
    text, specials, num_merges = example
    return 256 + len(specials) + num_merges


def train_args(example: Train) -> tuple[str, int, list[str]]:
    """The trainer's arguments ``(text, vocab_size, special_tokens)`` of a training input."""
    return example[0], vocab_size(example), list(example[1])


# --------------------------------------------------------------------------- texts


def _decorate(word: str, how: int, characters: str, index: int) -> str:
    """``word`` with decoration ``DECORATIONS[how]`` (past them: left as it is)."""
    if how >= len(DECORATIONS) or not word:
        return word
    kind = DECORATIONS[how]
    if kind == "multibyte":
        extra = characters[index % len(characters)] if characters else "é"
        return word[:1] + extra + word[1:]
    if kind == "digit":
        return word + str(index % 10) * (1 + index % 3)
    if kind == "punctuation":
        return word + ("!!" if index % 2 else ",")
    if kind == "contraction":
        return word + ("'s" if index % 2 else "'ll")
    if kind == "newline":
        return word + "\n"
    return word[0] * (3 + index % 5)  # a run of one byte (or of one character's bytes)


def _document(words: list[str], looks: list[int], characters: str) -> str:
    """Words joined by spaces, each decorated by its look (most looks leave it plain)."""
    return " ".join(_decorate(word, look, characters, index)
                    for index, (word, look) in enumerate(zip(words, looks)))


def _joined(documents: list[str], specials: tuple[str, ...], picks: list[int]) -> str:
    """Documents joined by special tokens (the empty list: by a space); some specials doubled."""
    if not specials:
        return " ".join(documents)
    text = documents[0] if documents else ""
    for index, document in enumerate(documents[1:]):
        pick = picks[index % len(picks)] if picks else 0
        text += specials[pick % len(specials)] * (1 + (pick // 7) % 2) + document
    return text


def _alphabet(exercise: Exercise) -> str:
    return "".join(sorted(set(exercise.properties.alphabet)))


def training_strategy(exercise: Exercise) -> Any:
    """``(text, special_tokens, num_merges)`` inputs (see the module docstring)."""
    props = exercise.properties
    alphabet, characters = _alphabet(exercise), props.characters
    most = props.max_merges
    letters = st.integers(1, len(alphabet))
    word = st.lists(st.sampled_from(alphabet), min_size=1, max_size=props.max_word_length)
    look = st.sampled_from([len(DECORATIONS)] * PLAIN_DRAWS + list(range(len(DECORATIONS))))
    document = st.tuples(st.lists(word.map("".join), min_size=1, max_size=WORDS_PER_DOCUMENT),
                         st.lists(look, min_size=WORDS_PER_DOCUMENT, max_size=WORDS_PER_DOCUMENT))

    def build(drawn: tuple) -> Train:
        count, documents, which, picks, fewer = drawn
        table = str.maketrans({letter: alphabet[i % count] for i, letter in enumerate(alphabet)})
        specials = SPECIAL_SETS[which]
        texts = [_document([w.translate(table) for w in words], looks, characters)
                 for words, looks in documents]
        return _joined(texts, specials, picks), specials, most - fewer

    return st.tuples(letters, st.lists(document, min_size=1, max_size=props.max_documents),
                     st.integers(0, len(SPECIAL_SETS) - 1), st.lists(st.integers(0, 99), max_size=3),
                     st.integers(0, most)).map(build)


def targeted_training(exercise: Exercise) -> list[Train]:
    """Inputs where plausible wrong trainers show, in the exercise's letters."""
    letters = (_alphabet(exercise) * 2)[:2]
    a, b = letters[0], letters[1]
    extra = (exercise.properties.characters or "é")[0]
    return [
        (f"{a} {b} {a}{a}", (), 6),                                # one pair, then none left
        ("", (EOT,), 3),                                          # nothing at all
        (a * 7 + " " + a * 4, (), 5),                             # runs of one byte
        (f"{a}{b}{EOT}{a}{b} {b}{a}{EOT}{b}{a}", (EOT,), 5),       # documents
        (f"{a}{b} {a}{b} {a}{b} {b}{a}{b}{a}", (), 6),             # frequencies decide
        (f"{a}<|x|><|x|>{b}<|x|>{a}{b} {a}{b}", ("<|x|>", "<|x|><|x|>"), 3),
        (f"{extra}{a} {extra}{a} {a}{extra}{extra}", (), 6),        # a character of many bytes
    ]


# --------------------------------------------------------------------------- texts to encode


def pieces_of(text: str) -> list[str]:
    """Substrings of the training text (up to 6 characters), shortest first."""
    found = {text[i:j] for i in range(len(text)) for j in range(i + 1, min(len(text), i + 6) + 1)}
    return sorted(found, key=lambda piece: (len(piece), piece))


def _piece(pieces: list[str], specials: tuple[str, ...], pick: int) -> str:
    """One piece of a text to encode: a special token for one pick in four, when there are any."""
    if specials and pick % 4 == 0:
        return specials[(pick // 4) % len(specials)]
    return pieces[pick % len(pieces)] if pieces else ""


def encoding_strategy(exercise: Exercise) -> Any:
    """``(text, special_tokens, num_merges, to_encode)``: ``to_encode`` is encoded with the
    vocab and merges the reference trains on ``text``: one to four pieces of the text (its
    special tokens among them) glued together, or fresh characters."""
    props = exercise.properties
    fresh = st.lists(st.sampled_from(_alphabet(exercise) + props.characters + " !'7\n"),
                     max_size=props.max_word_length * 2).map("".join)

    def build(drawn: tuple) -> tuple[str, tuple[str, ...], int, str]:
        (text, specials, num_merges), picks, other, use_fresh = drawn
        pieces = pieces_of(text)
        if use_fresh or not (pieces or specials):
            encoded = other
        else:
            encoded = "".join(_piece(pieces, specials, pick) for pick in picks)
        return text, specials, num_merges, encoded

    return st.tuples(training_strategy(exercise),
                     st.lists(st.integers(0, 10_000), min_size=1, max_size=MAX_PIECES),
                     fresh, st.integers(0, 4).map(lambda n: n == 0)).map(build)


def targeted_encoding(exercise: Exercise) -> list[tuple[str, tuple[str, ...], int, str]]:
    extra = (exercise.properties.characters or "é")[0]
    return [(text, specials, merges, text + " " + (specials[0] if specials else extra) + text[:3])
            for text, specials, merges in targeted_training(exercise)]


def decoding_strategy(exercise: Exercise) -> Any:
    """``(text, special_tokens, num_merges, to_encode, cut)``: the ids of ``to_encode``, their
    last token's bytes cut short when ``cut`` (often the middle of a character)."""
    return st.tuples(encoding_strategy(exercise), st.booleans()).map(
        lambda drawn: (*drawn[0], drawn[1]))


def targeted_decoding(exercise: Exercise) -> list[tuple]:
    return [(*example, cut) for example in targeted_encoding(exercise) for cut in (False, True)]


# --------------------------------------------------------------------------- the reference


_TRAINED: dict[tuple, tuple[Vocab, list[BytePair]]] = {}


def trained_key(text: str, specials: tuple[str, ...], num_merges: int) -> tuple:
    return "byte", text, tuple(specials), num_merges


def reference_training(text: str, specials: tuple[str, ...], num_merges: int) -> tuple[Vocab, list[BytePair]]:
    """The reference's ``(vocab, merges)`` on a training input (remembered; callers must not
    mutate them)."""
    key = trained_key(text, specials, num_merges)
    if key not in _TRAINED:
        _TRAINED[key] = train_byte_bpe(text, 256 + len(specials) + num_merges, list(specials))
    return _TRAINED[key]


def reference_encoder(text: str, specials: tuple[str, ...], num_merges: int) -> ByteLevelEncoder:
    """The reference's encoder with the vocab and merges trained on a training input (built
    once: every check encodes its inputs with it)."""
    key = trained_key(text, specials, num_merges)
    if key not in _ENCODERS:
        vocab, merges = reference_training(text, specials, num_merges)
        _ENCODERS[key] = ByteLevelEncoder(vocab, merges, list(specials))
    return _ENCODERS[key]


_ENCODERS: dict[tuple, ByteLevelEncoder] = {}


def reference_ids(example: tuple) -> list[int]:
    """The reference's ids of an encoding input's text, with the vocab trained on its text."""
    text, specials, num_merges, encoded = example[:4]
    return reference_encoder(text, specials, num_merges).encode(encoded)


def single_byte_ids(vocab: Vocab) -> dict[bytes, int]:
    """The id of each single byte in ``vocab``."""
    return {token: token_id for token_id, token in vocab.items() if len(token) == 1}


def ids_to_decode(example: tuple) -> list[int]:
    """The ids a decoding input decodes: the text's ids, or when ``cut``, the ids of the text
    up to its last character of several bytes followed by that character's bytes but the
    last, one single-byte id each (where the text has no such character: its last token cut
    short the same way)."""
    text, specials, num_merges, encoded, cut = example
    ids = reference_ids(example)
    if not cut or not ids:
        return ids
    vocab, merges = reference_training(text, specials, num_merges)
    singles = single_byte_ids(vocab)
    wide = [i for i, character in enumerate(encoded) if len(character.encode("utf-8")) > 1]
    if wide:
        head = reference_encoder(text, specials, num_merges).encode(encoded[:wide[-1]])
        partial = encoded[wide[-1]].encode("utf-8")[:-1]
    else:
        head, partial = ids[:-1], vocab[ids[-1]][:-1]
    return head + [singles[partial[i:i + 1]] for i in range(len(partial))]


def training_ahead(exercise: Exercise, example: tuple) -> Mapping:
    """The reference's training on an input's text, keyed as :func:`reference_training` looks it up."""
    text, specials, num_merges = example[:3]
    reference_training(text, specials, num_merges)
    key = trained_key(text, specials, num_merges)
    return {key: _TRAINED[key]}


def install(values: Mapping) -> None:
    _TRAINED.update(values)


# --------------------------------------------------------------------------- shrinking


def _units(text: str, specials: tuple[str, ...]) -> list[str]:
    """``text`` cut into special tokens and words (each keeping the white space after it)."""
    if not specials:
        return re.findall(r"\S+\s*|\s+", text)
    atoms = "|".join(re.escape(token) for token in sorted(specials, key=len, reverse=True))
    return re.findall(rf"{atoms}|(?:(?!{atoms})\S)+\s*|\s+", text)


def shorter_text(text: str, specials: tuple[str, ...]) -> Iterator[str]:
    """``text`` with words or special tokens gone, then with one character of a word gone
    (a special token is never cut into)."""
    units = _units(text, specials)
    for fewer in fewer_items(units):
        yield "".join(fewer)
    for index, unit in enumerate(units):
        if unit not in specials and len(unit) > 1:
            for at in range(len(unit)):
                yield "".join(units[:index] + [unit[:at] + unit[at + 1:]] + units[index + 1:])


def reductions(exercise: Exercise, example: tuple) -> list[tuple]:
    """The inputs one step smaller than a training, encoding or decoding input: a shorter
    training text, fewer merges or a shorter text to encode (a decoding input's ids stay cut
    short or not, as they were)."""
    text, specials, num_merges, *rest = example
    smaller = [(shorter, specials, num_merges, *rest) for shorter in shorter_text(text, specials)]
    smaller += [(text, specials, fewer, *rest) for fewer in smaller_int(num_merges, 0)]
    if rest:
        encoded, *cut = rest
        smaller += [(text, specials, num_merges, shorter, *cut)
                    for shorter in shorter_text(encoded, specials)]
    return smaller


def settings_key(exercise: Exercise) -> tuple:
    """What the generated inputs depend on: the ``properties`` settings."""
    return ("byte", tuple(sorted(dict(exercise.properties).items())))


def count(exercise: Exercise) -> int:
    return exercise.properties.examples
