"""The efficiency check: is the student's trainer fast enough on a large corpus?

A Zipf-distributed corpus is generated from the exercise's ``efficiency`` settings, its seed
mixed with the grader's seed secret (:mod:`grader.grading.secrets`) so that no submission can
carry its merges in a table. The fast reference trains on it in a trusted process (CPU
time, best of three, garbage collector kept out of the measurement): the grading's helper,
started as the student's run starts (:mod:`grader.grading.ahead`), or the grading process
itself after it; the student's
``train_bpe`` trains on it once in the sandbox, whose trusted side measures the call's CPU
time. The check passes when the answer is an honest BPE run (at least as many ``(a, b)``
string pairs as the reference learned, at most the number asked for, each occurring in the
corpus as rewritten by the pairs before it: :mod:`grader.grading.merge_replay`), whatever its
tie rule, and the student's time is at most ``max_ratio`` times the reference's and at most
``max_seconds``. Whether the merges are the right ones is the train milestone's business; the
message says when they differ from the reference's.

What dominates: splitting the texts costs both sides the same order of work, so the ratio of
a correct solution is set by its per-merge work. Recounting every pair over the unique words
(the lessons' method) costs ``merges x distinct words`` and passes; rescanning the texts every
merge costs ``merges x total words`` and fails by a wide margin.

Durations appear only in ``details`` under keys ending in ``_seconds`` (docs/architecture.md, "The JSON result"): the
message says pass or fail and why, never how long anything took, so two gradings differ only
in those fields. The ratio is not stored; renderers derive it from the two times.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, Optional

from grader.grading import ahead, zipf_corpus
from grader.grading.checks import CheckContext
from grader.grading.feedback import first_differing_index, graded
from grader.grading.merge_replay import first_unfounded_merge
from grader.grading.secrets import corpus_seed
from grader.grading.shapes import ShapeError
from grader.grading.student_calls import SandboxLike, StudentCalls, cap, failure_message
from grader.result import CheckResult
from grader.spec import EfficiencySettings, Exercise
from reference import train_bpe as reference_train_bpe

Pair = tuple[str, str]

CHECK_ID = "efficiency"
TITLE = "Training speed on a large corpus"
REFERENCE_RUNS = 3
# The sandbox stops a call by wall-clock time, while the verdict uses CPU time: the wall
# limit leaves room for a loaded machine, where a call's wall time exceeds its CPU time.
WALL_FACTOR = 1.5
WALL_GRACE_SECONDS = 1.0

STAFF_HINT = (
    "What makes training fast: count pairs over a Counter of the unique words with their "
    "counts, never over every word of the texts; after a merge, rewrite only the words that "
    "contain the merged pair; and keep an index from each pair to the words containing it, so "
    "finding those words does not mean scanning them all."
)


def run(context: CheckContext) -> list[CheckResult]:
    """Grade the ``efficiency`` check of the milestone: one result, worth the check's points."""
    if context.milestone.function == "train_byte_bpe":
        from grader.grading.checks import byte_efficiency

        return byte_efficiency.run(context)
    box, exercise, share = context.box, context.exercise, context.points
    calls = context.calls
    secret = calls.secret if calls is not None else None
    # The timed corpus is generated from the secret: what the student prints on it is withheld.
    unseen = calls.output.call(visible=False) if calls is not None else contextlib.nullcontext()
    with unseen:
        return [_timed_run(box, exercise, share, secret)]


def _timed_run(box: SandboxLike, exercise: Exercise, share: float,
               secret: Optional[str]) -> CheckResult:
    settings = exercise.efficiency
    try:
        corpus = ahead.collect(ahead.corpus_key(exercise, secret)) or corpus_for(exercise, secret)
    except zipf_corpus.CorpusSettingsError as error:
        return graded(CHECK_ID, TITLE, share, False, message=(
            f"the exercise's efficiency settings cannot be used: {error}; fix the "
            "efficiency: block of the exercise"))
    name = exercise.function("train").name
    timing = ahead.timing_key(exercise, secret)
    beside = ahead.go(timing)  # the helper times the reference while the student's code runs
    outcome = box.call(name, [corpus, settings.num_merges], timeout=wall_timeout(settings))
    reference_seconds, expected = (beside and ahead.collect(timing)) or time_reference(corpus, exercise)
    student_seconds = _cpu_or_wall(outcome) if outcome.ok else None
    passed, message = judge(box, exercise, outcome, expected, student_seconds, reference_seconds,
                            corpus=corpus)
    result = graded(CHECK_ID, TITLE, share, passed, message=message,
                    details=timing_details(student_seconds, reference_seconds, settings))
    result.seconds = getattr(outcome, "seconds", None)
    return result


def judge(box: SandboxLike, exercise: Exercise, outcome: Any, expected: list[Pair],
          student_seconds: Optional[float], reference_seconds: float,
          corpus: Any = None) -> tuple[bool, str]:
    """Pass or fail, and the message: an answer first, then an honest run, then the time.

    ``corpus`` is what the student trained on (default: the exercise's public corpus)."""
    settings = exercise.efficiency
    name = exercise.function("train").name
    workload = describe_workload(settings)
    if not outcome.ok:
        return False, call_failure_message(name, outcome, wall_timeout(settings), workload, exercise)
    try:
        actual = StudentCalls(box, exercise).merges_shape(outcome.value, name)
    except ShapeError as error:
        return False, f"{error}; its speed is not graded until it returns merges."
    problem = honest_run_problem(name, corpus if corpus is not None else corpus_for(exercise),
                                 actual, expected, exercise)
    if problem:
        return False, problem
    same = actual[: len(expected)] == expected
    learned = (f"{name} learned the reference's merges {workload}" if same else
               f"{name} learned {len(actual)} merges that occur in the corpus {workload}")
    note = "" if same else " " + differs_note(expected, actual, exercise)
    verdict = speed_verdict(student_seconds, reference_seconds, settings)
    if verdict is None:
        return True, (f"{learned}, within the time allowed ({_limits_text(settings)}).{note}")
    return False, (f"{learned}, but {verdict} ({_limits_text(settings)}). {STAFF_HINT}{note}")


def honest_run_problem(name: str, corpus: Any, actual: list[Pair], expected: list[Pair],
                       exercise: Exercise) -> Optional[str]:
    """Why ``actual`` is not an honest BPE run on ``corpus`` of the reference's length, or None."""
    asked = exercise.efficiency.num_merges
    after = "; its speed is not graded until it returns an honest run."
    if len(actual) < len(expected):
        return (f"{name} returned {len(actual)} merges, but the corpus has pairs for "
                f"{len(expected)} (the reference learned that many){after}")
    if len(actual) > asked:
        return f"{name} returned {len(actual)} merges when asked for {asked}{after}"
    if actual == expected:
        return None  # the reference's own run: honest without replaying it
    position = first_unfounded_merge(corpus, actual, exercise.conventions.end_of_word)
    if position is not None:
        return (f"merge {position + 1} of {name}, {cap(repr(actual[position]), 120)}, occurs nowhere in the "
                f"corpus as rewritten by the merges before it (is the end-of-word marker a "
                f"symbol of its own?){after}")
    return None


def differs_note(expected: list[Pair], actual: list[Pair], exercise: Exercise) -> str:
    index = first_differing_index(expected, actual)
    where = f"from merge {index + 1}" if index is not None else "in length"
    return (f"They differ from the reference's {where}; the "
            f"{_train_milestone_title(exercise)} milestone grades which merges are right.")


# --------------------------------------------------------------------------- the corpus


def corpus_spec(settings: EfficiencySettings) -> zipf_corpus.ZipfSpec:
    return zipf_corpus.ZipfSpec(
        distinct_words=settings.distinct_words,
        total_words=settings.total_words,
        zipf_exponent=settings.zipf_exponent,
        seed=settings.seed,
    )


def corpus_for(exercise: Exercise, secret: Optional[str] = None) -> zipf_corpus.Corpus:
    """The generated corpus, in the form the exercise promises its students; with ``secret``
    its seed is derived from the spec's seed and the secret."""
    spec = corpus_spec(exercise.efficiency)
    if secret is not None:
        spec = replace(spec, seed=corpus_seed(secret, exercise.id, spec.seed))
    return zipf_corpus.generate(spec, exercise.conventions.corpus_form)


def describe_workload(settings: EfficiencySettings) -> str:
    return (f"on a generated corpus of {settings.total_words:,} words "
            f"({settings.distinct_words:,} distinct) with {settings.num_merges} merges")


# --------------------------------------------------------------------------- timing


def cpu_time(run: Callable[[], Any]) -> tuple[float, Any]:
    """CPU seconds of ``run()`` in this process, and its result."""
    started = time.process_time()
    value = run()
    return time.process_time() - started, value


@contextmanager
def collector_frozen() -> Iterator[None]:
    """Objects the grader already holds are kept out of the garbage collector's scans, so a
    time measured inside does not depend on how much the grading process allocated before."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def time_reference(corpus: Any, exercise: Exercise, runs: int = REFERENCE_RUNS) -> tuple[float, list[Pair]]:
    """The fast reference's best CPU time over ``runs`` runs on ``corpus``, and its merges."""
    conventions = exercise.conventions

    def train() -> list[Pair]:
        return reference_train_bpe(
            corpus,
            exercise.efficiency.num_merges,
            tie_break=conventions.tie_break,
            end_of_word=conventions.end_of_word,
        )

    with collector_frozen():
        timings = [cpu_time(train) for _ in range(max(1, runs))]
    best = min(seconds for seconds, _ in timings)
    return best, timings[0][1]


def wall_timeout(settings: EfficiencySettings) -> float:
    """The wall-clock limit of the student's call, derived from the CPU cap ``max_seconds``."""
    return round(settings.max_seconds * WALL_FACTOR + WALL_GRACE_SECONDS, 3)


def _cpu_or_wall(outcome: Any) -> Optional[float]:
    cpu = getattr(outcome, "cpu_seconds", None)
    return cpu if cpu is not None else getattr(outcome, "seconds", None)


def speed_verdict(student_seconds: Optional[float], reference_seconds: float,
                  settings: EfficiencySettings) -> Optional[str]:
    """None when fast enough, else which limit was exceeded (no durations in the words)."""
    if student_seconds is None:
        return "its time could not be measured"
    if student_seconds > settings.max_seconds:
        return f"it took longer than the {settings.max_seconds:g} s cap"
    if student_seconds > settings.max_ratio * reference_seconds:
        return f"it took more than {settings.max_ratio:g} times the reference's time"
    return None


def timing_details(student_seconds: Optional[float], reference_seconds: float,
                   settings: EfficiencySettings) -> dict[str, Any]:
    """``details`` of kind ``timing`` (see :mod:`grader.report.details`), without a ratio."""
    return {
        "kind": "timing",
        "student_seconds": _rounded(student_seconds),
        "reference_seconds": _rounded(reference_seconds),
        "limit_ratio": settings.max_ratio,
        "limit_seconds": settings.max_seconds,
    }


def _rounded(seconds: Optional[float]) -> Optional[float]:
    return None if seconds is None else round(seconds, 4)


# --------------------------------------------------------------------------- messages


def call_failure_message(name: str, outcome: Any, timeout: float, workload: str, exercise: Exercise) -> str:
    """Why there is no answer to time: too slow or too big (the staff idea helps), the
    submission's overall time budget, or a crash (the train milestone shows it on small inputs)."""
    if outcome.kind == "timeout":
        return f"{name} did not finish within {timeout:g} s {workload}. {STAFF_HINT}"
    if outcome.kind == "memory":
        return f"{failure_message(name, outcome)} {workload}. {STAFF_HINT}"
    if outcome.kind == "budget":
        return (f"{failure_message(name, outcome)} before the efficiency check could time "
                f"{name}: the earlier checks used it up, so make every function quick on small "
                "inputs first.")
    return (f"{failure_message(name, outcome)} {workload}; make the "
            f"{_train_milestone_title(exercise)} milestone pass first.")


def _limits_text(settings: EfficiencySettings) -> str:
    return f"at most {settings.max_ratio:g} times the reference's time and {settings.max_seconds:g} s"


def _train_milestone_title(exercise: Exercise) -> str:
    for milestone in exercise.milestones:
        if milestone.function == "train" and milestone.check("efficiency") is None:
            return repr(milestone.title)
    return "training"
