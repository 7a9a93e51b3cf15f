"""Generated inputs, and the bounded search over them the differential and property checks use.

A role that is checked on generated inputs says how they are made in its :class:`Generated`
record (its family's strategy, a few targeted inputs, how to show one in feedback). Hypothesis
generates them in the trusted process; the first inputs of a run are generated once per process
and shared by every check, and a grading's helper (:mod:`grader.grading.ahead`) may generate
them on another core and hand them over one by one, with reference values it computed for them.

:func:`smallest_failure` is the search. It is reproducible (seeded from the grader's seed
secret, or derandomized without one; no example database, no deadline, independent of which
grader modules happen to be loaded) and bounded: at most the role's count of inputs, and after
a failure a fixed number of shrinking evaluations, or none at all when a call ran out of time
(each further try would cost a full time-out). A role whose family gives its inputs'
reductions is shrunk over them in batched rounds (:mod:`grader.grading.shrink`); the others by
Hypothesis, whose searches a process replays from memory where they would run as before
(:mod:`grader.grading.search_replay`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from random import Random
from typing import TYPE_CHECKING, Any, Generic, Optional, TypeVar

from grader.grading import ahead, search_replay, shrink
from grader.grading.lazy_module import LazyModule
from grader.spec.hooks import StudentAnswer
from grader.spec.hooks import Failure, Generated, Judge, Shown
from grader.spec import Exercise
from grader.spec.registry import role_of

if TYPE_CHECKING:
    from grader.grading.student_calls import StudentCalls

# Imported on first use: a grading whose inputs come ready from its helper
# (:mod:`grader.grading.ahead`) needs Hypothesis only to shrink a failure.
hypothesis = LazyModule("hypothesis")
st = LazyModule("hypothesis.strategies")
hypothesis_errors = LazyModule("hypothesis.errors")

T = TypeVar("T")

SHRINK_EVALUATIONS = 120
PREFETCH_ROUNDS = 64
"""Batched rounds of calls that depend on earlier answers, at most (:func:`prefetch`)."""
FAILURES_KEPT = 12
DRAWS_PER_EXAMPLE = 2
TARGETED_AT = 5
"""Where the targeted inputs go among the generated ones: early, so every check judges them."""


def generated(exercise: Exercise, role: str) -> Generated:
    """The :class:`Generated` record of ``role``'s function in ``exercise``."""
    record = role_of(exercise, role).generated
    if record is None:
        raise KeyError(f"role {role!r} has no generated inputs")
    return record


# --------------------------------------------------------------------------- settings


def search_settings(examples: int) -> Any:
    return hypothesis.settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        phases=(hypothesis.Phase.generate, hypothesis.Phase.shrink),
        suppress_health_check=list(hypothesis.HealthCheck),
        verbosity=hypothesis.Verbosity.quiet,
        print_blob=False,
    )


def generation_settings(examples: int) -> Any:
    """The search settings without shrinking: generating inputs stops at the first "found"."""
    return hypothesis.settings(search_settings(examples), phases=(hypothesis.Phase.generate,))


@contextmanager
def independent_of_local_source() -> Iterator[None]:
    """Generation that depends on the settings alone, not on which grader modules are loaded.

    Hypothesis mixes literals found in "local" (not installed) source files into what it
    generates, and caches them under ``./.hypothesis/`` in the working directory. For a
    grader that would make the inputs depend on how it was installed, and write into the
    student's directory; both are switched off here. Versions without the feature are
    left alone.
    """
    try:
        from hypothesis.internal.conjecture import providers

        empty = providers.Constants()
        original = providers._get_local_constants
        cache = providers.CONSTANTS_CACHE.cache
    except (ImportError, AttributeError):
        yield
        return
    providers._get_local_constants = lambda: empty
    cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = original
        cache.clear()


def _random(seed: Optional[int]) -> Optional[Random]:
    """The source of Hypothesis's choices: seeded (a fresh one each time, so every search
    under one seed sees the same inputs), or None for the plain derandomized search."""
    return None if seed is None else Random(seed)


# --------------------------------------------------------------------------- the inputs


def generated_examples(exercise: Exercise, role: str, count: int, seed: Optional[int] = None,
                       on_settled: Optional[Callable[[Any], None]] = None) -> list[Any]:
    """The first ``count`` distinct inputs Hypothesis generates for ``role`` under the
    exercise's settings (from at most ``DRAWS_PER_EXAMPLE`` times as many draws), with the
    targeted inputs among them (:func:`in_judged_order`).

    They depend only on those settings and ``seed`` (derived from the grader's seed secret,
    :mod:`grader.grading.secrets`; None means the public derandomized sequence), so they are
    generated once per process and shared by every check and every submission graded in it
    (callers must not mutate them). While they are generated, ``on_settled`` is given each
    input, in order, as soon as its place in the list is certain.
    """
    record = generated(exercise, role)
    key = _generated_key(exercise, role, count, seed)
    if key not in _GENERATED and count == record.count(exercise):
        _install(record, ahead.collect(ahead.generated_key(role, seed)))
    if key not in _GENERATED:
        seen: dict[str, Any] = {}
        settled = _Settled(record.targeted(exercise), count, on_settled)

        def record_example(example: Any) -> bool:  # distinct inputs only: a repeat tests nothing new
            key = repr(example)
            if len(seen) < count and key not in seen:
                seen[key] = example
                settled.update(list(seen.values()), finished=False)
            return len(seen) >= count  # "found": enough inputs, so the search stops here

        try:
            with independent_of_local_source():
                hypothesis.find(record.strategy(exercise), record_example,
                                settings=generation_settings(count * DRAWS_PER_EXAMPLE),
                                random=_random(seed))
        except hypothesis_errors.NoSuchExample:
            pass
        _GENERATED[key] = tuple(settled.update(list(seen.values()), finished=True))
    return list(_GENERATED[key])


def in_judged_order(generated: list[Any], targeted: list[Any], count: int) -> list[Any]:
    """The inputs as checks judge them: the targeted ones at ``TARGETED_AT`` among the
    generated ones, ``count`` in all."""
    return (generated[:TARGETED_AT] + targeted + generated[TARGETED_AT:])[:count]


@dataclass
class _Settled:
    """Passes each input to ``report`` once its place in the judged order is certain: the
    generated ones before ``TARGETED_AT`` as they come, the rest once the targeted inputs
    are placed (or generating ends)."""

    targeted: list[Any]
    count: int
    report: Optional[Callable[[Any], None]]
    reported: int = 0

    def update(self, generated: list[Any], finished: bool) -> list[Any]:
        order = in_judged_order(generated, self.targeted, self.count)
        certain = order if finished or len(generated) >= TARGETED_AT else generated
        if self.report is not None:
            for example in certain[self.reported:]:
                self.report(example)
        self.reported = max(self.reported, len(certain))
        return order


def arriving_examples(exercise: Exercise, role: str, count: int, seed: Optional[int],
                      judged: Optional[int] = None) -> Iterator[Any]:
    """The first ``judged`` (default: all) of :func:`generated_examples`, each as soon as it
    is known: while a helper still generates them, as it finds them; so a check can judge
    the first inputs while the later ones are being generated."""
    record = generated(exercise, role)
    delivered = 0
    key = _generated_key(exercise, role, count, seed)
    if key not in _GENERATED and count == record.count(exercise):
        for example, values in ahead.arriving(ahead.generated_key(role, seed)):
            if judged is not None and delivered >= judged:
                return
            record.install(values)
            delivered += 1
            yield example
    yield from generated_examples(exercise, role, count, seed)[delivered:judged]


_GENERATED: dict[tuple, tuple] = {}


def _generated_key(exercise: Exercise, role: str, count: int, seed: Optional[int]) -> tuple:
    return (role, generated(exercise, role).settings(exercise), count, seed)


def generated_ahead(exercise: Exercise, role: str, seed: Optional[int],
                    progress: Optional[Callable[[Any], None]] = None) -> tuple:
    """The role's generated inputs and the reference values computed for them, in the form
    :func:`generated_examples` takes them from a helper (:mod:`grader.grading.ahead`).
    ``progress`` is given ``(input, values)`` for each input as soon as it is settled, the
    form :func:`arriving_examples` takes."""
    record = generated(exercise, role)
    count = record.count(exercise)

    def values_of(example: Any) -> Mapping:
        return record.ahead(exercise, example)

    on_settled = None if progress is None else (lambda example: progress((example, values_of(example))))
    examples = generated_examples(exercise, role, count, seed, on_settled=on_settled)
    values: dict = {}
    for example in examples:
        values.update(values_of(example))
    return _generated_key(exercise, role, count, seed), tuple(examples), values


def _install(record: Generated, delivered: Optional[tuple]) -> None:
    if delivered is not None:
        key, examples, values = delivered
        _GENERATED.setdefault(key, examples)
        record.install(values)


# --------------------------------------------------------------------------- the search


class _EvaluationsSpent(BaseException):
    """Ends Hypothesis's search once its evaluations are spent: nothing it would try next is
    judged any more, so nothing it would try can change the result. (Not an ``Exception``,
    which Hypothesis would take for a failure of the condition and shrink.)"""


@dataclass
class _Shrink(Generic[T]):
    """Hypothesis's condition while shrinking: memoised, and bounded in evaluations; keeps
    the smallest failure judged (shortest as printed)."""

    judge: Judge
    memo: dict[str, Optional[Failure]] = field(default_factory=dict)
    smallest: Optional[Failure] = None
    evaluations_after_failure: int = 0
    stopped: bool = False

    def fails(self, example: T) -> bool:
        key = repr(example)
        if key in self.memo:  # Hypothesis replays its final example: answer it the same way
            return self.memo[key] is not None
        if self.stopped:
            raise _EvaluationsSpent
        if self.smallest is not None:
            self.evaluations_after_failure += 1
            self.stopped = self.evaluations_after_failure >= SHRINK_EVALUATIONS
        failure = self.judge(example)
        self.memo[key] = failure
        if failure is not None:
            if self.smallest is None or shrink.size(example) < shrink.size(self.smallest.example):
                self.smallest = failure
            self.stopped = self.stopped or failure.answer.kind in shrink.EXPENSIVE_KINDS
        return failure is not None


def prefetch(calls: "StudentCalls", judge: Judge, examples: list) -> None:
    """Make the student's answers that ``judge`` asks for on ``examples`` in one batched
    call per function (:meth:`StudentCalls.prefetch`), so judging them calls nothing more.

    A judge whose next call depends on an answer (a training loop run with the student's own
    helpers) asks for it once that answer is known: such calls follow in further batched
    rounds, one per step of the chain, for as long as every call of the round before was
    answered (at most :data:`PREFETCH_ROUNDS`).

    The fresh calls a judge makes once those answers are known (a determinism check's second
    call) follow in one more batch, in the reverse order: no input then meets in that child the
    calls it came after in the first one, so an answer that depends on what ran before it in
    the same process still shows as two different answers."""
    def attempts() -> Iterator[Callable[[], Any]]:
        return (lambda example=example: judge(example) for example in examples)

    prefetch_remembered(calls, attempts)
    calls.prefetch_calls(calls.asked_first(attempts(), fresh_calls=True, remembered=False)[::-1])


def prefetch_remembered(calls: "StudentCalls",
                        attempts: Callable[[], Iterator[Callable[[], Any]]]) -> None:
    """Remember the answers ``attempts()`` (judges, each on its input) ask for, in batched
    rounds, one per step of a chain of calls that depend on earlier answers, for as long as
    every call of the round before was answered (at most :data:`PREFETCH_ROUNDS`)."""
    asked: set[str] = set()
    wanted = calls.asked_first(attempts())
    for _ in range(PREFETCH_ROUNDS):
        new = [call for call in wanted if repr(call) not in asked]
        asked.update(repr(call) for call in new)
        # Answers a batch left out (after an exit, a crash or a time-out) are not tried again
        # here: they are called one by one when asked for, and no further round is made.
        if not new or not calls.prefetch(new):
            break
        wanted = calls.asked_first(attempts())


def smallest_failure(
    exercise: Exercise, role: str, judge: Judge, judged: Optional[int] = None,
    seed: Optional[int] = None, calls: Optional["StudentCalls"] = None,
) -> Optional[Failure]:
    """The smallest generated input ``judge`` fails on, or None when it passes them all.

    The role's count of inputs is generated once; the first ``judged`` of them (default:
    all) are judged in order, the student's answers being remembered so checks sharing
    inputs share calls (with ``calls``, made ahead in one batch, :func:`prefetch`); ``seed``
    picks the inputs (see :func:`generated_examples`). Once one
    fails, the rest are judged too, up to :data:`FAILURES_KEPT` failures (kept in
    ``first.others``: more evidence for naming the mistake). Only on a failure is it shrunk:
    over the role's reductions from the smallest failing input, or else by Hypothesis
    searching again over the same inputs.
    """
    record = generated(exercise, role)
    examples = record.count(exercise)
    if calls is not None:
        prefetch(calls, judge, generated_examples(exercise, role, examples, seed)[:judged])
    failures: list[Failure] = []
    for example in arriving_examples(exercise, role, examples, seed, judged):
        failure = judge(example)
        if failure is not None:
            failures.append(failure)
            if failure.answer.kind in shrink.EXPENSIVE_KINDS or len(failures) >= FAILURES_KEPT:
                break
    if not failures:
        return None
    first = failures[0]
    first.others = failures[1:]
    if first.answer.kind in shrink.EXPENSIVE_KINDS:
        return first
    if record.reductions is not None:
        smallest = shrink.shrink(
            min(failures, key=lambda failure: shrink.size(failure.example)), judge,
            lambda example: record.reductions(exercise, example),
            None if calls is None else (lambda candidates: prefetch(calls, judge, candidates)),
        )
        return _from_first(first, smallest)
    search = _Shrink(judge)
    how, found = search_replay.replayed(
        ("shrink", *_generated_key(exercise, role, examples, seed)), search.fails,
        lambda condition: _found(record.strategy(exercise), condition, examples, seed),
        ending=(_EvaluationsSpent,))
    if how == "found":
        smallest = search.memo.get(repr(found)) or search.smallest
    elif how == "none":
        smallest = None
    else:  # evaluations spent, or e.g. code that answers differently on a replay
        smallest = search.smallest
    return _from_first(first, smallest)


def _found(strategy: Any, condition: Callable[[Any], bool], examples: int,
           seed: Optional[int]) -> search_replay.Outcome:
    """How Hypothesis's search for an input ``condition`` holds on ends: ``("found",
    input)``, ``("spent", None)``, ``("none", None)`` or ``("error", None)``."""
    try:
        with independent_of_local_source():
            return "found", hypothesis.find(strategy, condition, settings=search_settings(examples),
                                            random=_random(seed))
    except _EvaluationsSpent:
        return "spent", None
    except hypothesis_errors.NoSuchExample:
        return "none", None
    except hypothesis_errors.HypothesisException:
        return "error", None


def _from_first(first: Failure, smallest: Optional[Failure]) -> Failure:
    """The failure reported: the smallest one, knowing the unshrunk one it came from."""
    if smallest is None or repr(smallest.example) == repr(first.example):
        return first
    smallest.first = first
    return smallest
