"""The implementations a student's tests run against, answered on the grader's side.

A test file imports ``train_bpe`` and ``encode`` from the module the spec names; each call
is answered here, never in the sandbox, by one :class:`Implementation`: the reference, a
do-nothing one, or a catalogued mistake (its wrong ``train`` with the reference's ``encode``,
or the other way round). The reference and every mistake first check their arguments the
same way (:func:`checked_train`, :func:`checked_encode`), so a bad call fails alike in all of
them and only the mistake itself makes two implementations answer differently; the
arguments are bounded so no test makes the grader's side work long. A do-nothing BPE checks
nothing (that is doing something), so a test that a bad call raises asserts something.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

from grader.families.api import Mistake
from grader.families.bpe_tests.groups import CATALOGUE, TIE_BREAK
from reference import END_OF_WORD, encode as reference_encode, train_bpe as reference_train

TRAIN, ENCODE = "train_bpe", "encode"
FUNCTIONS = (TRAIN, ENCODE)
REFERENCE_ID = "reference"
MAX_CORPUS_CHARS = 20_000
MAX_MERGES = 500
MAX_WORD_CHARS = 200
MAX_MERGE_LIST = 2_000


class BadCall(ValueError):
    """A call the contract does not allow; every implementation refuses it alike."""


def checked_train(corpus: Any, num_merges: Any) -> tuple[list[str], int]:
    if type(corpus) not in (list, tuple) or not all(type(text) is str for text in corpus):
        raise BadCall(f"train_bpe takes a list of texts (str) as corpus, got {_kind(corpus)}")
    if sum(len(text) for text in corpus) > MAX_CORPUS_CHARS:
        raise BadCall(f"the tests' corpora are at most {MAX_CORPUS_CHARS} characters")
    if type(num_merges) is not int or num_merges < 0:
        raise BadCall(f"num_merges must be an int >= 0, got {num_merges!r}")
    if num_merges > MAX_MERGES:
        raise BadCall(f"the tests ask for at most {MAX_MERGES} merges")
    return list(corpus), num_merges


def checked_encode(word: Any, merges: Any) -> tuple[str, list[tuple[str, str]]]:
    if type(word) is not str:
        raise BadCall(f"encode takes a word (str), got {_kind(word)}")
    if len(word) > MAX_WORD_CHARS or any(char.isspace() for char in word):
        raise BadCall(f"encode takes one word (no whitespace, at most {MAX_WORD_CHARS} "
                      "characters)")
    if type(merges) not in (list, tuple) or len(merges) > MAX_MERGE_LIST or not all(
            type(pair) in (list, tuple) and len(pair) == 2
            and all(type(part) is str and part for part in pair) for pair in merges):
        raise BadCall("encode takes merges as a list of (left, right) pairs of non-empty str")
    return word, [(pair[0], pair[1]) for pair in merges]


def _kind(value: Any) -> str:
    return type(value).__name__


@dataclass(frozen=True)
class Implementation:
    """One BPE a test runs against: ``answer(function, args)`` for each served function."""

    id: str
    title: str
    train: Callable[[list[str], int], Any]
    encode: Callable[[str, list[tuple[str, str]]], Any]
    mistake: Mistake | None = None
    checked: bool = True
    """Whether it checks its arguments first (a do-nothing BPE checks nothing either)."""

    @property
    def changed(self) -> frozenset[str]:
        """The served functions whose answers may differ from the reference's: a mistake's
        own function, every function of any other wrong BPE."""
        if self.mistake is None:
            return frozenset(FUNCTIONS) if self.id != REFERENCE_ID else frozenset()
        return frozenset({TRAIN if self.mistake.role == "train" else ENCODE})

    def functions(self) -> dict[str, Callable[..., Any]]:
        """The served functions, arguments passed by position or by name."""
        def train_bpe(corpus: Any, num_merges: Any) -> Any:
            if not self.checked:
                return self.train(corpus, num_merges)
            return self.train(*checked_train(corpus, num_merges))

        def encode(word: Any, merges: Any) -> Any:
            if not self.checked:
                return self.encode(word, merges)
            return self.encode(*checked_encode(word, merges))
        return {TRAIN: train_bpe, ENCODE: encode}

    def answer(self, function: str, args: tuple, kwargs: Optional[dict] = None) -> Any:
        return self.functions()[function](*args, **(kwargs or {}))


def _train(corpus: list[str], num_merges: int) -> list[tuple[str, str]]:
    return reference_train(corpus, num_merges, tie_break=TIE_BREAK, end_of_word=END_OF_WORD)


def _encode(word: str, merges: list[tuple[str, str]]) -> list[str]:
    return reference_encode(word, merges, end_of_word=END_OF_WORD)


REFERENCE = Implementation(REFERENCE_ID, "the correct BPE", _train, _encode)
DO_NOTHING = (
    Implementation("do-nothing-empty", "a do-nothing BPE (no merges, no tokens)",
                   lambda corpus, num_merges: [], lambda word, merges: [], checked=False),
    Implementation("do-nothing-characters", "a do-nothing BPE (no merges, every word its "
                   "characters and </w>)",
                   lambda corpus, num_merges: [], lambda word, merges: list(word) + [END_OF_WORD],
                   checked=False),
)


def of_mistake(mistake: Mistake) -> Implementation:
    """The reference with the mistake's function in place of its own."""
    if mistake.role == "train":
        def train(corpus: list[str], num_merges: int) -> Any:
            return mistake.run(corpus, num_merges, tie_break=TIE_BREAK, end_of_word=END_OF_WORD)
        return Implementation(mistake.id, mistake.title, train, _encode, mistake)

    def encode(word: str, merges: list[tuple[str, str]]) -> Any:
        return mistake.run(word, merges, end_of_word=END_OF_WORD)
    return Implementation(mistake.id, mistake.title, _train, encode, mistake)


MISTAKEN: dict[str, Implementation] = {mistake_id: of_mistake(mistake)
                                       for mistake_id, mistake in CATALOGUE.items()}
