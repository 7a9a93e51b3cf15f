"""Known mistakes of ``vocab_tradeoff``, and the student-style function that makes each.

Each mistake is the reference's rows with one step done the way students get it wrong: the
parameters added or counted for two tables, the average taken per word or rounded down, the
size taken as the number of merges, or the base vocabulary counted without its marker. The
student-style function trains and encodes with the program's own ``train``/``encode``; a
mistake replaces one of its expressions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from grader.families.api import Exercise, Mistake, StudentMistake
from reference import encode, train_bpe
from reference.corpus import END_OF_WORD
from reference.tie_breaks import FIRST_SEEN
from reference.vocab_tradeoff import (
    base_vocabulary_size,
    check_documents,
    document_word_counts,
    merges_for_size,
)

TRADEOFF = "vocab_tradeoff"
Row = dict[str, Any]

DECK_DOCUMENTS = ["low low low low low lower lower newest newest newest",
                  "newest newest newest widest widest widest"]
"""The deck's corpus (low x5, lower x2, newest x6, widest x3) as two documents."""
WITNESS = {"corpus": DECK_DOCUMENTS, "sizes": [11, 16, 21], "d_model": 768,
           "tie_break": FIRST_SEEN, "end_of_word": END_OF_WORD}


def _rows_with(*, merges: Callable[[int, int], int] = merges_for_size,
               base_marker: bool = True,
               average: Callable[[int, list[str]], float] = lambda total, docs: total / len(docs),
               params: Callable[[int, int], int] = lambda size, d_model: size * d_model) -> Any:
    def run(corpus: Any, sizes: Any, d_model: int, *, tie_break: str = FIRST_SEEN,
            end_of_word: str = END_OF_WORD) -> list[Row]:
        documents = check_documents(corpus)
        counts = document_word_counts(documents)
        base = base_vocabulary_size(documents, end_of_word if base_marker else "")
        rows = []
        for size in sizes:
            learned = train_bpe(counts, merges(size, base), tie_break=tie_break,
                                end_of_word=end_of_word)
            total = sum(len(encode(word, learned, end_of_word=end_of_word))
                        for document in documents for word in document.split())
            rows.append({"size": size, "avg_tokens": float(average(total, documents)),
                         "params": params(size, d_model)})
        return rows

    return run


def _words(documents: list[str]) -> int:
    return max(1, sum(len(document.split()) for document in documents))


_ENTRIES: tuple[tuple[str, str, str, str, dict[str, Any]], ...] = (
    # id, title, hint, the step it gets wrong, how (keyword arguments of _rows_with)
    ("tradeoff-params-added", "Embedding parameters as size + d_model", (
        "The embedding table has one row of d_model numbers for every token of the "
        "vocabulary. So it holds `size * d_model` parameters (32k tokens at d = 768: "
        "24,576,000), not `size + d_model`."),
     "params", {"params": lambda size, d_model: size + d_model}),
    ("tradeoff-params-doubled", "Embedding parameters counted for two untied tables", (
        "You counted the input embedding and the output projection as two tables. The "
        "exercise, like the deck's table, counts the tied table once: `size * d_model`."),
     "params", {"params": lambda size, d_model: 2 * size * d_model}),
    ("tradeoff-average-per-word", "Tokens averaged per word instead of per document", (
        "You divided the total number of tokens by the number of words, which gives "
        "tokens per word. The trade-off asks for tokens per document: divide by "
        "`len(corpus)`, the number of documents (an empty one counts too)."),
     "average", {"average": lambda total, docs: total / _words(docs)}),
    ("tradeoff-average-floored", "Average rounded down by integer division", (
        "`total // len(corpus)` drops the fraction of the average. Use true division, "
        "`total / len(corpus)`: 95 tokens over 2 documents average 47.5."),
     "average", {"average": lambda total, docs: total // len(docs)}),
    ("tradeoff-size-as-merges", "Vocabulary size used as the number of merges", (
        "A vocabulary of `size` tokens already holds the base symbols (every character "
        "and the end-of-word marker) before any merge. So training learns "
        "`size - base` merges, not `size`."),
     "merges", {"merges": lambda size, base: size}),
    ("tradeoff-base-without-marker", "Base vocabulary counted without the end-of-word marker", (
        "The base vocabulary is every character plus the end-of-word marker, which is "
        "a token too. Leaving it out learns one merge too many for every size."),
     "merges", {"base_marker": False}),
)

MISTAKES: tuple[Mistake, ...] = tuple(
    Mistake(id=mistake_id, title=title, hint=hint, role=TRADEOFF, run=_rows_with(**how),
            witness=WITNESS)
    for mistake_id, title, hint, _, how in _ENTRIES)


def _pairs() -> tuple[Mistake, ...]:
    """Every two mistakes of different steps, made at once."""
    found = []
    for index, (first_id, first_title, first_hint, step, how) in enumerate(_ENTRIES):
        for second_id, second_title, second_hint, other, more in _ENTRIES[index + 1:]:
            if other == step:
                continue
            found.append(Mistake(
                id=f"{first_id}+{second_id}",
                title=f"{first_title}, and {second_title[0].lower() + second_title[1:]}",
                hint=f"Two mistakes at once. {first_hint} Also: {second_hint}",
                role=TRADEOFF, run=_rows_with(**how, **more), witness=WITNESS))
    return tuple(found)


COMBINATIONS = _pairs()


def combinations(options: Any = None) -> tuple[Mistake, ...]:
    """The two-mistake combinations, the same under every tie rule."""
    return COMBINATIONS


# --------------------------------------------------------------------------- student-style code

TRADEOFF_FUNCTION = """
def $tradeoff_name(corpus, sizes, d_model):
    counts = {}
    for document in corpus:
        for word in document.split():
            counts[word] = counts.get(word, 0) + 1
    base = len(set("".join(counts))) + $tradeoff_marker
    rows = []
    for size in sizes:
        merges = $train_name($tradeoff_corpus, $tradeoff_merges)
        total = sum(len($encode_name(word, merges)) for document in corpus for word in document.split())
        words = max(1, sum(len(document.split()) for document in corpus))
        rows.append({"size": size, "avg_tokens": $tradeoff_average, "params": $tradeoff_params})
    return rows
"""
"""The role's function in the student-style program, built on the program's trainer and encoder."""


def settings(exercise: Exercise) -> dict[str, str]:
    """The correct expressions of :data:`TRADEOFF_FUNCTION` for ``exercise``."""
    functions = exercise.roles()
    return {
        "tradeoff_name": functions[TRADEOFF].name if TRADEOFF in functions else TRADEOFF,
        "tradeoff_corpus": "corpus" if exercise.conventions.corpus_form == "texts" else "counts",
        "tradeoff_marker": "(1 if EOW else 0)",
        "tradeoff_merges": "max(0, size - base)",
        "tradeoff_average": "total / len(corpus)",
        "tradeoff_params": "size * d_model",
    }


def _has_marker(exercise: Exercise) -> bool:
    return bool(exercise.conventions.end_of_word)


STUDENTS: tuple[StudentMistake, ...] = (
    StudentMistake("tradeoff-params-added", TRADEOFF, settings={"tradeoff_params": "size + d_model"}),
    StudentMistake("tradeoff-params-doubled", TRADEOFF,
                   settings={"tradeoff_params": "2 * size * d_model"}),
    StudentMistake("tradeoff-average-per-word", TRADEOFF,
                   settings={"tradeoff_average": "total / words"}),
    StudentMistake("tradeoff-average-floored", TRADEOFF,
                   settings={"tradeoff_average": "total // len(corpus)"}),
    StudentMistake("tradeoff-size-as-merges", TRADEOFF, settings={"tradeoff_merges": "size"}),
    StudentMistake("tradeoff-base-without-marker", TRADEOFF, settings={"tradeoff_marker": "0"},
                   applies=_has_marker),
)
