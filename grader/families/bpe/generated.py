"""Generated inputs for character BPE: small corpora, words and sentences where mistakes show.

Hypothesis generates the inputs in the trusted process from an exercise's ``properties``
settings: small alphabets (each input often restricted to its first one or two letters),
so repeated symbols and ties are common, and corpora in the exercise's own corpus form.
Real text is more than a few lowercase letters, so some corpora and words are *decorated*:
a capital, a digit, punctuation or a non-ASCII letter (:data:`DECORATIONS`), which is where
code that lowercases, strips or assumes ASCII shows. Words to encode are pieces of the
corpus's words or learned tokens glued together (where a later, longer token overlaps an
earlier merge, so rank order, longest match and left to right disagree), alone or up to
four at a time, or fresh words. A few targeted inputs go in early. A failing input is shrunk
by :func:`reductions` (fewer and shorter words, lower counts, fewer merges, a shorter text to
encode), each candidate an input the roles accept. The reference's merges
on a generated corpus are remembered (and computed ahead by a grading's helper), since every
check asks for the same ones. WordPiece trains on the same corpora.
"""

from __future__ import annotations

from typing import Any

from grader.families.api import Exercise, shorter_words, smaller_int, st, structural_reductions
from reference import train_bpe

Pair = tuple[str, str]

WORDS_PER_LINE = 3
SENTENCE_WORDS = 4
MAX_GLUED = 4
DECORATIONS = ("capital", "punctuation", "digit", "accent")
"""Ways a generated word departs from the alphabet; draws past these leave it plain."""
PLAIN_DRAWS = 4
TRAIN, ENCODE = "train", "encode"


def letter_count_strategy(exercise: Exercise) -> st.SearchStrategy[int]:
    """How many letters of the alphabet one input uses (the first one, two, ... of them).

    Fewer letters mean more repeated symbols, overlapping pairs and ties, where most
    mistakes show; about half the inputs use every letter, and shrinking heads for one.
    """
    size = len(_alphabet(exercise))
    return st.one_of(st.integers(1, size), st.just(size))


def _alphabet(exercise: Exercise) -> str:
    return "".join(sorted(set(exercise.properties.alphabet)))


def word_strategy(exercise: Exercise) -> st.SearchStrategy[str]:
    # Lists of letters rather than st.text: the same words and shrinking, without the
    # Unicode tables st.text builds and caches on disk.
    letters = st.sampled_from(_alphabet(exercise))
    return st.lists(letters, min_size=1, max_size=exercise.properties.max_word_length).map("".join)


def corpus_strategy(exercise: Exercise) -> st.SearchStrategy[Any]:
    """Corpora in the exercise's corpus form: word -> count mappings or lists of texts."""
    props = exercise.properties
    word = word_strategy(exercise)
    if exercise.conventions.corpus_form == "word-counts":
        return st.dictionaries(word, st.integers(1, props.max_count), max_size=props.max_words)
    line = st.lists(word, min_size=1, max_size=WORDS_PER_LINE).map(" ".join)
    return st.lists(line, max_size=props.max_words)


def fold_letters(value: Any, alphabet: str, count: int) -> Any:
    """``value`` (a text, a list of texts or word counts) using only the first ``count`` letters.

    Each letter becomes the letter at its index modulo ``count``; words that become equal in
    a word-count mapping add up their counts. Plain maps like this keep Hypothesis fast
    (no dependent draws) and shrink well.
    """
    table = str.maketrans({letter: alphabet[index % count] for index, letter in enumerate(alphabet)})
    if isinstance(value, str):
        return value.translate(table)
    if isinstance(value, dict):
        folded: dict[str, int] = {}
        for word, times in value.items():
            key = word.translate(table)
            folded[key] = folded.get(key, 0) + times
        return folded
    return [text.translate(table) for text in value]


def decorate(value: Any, how: int) -> Any:
    """``value`` (a word, a text, a list of texts or word counts) with every other word
    decorated by ``DECORATIONS[how]``; ``how`` past them leaves it as it is.

    Equal words of a word-count mapping add up their counts, as in :func:`fold_letters`.
    """
    if how >= len(DECORATIONS):
        return value
    change = _DECORATE[DECORATIONS[how]]
    if isinstance(value, str):
        return " ".join(change(word) if index % 2 == 0 else word
                        for index, word in enumerate(value.split(" ")))
    if isinstance(value, dict):
        decorated: dict[str, int] = {}
        for index, (word, times) in enumerate(value.items()):
            key = change(word) if index % 2 == 0 else word
            decorated[key] = decorated.get(key, 0) + times
        return decorated
    return [decorate(text, how) for text in value]


_DECORATE = {
    "capital": lambda word: word[:1].upper() + word[1:],
    "punctuation": lambda word: word + "." if len(word) % 2 else word + ",",
    "digit": lambda word: word[:-1] + "7" + word[-1:] if len(word) > 1 else word + "7",
    "accent": lambda word: word.replace(word[:1], "é", 1) if word else word,
}


def decoration_strategy() -> st.SearchStrategy[int]:
    """Which decoration, if any (index into :data:`DECORATIONS`; past it, none): about half
    the draws decorate, and shrinking heads for none."""
    plain = len(DECORATIONS)
    return st.sampled_from([plain] * PLAIN_DRAWS + list(range(len(DECORATIONS))))


def training_strategy(exercise: Exercise) -> st.SearchStrategy[tuple[Any, int]]:
    """``(corpus, num_merges)`` pairs.

    ``num_merges`` leans high and shrinks towards the maximum: later merges build the
    multi-letter symbols whose ties tell the tie rules apart, and on the tiny corpus a
    shrunk input has, the maximum simply means every merge there is.
    """
    alphabet = _alphabet(exercise)
    most = exercise.properties.max_merges
    return st.tuples(
        letter_count_strategy(exercise), corpus_strategy(exercise), st.integers(0, most),
        decoration_strategy(),
    ).map(lambda drawn: (decorate(fold_letters(drawn[1], alphabet, drawn[0]), drawn[3]),
                         most - drawn[2]))


def encoding_strategy(exercise: Exercise) -> st.SearchStrategy[tuple[Any, int, str]]:
    """``(corpus, num_merges, word)``: the word is encoded with what training learned.

    Words are pieces of the corpus's words or tokens training learned, one to four glued
    together (tokens also overlapping by a character), so that many merges apply to them and the order they apply in matters, or
    fresh words; some are decorated. ``num_merges`` leans high for the same reason.
    """
    alphabet = _alphabet(exercise)
    most = exercise.properties.max_merges
    pick = st.integers(0, 10_000)

    def build(drawn: tuple) -> tuple[Any, int, str]:
        count, corpus, fewer, glued, picks, fresh, source, corpus_look, word_look = drawn
        corpus = decorate(fold_letters(corpus, alphabet, count), corpus_look)
        num_merges = most - fewer
        pieces = word_pieces(corpus) if source == 0 else learned_tokens(exercise, corpus, num_merges)
        if not pieces or glued == MAX_GLUED:
            word = fold_letters(fresh, alphabet, count)
        else:
            chosen = [pieces[index % len(pieces)] for index in picks[: glued + 1]]
            word = overlapped(chosen) if source == 2 else "".join(chosen)
        return corpus, num_merges, decorate(word, word_look)

    return st.tuples(
        letter_count_strategy(exercise), corpus_strategy(exercise), st.integers(0, most),
        st.integers(0, MAX_GLUED), st.tuples(*[pick] * MAX_GLUED), word_strategy(exercise),
        st.integers(0, 2), decoration_strategy(), decoration_strategy(),
    ).map(build)


def overlapped(pieces: list[str]) -> str:
    """The pieces joined, each sharing its first character with the end of the one before
    when they can: two learned tokens that compete for one symbol, as in ``aa`` + ``ac``."""
    word = pieces[0] if pieces else ""
    for piece in pieces[1:]:
        word += piece[1:] if word and piece and word[-1] == piece[0] and len(piece) > 1 else piece
    return word


def targeted_examples(exercise: Exercise, role: str) -> list[Any]:
    """A few fixed inputs in the exercise's letters where plausible wrong code shows.

    The corpus ``xxx, xzz x3, yxxz x2`` learns ``(x, z)`` before ``(x, x)``: in ``xxz`` the
    earlier merge wins, while the longest or leftmost token does not; with more merges
    ``(x, xz)`` competes too. In ``yxzy x2, xy x3, xyyx`` the leftmost pair, the longest
    token and the most frequent pair disagree as well, under every tie rule. Capitals,
    punctuation and a digit show code that lowercases, strips or drops characters. ``role``
    is ``train`` for a trainer's ``(corpus, num_merges)``, ``encode`` for words to encode,
    else sentences.
    """
    letters = (_alphabet(exercise) * 3)[:3]
    x, y, z = letters[0], letters[1 % len(letters)], letters[2 % len(letters)]
    overlapping = _in_form(exercise, {x * 3: 1, x + z + z: 3, y + x + x + z: 2})
    competing = _in_form(exercise, {y + x + z + y: 2, x + y: 3, x + y + y + x: 1})
    decorated = _in_form(exercise, {x.upper() + x + x: 2, x + z + z + ".": 3, y + x + "7" + z: 2,
                                    z + x + ",": 1})
    plain = [x + x + z, z + x + x + z, x + x + x + z, y + x + x + x + z, x + x + z + x + z + z]
    odd = [x.upper() + x + z, x + x + z + ".", "(" + z + x + x + z + ")"]
    if role == TRAIN:
        return [(corpus, merges) for corpus in (overlapping, competing, decorated)
                for merges in (4, 6)]
    if role == ENCODE:
        return ([(overlapping, merges, word) for merges in (4, 6) for word in plain]
                + [(overlapping, 4, word) for word in odd]
                + [(competing, 4, word) for word in (x + x + y, y + x + y, y + x + y + x)]
                + [(competing, 6, word) for word in (x + x + y, x + y + y + x + y)])
    return [(overlapping, merges, " ".join(plain[:3]) + " " + word)
            for merges in (4, 6) for word in odd + plain[3:]]


def _in_form(exercise: Exercise, counts: dict[str, int]) -> Any:
    if exercise.conventions.corpus_form == "word-counts":
        return dict(counts)
    return [" ".join(word for word, times in counts.items() for _ in range(times))]


def learned_tokens(exercise: Exercise, corpus: Any, num_merges: int) -> list[str]:
    """The tokens training learns from ``corpus``, latest (longest-built) first, marker cut off."""
    marker = exercise.conventions.end_of_word
    tokens = []
    for first, second in reversed(reference_merges(exercise, corpus, num_merges)):
        token = first + second
        token = token[: -len(marker)] if marker and token.endswith(marker) else token
        if token and token not in tokens:
            tokens.append(token)
    return tokens


def word_pieces(corpus: Any) -> list[str]:
    """Every substring of every word of the corpus, shortest first."""
    words = list(corpus) if isinstance(corpus, dict) else [w for text in corpus for w in text.split()]
    pieces = {word[i:j] for word in words for i in range(len(word)) for j in range(i + 1, len(word) + 1)}
    return sorted(pieces, key=lambda piece: (len(piece), piece))


def sentence_strategy(exercise: Exercise) -> st.SearchStrategy[tuple[Any, int, str]]:
    """``(corpus, num_merges, sentence)``: sentences of the corpus's words and their pieces,
    often repeated, or of fresh words."""
    alphabet = _alphabet(exercise)
    most = exercise.properties.max_merges
    picks = st.lists(st.integers(0, 10_000), max_size=SENTENCE_WORDS)
    fresh = st.lists(word_strategy(exercise), max_size=SENTENCE_WORDS)

    def build(drawn: tuple) -> tuple[Any, int, str]:
        count, corpus, fewer, use_fresh, chosen, fresh_words = drawn
        corpus = fold_letters(corpus, alphabet, count)
        pieces = word_pieces(corpus)
        if use_fresh or not pieces:
            words = fold_letters(fresh_words, alphabet, count)
        else:
            words = [pieces[index % len(pieces)] for index in chosen]
        return corpus, most - fewer, " ".join(words)

    return st.tuples(
        letter_count_strategy(exercise), corpus_strategy(exercise), st.integers(0, most),
        st.booleans(), picks, fresh,
    ).map(build)


def reductions(exercise: Exercise, example: tuple) -> list[tuple]:
    """The inputs one step smaller than ``example`` (``(corpus, num_merges, ...)``, then a
    merge pick or a text to encode): a smaller corpus, fewer merges, a smaller pick or a
    shorter text, one at a time."""
    corpus, num_merges, *rest = example
    smaller = [(fewer, num_merges, *rest) for fewer in structural_reductions(corpus)]
    smaller += [(corpus, fewer, *rest) for fewer in smaller_int(num_merges, 0)]
    if rest and isinstance(rest[0], int):
        smaller += [(corpus, num_merges, pick) for pick in smaller_int(rest[0], 0)]
    elif rest and isinstance(rest[0], str):
        smaller += [(corpus, num_merges, text) for text in shorter_words(rest[0])]
    return smaller


def reference_merges(exercise: Exercise, corpus: Any, num_merges: int) -> list[Pair]:
    """The reference's merges under the exercise's conventions (a fresh list; remembered, as
    every check asks for the same)."""
    conventions = exercise.conventions
    return trained_merges(corpus, num_merges, conventions.tie_break, conventions.end_of_word)


def trained_merges(corpus: Any, num_merges: int, tie_break: str, end_of_word: str) -> list[Pair]:
    """The reference's merges under these conventions (a fresh list; trained once)."""
    key = tie_break, end_of_word, repr(corpus), num_merges
    if key not in _MERGES:
        _MERGES[key] = tuple(train_bpe(corpus, num_merges, tie_break=tie_break,
                                       end_of_word=end_of_word))
    return list(_MERGES[key])


def merges_key(exercise: Exercise, corpus: Any, num_merges: int) -> tuple:
    """The key :func:`trained_merges` remembers the exercise's merges on ``corpus`` under."""
    conventions = exercise.conventions
    return conventions.tie_break, conventions.end_of_word, repr(corpus), num_merges


_MERGES: dict[tuple, tuple] = {}


def merges_ahead(exercise: Exercise, example: Any) -> dict:
    """The reference's merges on a generated input's corpus, keyed as :func:`reference_merges`
    looks them up: what a helper computes ahead for each input."""
    key = merges_key(exercise, example[0], example[1])
    reference_merges(exercise, example[0], example[1])
    return {key: _MERGES[key]}


def install_merges(values: dict) -> None:
    _MERGES.update(values)


def settings_key(exercise: Exercise) -> tuple:
    """What the generated inputs depend on: the corpus form and the ``properties`` settings."""
    props = exercise.properties
    return exercise.conventions.corpus_form, tuple(sorted(dict(props).items()))


def count(exercise: Exercise) -> int:
    return exercise.properties.examples
