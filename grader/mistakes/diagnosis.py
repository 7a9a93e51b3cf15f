"""Naming a student's mistake: the catalogued mistakes that reproduce their output exactly.

When a check fails on some input, every known mistake of that role (``grader.mistakes.catalogue``)
is run on the same input and kept only if its output *equals* the student's, so a diagnosis
is never a guess. This is trusted-side code: the student's output arrives as plain values
(already shape-checked by the grader), and nothing here runs student code.

A mistake that raises, or runs past a small time limit, is skipped. An output equal to the
reference's is never diagnosed (a mistake that agrees with the reference on this input says
nothing about the student).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from grader.mistakes.catalogue import Mistake, mistakes_for
from grader.result import Diagnosis
from grader.spec import Exercise
from reference import END_OF_WORD, encode, train_bpe
from reference.sequence_lengths import sequence_lengths

__all__ = [
    "DEFAULT_TIME_LIMIT",
    "diagnose",
    "diagnose_encode",
    "diagnose_lengths",
    "diagnose_train",
    "diagnoses",
    "mistakes_for",
]

DEFAULT_TIME_LIMIT = 1.0
"""Seconds one mistake may run on one input before it is skipped."""

_NOT_COMPARABLE = object()


def diagnose_train(
    actual_merges: object,
    corpus: object,
    num_merges: int,
    *,
    tie_break: str,
    end_of_word: str = END_OF_WORD,
    expected: object = None,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
) -> list[Mistake]:
    """Training mistakes whose merges equal ``actual_merges`` on this corpus.

    The tie-break entry equal to the exercise's own ``tie_break`` is skipped. ``expected``
    (the reference's merges) is computed when not given.
    """
    inputs = {
        "corpus": corpus,
        "num_merges": num_merges,
        "tie_break": tie_break,
        "end_of_word": end_of_word,
    }
    candidates = [m for m in mistakes_for("train") if m.tie_break != tie_break]
    return _matching(
        candidates, inputs, actual_merges, expected, lambda: train_bpe(**inputs),
        _canonical_merges, time_limit,
    )


def diagnose_encode(
    actual_tokens: object,
    word: str,
    merges: Sequence[tuple[str, str]],
    *,
    end_of_word: str = END_OF_WORD,
    expected: object = None,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
) -> list[Mistake]:
    """Encoding mistakes whose tokens equal ``actual_tokens`` for ``word`` with ``merges``."""
    inputs = {"word": word, "merges": merges, "end_of_word": end_of_word}
    return _matching(
        mistakes_for("encode"), inputs, actual_tokens, expected, lambda: encode(**inputs),
        _canonical_tokens, time_limit,
    )


def diagnose_lengths(
    actual_lengths: object,
    sentence: str,
    merges: Sequence[tuple[str, str]],
    *,
    end_of_word: str = END_OF_WORD,
    expected: object = None,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
) -> list[Mistake]:
    """Sequence-length mistakes whose counts equal ``actual_lengths`` for ``sentence``."""
    inputs = {"sentence": sentence, "merges": merges, "end_of_word": end_of_word}
    return _matching(
        mistakes_for("sequence_lengths"), inputs, actual_lengths, expected,
        lambda: sequence_lengths(**inputs), _canonical_lengths, time_limit,
    )


_BY_ROLE: dict[str, Callable[..., list[Mistake]]] = {
    "train": diagnose_train,
    "encode": diagnose_encode,
    "sequence_lengths": diagnose_lengths,
}


def diagnose_other(role: str, actual: object, inputs: Mapping[str, Any], *,
                   time_limit: float | None = DEFAULT_TIME_LIMIT, **options: Any) -> list[Mistake]:
    """Mistakes of a role kept outside the BPE catalogue (WordPiece, byte-level) that
    reproduce ``actual``; ``options`` the module's runs do not take are left out."""
    module = _other_module(role)
    given = {**inputs, **{k: v for k, v in options.items() if k in module.OPTIONS}}
    return _matching(
        mistakes_for(role), given, actual, None, lambda: module.REFERENCES[role](**given),
        lambda value: _NOT_COMPARABLE if (form := module.canonical(role, value)) is None else form,
        time_limit,
    )


def _other_module(role: str) -> Any:
    from grader.mistakes import byte_level, wordpiece

    return next(module for module in (wordpiece, byte_level) if role in module.REFERENCES)


def diagnose(role: str, actual: object, inputs: Mapping[str, Any], **options: Any) -> list[Mistake]:
    """Dispatch on ``role``; ``inputs`` are the keyword arguments of that role's ``run``."""
    if role not in _BY_ROLE and role in {m.role for m in mistakes_for(role)}:
        return diagnose_other(role, actual, inputs, **options)
    if role not in _BY_ROLE:
        raise ValueError(f"role {role!r} is not one of {', '.join(_BY_ROLE)}")
    return _BY_ROLE[role](actual, **inputs, **options)


def name_mistakes(exercise: Exercise, role: str, actual: Any, given: Mapping[str, Any]) -> list[Diagnosis]:
    """Every known mistake that reproduces ``actual`` on ``given`` under ``exercise``'s conventions.

    ``given`` holds the role's inputs with merges as bare pairs: ``corpus`` and ``num_merges``
    for train, ``word`` and ``merges`` for encode, ``sentence`` and ``merges`` for
    sequence_lengths.
    """
    options: dict[str, Any] = {"end_of_word": exercise.conventions.end_of_word}
    if role in ("train", "train_wordpiece", "first_divergence"):
        options["tie_break"] = exercise.conventions.tie_break
    return diagnoses(diagnose(role, actual, given, **options))


def diagnoses(mistakes: Iterable[Mistake]) -> list[Diagnosis]:
    """The mistakes as result-model diagnoses, the hint as the message."""
    return [Diagnosis(id=m.id, title=m.title, message=m.hint) for m in mistakes]


# --- matching ------------------------------------------------------------------------------


def _matching(
    candidates: Iterable[Mistake],
    inputs: Mapping[str, Any],
    actual: object,
    expected: object,
    compute_expected: Callable[[], object],
    canonical: Callable[[object], object],
    time_limit: float | None,
) -> list[Mistake]:
    actual_form = canonical(actual)
    if actual_form is _NOT_COMPARABLE:
        return []
    if expected is None:
        expected = _run_bounded(compute_expected, time_limit)
    if expected is _NOT_COMPARABLE or canonical(expected) == actual_form:
        return []
    return [
        mistake
        for mistake in candidates
        if canonical(_run_bounded(lambda: mistake.output_on(inputs), time_limit)) == actual_form
    ]


def _run_bounded(compute: Callable[[], object], seconds: float | None) -> object:
    """``compute()``, or ``_NOT_COMPARABLE`` if it raised or ran longer than ``seconds``."""
    started = time.perf_counter()
    try:
        with _time_limit(seconds):
            output = compute()
    except Exception:  # a mistake that crashes on this input reproduces nothing
        return _NOT_COMPARABLE
    if seconds is not None and time.perf_counter() - started > seconds:
        return _NOT_COMPARABLE
    return output


class _TimeLimitExceeded(Exception):
    pass


@contextmanager
def _time_limit(seconds: float | None) -> Iterator[None]:
    """Interrupt the body after ``seconds`` where a timer signal can be used.

    Only the main thread can receive signals, and an interval timer someone else set must not
    be disturbed; elsewhere the body runs to completion and the caller discards a late result.
    """
    if seconds is None or not _can_interrupt():
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise _TimeLimitExceeded(f"over {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _can_interrupt() -> bool:
    return (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    )


# --- canonical forms -----------------------------------------------------------------------


def _canonical_merges(value: object) -> object:
    """A list of ``(str, str)`` tuples (2-item lists accepted), else ``_NOT_COMPARABLE``."""
    if not isinstance(value, (list, tuple)):
        return _NOT_COMPARABLE
    pairs = []
    for item in value:
        if not (
            isinstance(item, (list, tuple))
            and len(item) == 2
            and all(isinstance(part, str) for part in item)
        ):
            return _NOT_COMPARABLE
        pairs.append((item[0], item[1]))
    return pairs


def _canonical_tokens(value: object) -> object:
    if not isinstance(value, (list, tuple)) or not all(isinstance(t, str) for t in value):
        return _NOT_COMPARABLE
    return list(value)


def _canonical_lengths(value: object) -> object:
    """A dict of str -> int (no bools), else ``_NOT_COMPARABLE``."""
    if not isinstance(value, Mapping):
        return _NOT_COMPARABLE
    for key, count in value.items():
        if not isinstance(key, str) or isinstance(count, bool) or not isinstance(count, int):
            return _NOT_COMPARABLE
    return dict(value)
