"""The efficiency check: is the student's trainer fast enough on a large corpus?

A Zipf-distributed corpus is generated from the exercise's ``efficiency`` settings, its seed
mixed with the grader's seed secret (:mod:`grader.grading.secrets`) so that no submission can
carry its merges in a table. The fast reference trains on it in a trusted process (CPU
time, best of three, garbage collector kept out of the measurement): the grading's helper,
started as the student's run starts (:mod:`grader.grading.ahead`), or the grading process
itself after it; the student's
``train_bpe`` trains on it once in the sandbox, whose trusted side measures the call's CPU
time. The run is timed when it does the work of a training run, right or wrong
(:mod:`grader.families.bpe.training_work`: any tie rule, another weighting of the counts, no
marker, a catalogued mistake's merges, up to a tenth too few merges): which merges are right is
the train milestone's business, and the message says when they differ from the reference's. It
passes when the student's time is at most ``max_ratio`` times the reference's (a run near the
bound is measured again, in interleaved rounds, and judged on its best ratio) and at most
``max_seconds``. The timing itself is :mod:`grader.grading.timing`.

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
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any, Optional

from grader.families.bpe import training_work, zipf_corpus
from grader.families.bpe.shapes import merges_shape
from grader.families.bpe.spec import EfficiencySettings
from grader.families.api import (
    CheckContext,
    CheckResult,
    Exercise,
    SandboxLike,
    ShapeError,
    best_time,
    call_failure_message,
    cap,
    clock_of,
    collect_prepared,
    corpus_key,
    corpus_seed,
    first_differing_index,
    graded,
    limits_text,
    measured,
    speed_verdict,
    start_prepared,
    stuck_run,
    timing_details,
    timing_key,
    untimed_milestone_title,
    wall_timeout,
    Rounds,
    interleaved_rounds,
    rounds_details,
)
from reference import train_bpe as reference_train_bpe

Pair = tuple[str, str]

CHECK_ID = "efficiency"
TITLE = "Training speed on a large corpus"
REFERENCE_RUNS = 3
TRAIN = "train"

STAFF_HINT = (
    "What makes training fast: count pairs over a Counter of the unique words with their "
    "counts, never over every word of the texts; after a merge, rewrite only the words that "
    "contain the merged pair; and keep an index from each pair to the words containing it, so "
    "finding those words does not mean scanning them all."
)


def run(context: CheckContext) -> list[CheckResult]:
    """Grade the ``efficiency`` check of the milestone: one result, worth the check's points."""
    box, exercise, share = context.box, context.exercise, context.points
    calls = context.calls
    secret = calls.secret if calls is not None else None
    # The timed corpus is generated from the secret: what the student prints on it is withheld.
    stuck = stuck_run(calls, TRAIN, exercise.efficiency)
    if stuck is not None:  # it never returned on the small inputs: a loop, not slowness
        message, details = stuck
        return [graded(CHECK_ID, TITLE, share, False, message=message, details=details)]
    unseen = calls.output.call(visible=False) if calls is not None else contextlib.nullcontext()
    with unseen:
        return [_timed_run(box, exercise, share, secret)]


def _timed_run(box: SandboxLike, exercise: Exercise, share: float,
               secret: Optional[str]) -> CheckResult:
    settings = exercise.efficiency
    try:
        corpus = collect_prepared(corpus_key(exercise, secret)) or corpus_for(exercise, secret)
    except zipf_corpus.CorpusSettingsError as error:
        return graded(CHECK_ID, TITLE, share, False, message=(
            f"the exercise's efficiency settings cannot be used: {error}; fix the "
            "efficiency: block of the exercise"))
    name = exercise.function(TRAIN).name
    timing = timing_key(exercise, secret)
    beside = start_prepared(timing)  # the helper times the reference while the student's code runs
    outcome = box.call(name, [corpus, settings.num_merges], timeout=wall_timeout(settings))
    reference_seconds, expected = (beside and collect_prepared(timing)) or time_reference(corpus, exercise)
    student_seconds = measured(outcome, settings) if outcome.ok else None
    rounds = Rounds([student_seconds], [reference_seconds])

    def again() -> Optional[float]:
        repeat = box.call(name, [corpus, settings.num_merges], timeout=wall_timeout(settings))
        return measured(repeat, settings) if repeat.ok else None

    def remeasure(first: Rounds) -> Rounds:
        return interleaved_rounds(first, settings, again,
                                  lambda: time_reference(corpus, exercise, runs=1)[0])

    passed, message = judge(box, exercise, outcome, expected, rounds, corpus=corpus,
                            remeasure=remeasure)
    details = timing_details(rounds.best_student(), rounds.best_reference(), settings)
    result = graded(CHECK_ID, TITLE, share, passed, message=message,
                    details=rounds_details(details, rounds))
    result.seconds = getattr(outcome, "seconds", None)
    return result


def judge(box: SandboxLike, exercise: Exercise, outcome: Any, expected: list[Pair],
          rounds: Rounds, corpus: Any = None,
          remeasure: Optional[Callable[[Rounds], Rounds]] = None) -> tuple[bool, str]:
    """Pass or fail, and the message: an answer first, then a training run, then the time.

    ``corpus`` is what the student trained on (default: the exercise's public corpus);
    ``remeasure`` adds rounds to ``rounds`` (in place) when a training run's first ratio is
    near the bound."""
    settings = exercise.efficiency
    name = exercise.function(TRAIN).name
    workload = describe_workload(settings)
    if not outcome.ok:
        return False, call_failure_message(name, outcome, wall_timeout(settings), workload,
                                           hint=STAFF_HINT, first=untimed_milestone_title(exercise, TRAIN),
                                           settings=settings)
    try:
        actual = merges_shape(exercise, outcome.value, name)
    except ShapeError as error:
        return False, f"{error}; its speed is not graded until it returns merges."
    problem = honest_run_problem(name, corpus if corpus is not None else corpus_for(exercise),
                                 actual, expected, exercise)
    if problem:
        return False, problem
    same = actual == expected
    extra = len(actual) - settings.num_merges
    learned = (f"{name} learned the reference's merges {workload}" if same else
               f"{name} learned {min(len(actual), settings.num_merges)} BPE merges {workload}"
               + (f" (and {extra} more than asked for)" if extra > 0 else ""))
    note = "" if same else " " + differs_note(expected, actual, exercise)
    if remeasure is not None:
        remeasure(rounds)
    verdict = speed_verdict(rounds.best_student(), rounds.best_reference(), settings)
    if verdict is None:
        return True, (f"{learned}, within the time allowed ({limits_text(settings)}).{note}")
    return False, (f"{learned}, but {verdict} ({limits_text(settings)}). {STAFF_HINT}{note}")


def honest_run_problem(name: str, corpus: Any, actual: list[Pair], expected: list[Pair],
                       exercise: Exercise) -> Optional[str]:
    """Why ``actual`` does not show the work of a training run on ``corpus``, or None
    (:mod:`grader.families.bpe.training_work`: a run right or wrong in ways the train milestone
    charges is timed; one that skips the work, or a table made for another corpus, is not)."""
    asked = exercise.efficiency.num_merges
    conventions = exercise.conventions
    after = "; its speed is graded once its merges are a BPE run on this corpus."
    fewest = training_work.fewest_merges(len(expected))
    if len(actual) < fewest:
        return (f"{name} returned {len(actual)} merges, but the corpus has pairs for "
                f"{len(expected)} (the reference learned that many), so it did not train: a "
                f"training run learns at least {fewest}{after}")
    judged = actual[:asked]
    if judged == expected[:len(judged)]:
        return None  # the reference's own run: honest without replaying it
    if training_work.explained(corpus, judged, asked, end_of_word=conventions.end_of_word,
                               tie_break=conventions.tie_break):
        return None
    departure = training_work.exercise_departure(corpus, judged, conventions.end_of_word)
    if departure is None:  # unreachable: the exercise's own reading is one of those tried
        return f"{name}'s merges are not a BPE run on this corpus{after}"
    merge = f"merge {departure.index + 1} of {name}, {cap(repr(judged[departure.index]), 120)},"
    if departure.count == 0:
        return (f"{merge} occurs nowhere in the corpus as rewritten by the merges before it, "
                f"and no known way of training learns it{after}")
    return (f"{merge} occurs {departure.count} times in the corpus as rewritten by the merges "
            f"before it, but the most frequent pair there occurs {departure.most} times, and "
            f"no known way of counting pairs picks it: BPE merges a most frequent pair at "
            f"every step{after}")


def differs_note(expected: list[Pair], actual: list[Pair], exercise: Exercise) -> str:
    index = first_differing_index(expected, actual)
    where = f"from merge {index + 1}" if index is not None else "in length"
    return (f"They differ from the reference's {where}; the "
            f"{untimed_milestone_title(exercise, TRAIN)} milestone grades which merges are right.")


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


def time_reference(corpus: Any, exercise: Exercise, runs: int = REFERENCE_RUNS) -> tuple[float, list[Pair]]:
    """The fast reference's best time (on the exercise's clock, CPU by default) over ``runs``
    runs on ``corpus``, and its merges."""
    conventions = exercise.conventions

    def train() -> list[Pair]:
        return reference_train_bpe(
            corpus,
            exercise.efficiency.num_merges,
            tie_break=conventions.tie_break,
            end_of_word=conventions.end_of_word,
        )

    return best_time(train, runs, clock_of(exercise.efficiency))


# --------------------------------------------------------------------------- ahead


def timed_corpus_wanted(exercise: Exercise) -> bool:
    return any(milestone.function == TRAIN and milestone.check("efficiency") is not None
               for milestone in exercise.milestones)


def ahead_work(exercise: Exercise, secret: Optional[str], time_reference_too: bool) -> Iterator[tuple]:
    """The timed corpus, and the reference's timing on it (which waits for the check's go)."""
    if not timed_corpus_wanted(exercise):
        return
    yield (corpus_key(exercise, secret), lambda progress=None: corpus_for(exercise, secret))
    if time_reference_too:
        # Timed once: right beside the student's run, under the same load, one run compares fairly.
        yield (timing_key(exercise, secret), lambda progress=None: time_reference(
            collect_prepared(corpus_key(exercise, secret)) or corpus_for(exercise, secret),
            exercise, runs=1))
