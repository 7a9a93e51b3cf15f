"""The ``vocab_tradeoff`` role: tokens per document and embedding parameters per vocabulary size.

The student's function takes documents, vocabulary sizes and ``d_model`` and returns one row
``{"size", "avg_tokens", "params"}`` per size, in order (:mod:`reference.vocab_tradeoff`
defines them). Averages are compared to within a relative ``1e-9``. The rows are judged
against the reference and, when the student's own trainer or encoder departs from the
reference's, against the rows that trainer and encoder give (:func:`own_rows`): a mistake
of training or encoding is charged by its own milestone, not again here. Rows whose
averages are all character-level (no merge ever applied) or all word-level (every word one
token) are what do-nothing code gives.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional

from grader.families.api import Calls, Exercise, ShapeError, describe, finite_float
from reference import encode as reference_encode
from reference import train_bpe
from reference.vocab_tradeoff import (
    base_vocabulary_size,
    document_word_counts,
    merges_for_size,
    tradeoff_rows,
    vocab_tradeoff,
)

TRADEOFF, TRAIN, ENCODE = "vocab_tradeoff", "train", "encode"
ROW_KEYS = ("size", "avg_tokens", "params")
RELATIVE_TOLERANCE = 1e-9
Row = dict[str, Any]
Pair = tuple[str, str]

NO_WORK = ("no points until {name} gets right a case or generated input where some size's "
           "merges shorten the documents without making every word one token")


# --------------------------------------------------------------------------- the answer


def send(exercise: Exercise, args: tuple) -> list:
    documents, sizes, d_model = args
    return [list(documents), list(sizes), d_model]


def shape(exercise: Exercise, value: Any, name: str) -> list[Row]:
    """The rows as ``{"size": int, "avg_tokens": float, "params": int}`` dicts, or ShapeError."""
    expected = (f'{name} must return a list of dicts {{"size": int, "avg_tokens": float, '
                f'"params": int}}, one per size')
    if type(value) is not list:
        raise ShapeError(f"{expected}; it returned {describe(value)}")
    rows = []
    for index, row in enumerate(value):
        if type(row) is not dict:
            raise ShapeError(f"{expected}; item {index} is {describe(row)}")
        if set(row) != set(ROW_KEYS):
            missing = [repr(key) for key in ROW_KEYS if key not in row]
            extra = sorted(repr(key) for key in row if key not in ROW_KEYS)
            found = "; ".join(part for part in (
                "missing " + ", ".join(missing) if missing else "",
                "unexpected " + ", ".join(extra) if extra else "") if part)
            raise ShapeError(f"{expected}; item {index} keys: {found}")
        for key in ("size", "params"):
            if type(row[key]) is not int:
                raise ShapeError(f"{expected}; in item {index} {key!r} is {describe(row[key])}")
        average = finite_float(row["avg_tokens"])
        if average is None:
            raise ShapeError(f"{expected}; in item {index} 'avg_tokens' is "
                             f"{describe(row['avg_tokens'])}")
        rows.append({"size": row["size"], "avg_tokens": average, "params": row["params"]})
    return rows


def rows_match(expected: list[Row], actual: Any) -> bool:
    """Whether ``actual`` has the rows ``expected`` has, averages to within the tolerance."""
    if not isinstance(actual, list) or len(actual) != len(expected):
        return False
    for want, got in zip(expected, actual):
        if not isinstance(got, dict) or set(got) != set(ROW_KEYS):
            return False
        if want["size"] != got["size"] or want["params"] != got["params"]:
            return False
        if not math.isclose(want["avg_tokens"], got["avg_tokens"], rel_tol=RELATIVE_TOLERANCE,
                            abs_tol=RELATIVE_TOLERANCE):
            return False
    return True


def canonical_rows(value: Any) -> Any:
    """Rows with averages rounded to 9 decimals, for comparing a mistake's output exactly."""
    return [{**row, "avg_tokens": round(row["avg_tokens"], 9)} for row in value]


def reference_rows(exercise: Exercise, documents: Any, sizes: Any, d_model: int) -> list[Row]:
    conventions = exercise.conventions
    return [dict(row) for row in _reference_rows(
        tuple(documents), tuple(sizes), d_model, conventions.tie_break, conventions.end_of_word)]


@lru_cache(maxsize=4096)
def _reference_rows(documents: tuple, sizes: tuple, d_model: int, tie_break: str,
                    end_of_word: str) -> tuple:
    return tuple(vocab_tradeoff(list(documents), list(sizes), d_model, tie_break=tie_break,
                                end_of_word=end_of_word))


def training_corpus(exercise: Exercise, documents: Any) -> Any:
    """The documents as the exercise's trainer takes a corpus: the texts, or word counts in
    the order the words first occur."""
    if exercise.conventions.corpus_form == "texts":
        return list(documents)
    return document_word_counts(documents)


def row_difference(expected: list[Row], actual: list[Row]) -> str:
    """The first row that differs, in words."""
    if len(actual) != len(expected):
        return f"{len(actual)} rows for {len(expected)} sizes (one row per size, in order)."
    for want, got in zip(expected, actual):
        if not rows_match([want], [got]):
            wrong = [key for key in ROW_KEYS if not rows_match([want], [{**want, key: got[key]}])]
            parts = ", ".join(f"{key} is {got[key]!r} (expected {want[key]!r})" for key in wrong)
            return f"in the row of size {want['size']}: {parts}."
    return ""


def details(documents: Any, sizes: Any, d_model: int, expected: list[Row],
            actual: Optional[list[Row]]) -> dict[str, Any]:
    found: dict[str, Any] = {"kind": "tradeoff",
                             "input": {"corpus": list(documents), "sizes": list(sizes),
                                       "d_model": d_model},
                             "expected": expected}
    if actual is not None:
        found["actual"] = actual
    return found


# --------------------------------------------------------------------------- follow-through


@dataclass(frozen=True)
class OwnRows:
    """The rows right for the student's own trainer and encoder, and where those depart."""

    expected: list[Row]
    departure: str

    def passed_note(self, calls: Calls) -> str:
        return (f"your rows are right for your own {calls.function_name(TRAIN)} and "
                f"{calls.function_name(ENCODE)}; {self.departure}, which their own milestones "
                "charge.")

    def failed_note(self, calls: Calls, reference: list[Row]) -> str:
        return (f"Expected rows are those of your own {calls.function_name(TRAIN)} and "
                f"{calls.function_name(ENCODE)} ({self.departure}; the reference's rows are "
                f"{reference!r}).")


class _NoAnswer(Exception):
    """The student's trainer or encoder gave no usable answer: no follow-through."""


def own_rows(calls: Calls, documents: Any, sizes: Any, d_model: int,
             reference: list[Row]) -> Optional[OwnRows]:
    """The rows the student's own ``train`` and ``encode`` give, or None when they are the
    reference's (or either function is missing or fails on these inputs)."""
    exercise = calls.exercise
    roles = exercise.roles()
    if TRAIN not in roles or ENCODE not in roles:
        return None
    if calls.missing_message(TRAIN) or calls.missing_message(ENCODE):
        return None
    marker = exercise.conventions.end_of_word
    corpus = training_corpus(exercise, documents)
    base = base_vocabulary_size(documents, marker)
    asked = [merges_for_size(size, base) for size in sizes]
    calls.prefetch([(TRAIN, (corpus, count)) for count in asked])
    words = list(document_word_counts(documents))
    trained = [_answer(calls, TRAIN, corpus, count) for count in asked]
    if trained.count(None):
        return None
    calls.prefetch([(ENCODE, (word, merges)) for merges in trained for word in words])
    departures: list[str] = []

    def train(counts: dict[str, int], num_merges: int) -> list[Pair]:
        merges = trained[asked.index(num_merges)]
        if merges is None:
            raise _NoAnswer
        return merges

    def tokenize(word: str, merges: list[Pair]) -> list[str]:
        tokens = _answer(calls, ENCODE, word, merges)
        if tokens is None:
            raise _NoAnswer
        right = reference_encode(word, merges, end_of_word=marker)
        if tokens != right and not departures:
            departures.append(f"{calls.function_name(ENCODE)}({word!r}, merges) gives {tokens!r}, "
                              f"not {right!r}")
        return tokens

    try:
        rows = tradeoff_rows(list(documents), list(sizes), d_model, train, tokenize, marker)
    except _NoAnswer:
        return None
    if rows_match(reference, rows):
        return None
    departure = (_training_departure(calls, asked, trained, reference_merges_of(exercise, corpus, asked))
                 or (departures[0] if departures else "your functions differ from the reference's"))
    return OwnRows(rows, departure)


def own_failure(calls: Calls, documents: Any, sizes: Any) -> Optional[str]:
    """Why the student's own ``train`` or ``encode`` fails on what these rows need (the call
    and its failure), or None when both answer."""
    exercise = calls.exercise
    roles = exercise.roles()
    if TRAIN not in roles or ENCODE not in roles:
        return None
    if calls.missing_message(TRAIN) or calls.missing_message(ENCODE):
        return None
    corpus = training_corpus(exercise, documents)
    base = base_vocabulary_size(documents, exercise.conventions.end_of_word)
    for count in dict.fromkeys(merges_for_size(size, base) for size in sizes):
        trained = calls.remembered(TRAIN, corpus, count)
        if not trained.ok:
            return f"{calls.function_name(TRAIN)}(counts, {count}) fails: {trained.failure}"
        for word in document_word_counts(documents):
            tokens = calls.remembered(ENCODE, word, trained.value)
            if not tokens.ok:
                return f"{calls.function_name(ENCODE)}({word!r}, merges) fails: {tokens.failure}"
    return None


def _answer(calls: Calls, role: str, *args: Any) -> Any:
    answer = calls.remembered(role, *args)
    return answer.value if answer.ok else None


def reference_merges_of(exercise: Exercise, corpus: Any, asked: list[int]) -> list[list[Pair]]:
    """The reference's merges on ``corpus`` for each number of merges asked."""
    conventions = exercise.conventions
    return [train_bpe(corpus, count, tie_break=conventions.tie_break,
                      end_of_word=conventions.end_of_word) for count in asked]


def _training_departure(calls: Calls, asked: list[int], trained: list,
                        right: list[list[Pair]]) -> str:
    for count, theirs, ours in zip(asked, trained, right):
        if list(theirs) != list(ours):
            return (f"{calls.function_name(TRAIN)} learns {len(theirs)} merges for "
                    f"num_merges={count} that differ from the reference's")
    return ""


# --------------------------------------------------------------------------- no work


def extremes(exercise: Exercise, documents: Any) -> tuple[float, float]:
    """The character-level and word-level averages of the documents."""
    marker = 1 if exercise.conventions.end_of_word else 0
    words = [word for document in documents for word in document.split()]
    count = max(1, len(documents))
    return sum(len(word) + marker for word in words) / count, len(words) / count


def trivial_rows(exercise: Exercise, documents: Any, expected: Any) -> bool:
    """Whether ``expected`` is what do-nothing code returns: no rows, or every average the
    character-level one or every average the word-level one."""
    if not isinstance(expected, list) or not expected:
        return True
    try:
        averages = [row["avg_tokens"] for row in expected]
    except (TypeError, KeyError):
        return True
    return any(all(math.isclose(average, extreme, rel_tol=RELATIVE_TOLERANCE)
                   for average in averages) for extreme in extremes(exercise, documents))


# --------------------------------------------------------------------------- grade check


def verify_case(exercise: Exercise, index: int, case: Any, report: Any) -> None:
    """A case's written trade-off rows checked against the reference (``grade check``)."""
    tradeoff = getattr(case, "tradeoff", None)
    if tradeoff is None:
        return
    if tradeoff.rows is None:
        report.computed += 1
        return
    report.verified += 1
    right = reference_rows(exercise, tradeoff.documents, tradeoff.sizes, tradeoff.d_model)
    written = [row.model_dump() for row in tradeoff.rows]
    loc = ("cases", index, "tradeoff", "rows")
    if len(written) != len(right):
        report.problems.append(exercise.problem(loc, (
            f"has {len(written)} rows for {len(right)} sizes (one row per size, in order)")))
        return
    for number, (want, got) in enumerate(zip(right, written)):
        if not rows_match([want], [got]):
            report.problems.append(exercise.problem(loc + (number,), (
                f"is {want!r} for these documents, not {got!r} (avg_tokens: tokens per "
                "document after size - base merges; params: size * d_model)")))
