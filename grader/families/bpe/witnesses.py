"""Witness inputs of character-BPE mistakes: the lessons' corpora and merges, as run arguments.

Each catalogue entry carries a witness, a small input on which it departs from the
reference, written as the keyword arguments of its ``run``; these build them.
"""

from __future__ import annotations

from reference.corpus import END_OF_WORD
from reference.plain import initial_segmentation, train_bpe
from reference.tie_breaks import FIRST_SEEN, LEXICOGRAPHIC, Pair

LESSON_WORD_COUNTS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
SOLVED_PROBLEM_TEXTS = ["low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3]
LESSON_MERGES = train_bpe(LESSON_WORD_COUNTS, 10, tie_break=FIRST_SEEN)
LESSON_SENTENCE = "subword tokenization handles rare words elegantly"


def train_input(corpus: object, num_merges: int, tie_break: str = LEXICOGRAPHIC) -> dict:
    return {
        "corpus": corpus,
        "num_merges": num_merges,
        "tie_break": tie_break,
        "end_of_word": END_OF_WORD,
    }


def encode_input(word: str, merges: list[Pair] = LESSON_MERGES) -> dict:
    return {"word": word, "merges": merges, "end_of_word": END_OF_WORD}


def lengths_input(sentence: str, merges: list[Pair] = LESSON_MERGES) -> dict:
    return {"sentence": sentence, "merges": merges, "end_of_word": END_OF_WORD}


def words_input(corpus: dict[str, int] = LESSON_WORD_COUNTS) -> dict:
    """The lessons' vocabulary of ``corpus``: each word its characters and the marker."""
    return {"words": initial_segmentation(corpus, END_OF_WORD)}
