"""Student-style submissions for the mistakes of published code, and for two mistakes at once.

The parts here plug into the correct program of :mod:`grader.families.bpe.students` like its own:
a trainer without ``if not pairs: break`` (so ``max`` of nothing raises), one that stops when
the best pair occurs once, an encoder that cuts out the longest known token anywhere and
recurses, encoders that lowercase or strip the word. :data:`COMBINED` lists the combinations
that real code makes, each a submission with both mistakes' parts (:func:`combined`); the
audit grades them with the single mistakes, and naming must find both.
"""

from __future__ import annotations

from dataclasses import replace

from grader.families.bpe.real_code import PUNCTUATION
from grader.families.api import StudentMistake

TRAIN_NO_PAIR_CHECK = '''
def $train_name(corpus, num_merges):
    words = read_words(corpus)
    merges = []
    for _ in range($merge_count):
        pairs = count_pairs(words)
        best = best_pair(pairs)
        merges.append($record)
        new_words = {}
        for symbols, freq in words.items():
            merged = merge_word(symbols, best)
            new_words[merged] = new_words.get(merged, 0) + freq
        words = new_words
    return $returned
'''

TRAIN_MIN_COUNT_TWO = '''
def $train_name(corpus, num_merges):
    words = read_words(corpus)
    merges = []
    for _ in range($merge_count):
        pairs = count_pairs(words)
        if not pairs:
            break
        best = best_pair(pairs)
        if pairs[best] < 2:
            break
        merges.append($record)
        new_words = {}
        for symbols, freq in words.items():
            merged = merge_word(symbols, best)
            new_words[merged] = new_words.get(merged, 0) + freq
        words = new_words
    return $returned
'''

ENCODE_LONGEST_ANYWHERE = '''
def $encode_name(word, merges):
    vocab = {a + b for a, b in as_pairs(merges)}

    def split(symbols):
        for size in range(len(symbols), 1, -1):
            for start in range(len(symbols) - size + 1):
                piece = "".join(symbols[start:start + size])
                if piece in vocab:
                    return split(symbols[:start]) + [piece] + split(symbols[start + size:])
        return list(symbols)

    return split(list(start_symbols(word)))
'''

# A mistake with a ``start`` setting (lowercasing, stripping) combines with any encoder whose
# code starts from ``start_symbols(word)``: the setting names the word it starts from.
PREPARED_WORD = {
    "encode-lowercased": "word.lower()",
    "encode-stripped": f"word.strip({PUNCTUATION!r})",
    "encode-non-word-dropped": "''.join(c for c in word if c.isalnum() or c == '_')",
}


def real_code_students() -> list:
    """The :class:`~grader.spec.mistake_book.StudentMistake` entries of this module, each a
    published pattern (``grade audit`` requires its own name)."""
    return [replace(student, published=True) for student in _students()]


def _students() -> list:
    return [
        StudentMistake("no-pair-crash", "train", {"train": TRAIN_NO_PAIR_CHECK}),
        StudentMistake("min-count-two", "train", {"train": TRAIN_MIN_COUNT_TWO}),
        StudentMistake("encode-longest-anywhere", "encode", {"encode": ENCODE_LONGEST_ANYWHERE}),
        StudentMistake("encode-marker-stripped", "encode", settings={"finish": (
            "(tokens[:-1] if tokens[-1] == EOW else tokens[:-1] + [tokens[-1][:-len(EOW)]]) "
            "if EOW and tokens and tokens[-1].endswith(EOW) else tokens")},
            applies=lambda exercise: bool(exercise.conventions.end_of_word)),
        *[
            StudentMistake(mistake_id, "encode",
                           settings={"start": f"list(start_symbols({prepared}))"})
            for mistake_id, prepared in PREPARED_WORD.items()
        ],
    ]


COMBINED: tuple[tuple[str, str], ...] = (
    ("ties-reverse-lexicographic", "merge-by-string-replace"),
    ("marker-glued", "min-count-two"),
    ("ties-reverse-lexicographic", "no-pair-crash"),
    ("ties-first-seen", "marker-glued"),
    ("unweighted-counts", "no-pair-crash"),
    ("encode-lowercased", "encode-longest-anywhere"),
    ("encode-lowercased", "encode-left-to-right"),
)
"""Combinations seen in published code, as ``(first, second)`` catalogue ids."""


def combined(first, second):
    """One submission with the parts of both mistakes (they must change different parts).

    A lowercasing or stripping mistake puts its word into the other encoder's code.
    """
    shared = (set(first.parts) & set(second.parts)) | (set(first.settings) & set(second.settings))
    if shared:
        raise ValueError(f"{first.id} and {second.id} both change {', '.join(sorted(shared))}")
    parts = {**first.parts, **second.parts}
    settings = {**first.settings, **second.settings}
    for prepare in (first, second):
        if prepare.id in PREPARED_WORD and "encode" in parts:
            parts["encode"] = str(parts["encode"]).replace(
                "start_symbols(word)", f"start_symbols({PREPARED_WORD[prepare.id]})"
            )
            settings.pop("start", None)
    return StudentMistake(
        f"{first.id}+{second.id}", first.role, parts, settings,
        applies=lambda exercise: first.applies(exercise) and second.applies(exercise),
        convention={**second.convention, **first.convention},
    )
