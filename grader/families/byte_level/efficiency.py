"""The efficiency check of a byte-level trainer, measured as CS336's speed test measures it.

The student's ``train_bpe`` trains once in the sandbox on a TinyStories-like text generated
from the spec's seed and the course's seed secret (:mod:`.stories`, ``efficiency.characters``
long, stories separated by the first special token; or a text shipped beside the specs,
``efficiency.text_file``), until the vocabulary has ``256 + special tokens + num_merges``
tokens. The reference trains on the same text in the grading process in the same run, just
before the student's call and, unless that one run already settles the verdict (a ratio far
from the bound, :func:`~grader.grading.timing.settled_by_one_reference_run`), twice just after
it (best of three), never at the same time, so a student's parallel pre-tokenizer has the
machine's cores to itself. The limits are on the
spec's clock (``efficiency.clock``; ``wall`` by default here, as CS336 times its test): at most
``max_ratio`` times the reference's time (CS336 allows about 4x) and ``max_seconds``; the
other clock is reported beside it in ``details``. A call on the wall clock is stopped once it
is well past the bound, so a slow trainer costs a grading little.

Speed is graded on any training run, whatever its tie rule (:mod:`.honest_run`): the merges
(the first as many as the reference learned, less at most a tenth) must each be a most
frequent pair of the pre-tokens, cut the exercise's way or as another convention or a
catalogued mistake cuts them, as rewritten by the merges before them, and the vocabulary the
special tokens, the 256 bytes and one token per merge. A run near the bound is measured again
in interleaved rounds and judged on its best ratio (:func:`~grader.grading.timing.interleaved_rounds`). Which merges are right is the train milestone's business;
the message says when they differ from the reference's. Durations appear only in
``details``, never in a message.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

from grader.families.byte_level import stories
from grader.families.bpe.training_work import fewest_merges
from grader.families.byte_level.honest_run import departure, departure_text, does_the_work, vocab_problem
from grader.families.byte_level.shapes import byte_training
from grader.families.api import (
    CheckContext,
    CheckResult,
    Clocks,
    Exercise,
    ShapeError,
    best_clocks,
    call_clocks,
    call_failure_message,
    clock_of,
    clocked_details,
    corpus_seed,
    data_dir,
    first_differing_index,
    graded,
    limits_text,
    over_ratio,
    speed_verdict,
    Rounds,
    interleaved_rounds,
    rounds_details,
    settled_by_one_reference_run,
    stuck_run,
    untimed_milestone_title,
    wall_timeout,
)
from reference.byte_level import train_byte_bpe

CHECK_ID = "efficiency"
TITLE = "Training speed on a TinyStories-like text"
TRAIN = "train_byte_bpe"
RUNS_BEFORE = 1
RUNS_AFTER = 2
"""The reference's runs before the student's call, and after it when one does not settle the
verdict (:func:`~grader.grading.timing.settled_by_one_reference_run`): best of three then."""
CUT_FACTOR = 2.0
"""A call on the wall clock is stopped at this many times the bound (plus a grace second)."""
CUT_GRACE_SECONDS = 1.0
HINT = ("To be fast: pre-tokenize once and count each distinct pre-token with its frequency "
        "(a Counter); count pairs once, then after each merge update the counts of only the "
        "pre-tokens that hold the merged pair, found through an index from each pair to the "
        "pre-tokens holding it, instead of recounting every pair.")


@lru_cache(maxsize=4)
def read_text(name: str) -> str:
    path = data_dir("exercises") / "data" / name
    return Path(path).read_text(encoding="utf-8")


def timed_text(exercise: Exercise, secret: Optional[str] = None) -> str:
    """The text the timed training uses: shipped, or generated from the seed (and secret)."""
    settings = exercise.efficiency
    if settings.text_file:
        return read_text(settings.text_file)
    seed = settings.seed if secret is None else corpus_seed(secret, exercise.id, settings.seed)
    separator = settings.special_tokens[0] if settings.special_tokens else ""
    return stories.generate(seed, settings.characters, separator)


def describe_workload(exercise: Exercise, text: str) -> str:
    settings = exercise.efficiency
    size = 256 + len(settings.special_tokens) + settings.num_merges
    if settings.text_file:
        return f"on {settings.text_file} ({len(text):,} characters) to {size} tokens"
    return (f"on a TinyStories-like text drawn from the course's secret ({len(text):,} "
            f"characters) to {size} tokens")


def run(context: CheckContext) -> list[CheckResult]:
    """One result, worth the check's points; what the code prints here is withheld."""
    calls = context.calls
    secret = calls.secret if calls is not None else None
    stuck = stuck_run(calls, TRAIN, context.exercise.efficiency)
    if stuck is not None:  # it never returned on the small inputs: a loop, not slowness
        message, details = stuck
        return [graded(CHECK_ID, TITLE, context.points, False, message=message, details=details)]
    unseen = calls.output.call(visible=False) if calls is not None else contextlib.nullcontext()
    with unseen:
        return [timed_run(context.box, context.exercise, context.points, secret)]


def timed_run(box: Any, exercise: Exercise, share: float, secret: Optional[str]) -> CheckResult:
    settings = exercise.efficiency
    name = exercise.function(TRAIN).name
    text = timed_text(exercise, secret)
    specials = list(settings.special_tokens)
    size = 256 + len(specials) + settings.num_merges

    def reference() -> Any:
        return train_byte_bpe(text, size, specials)

    if getattr(box, "seconds_left", 1.0) <= 0:  # no call can run: nothing to time it against
        outcome = box.call(name, [text, size, specials])
        return graded(CHECK_ID, TITLE, share, False, message=call_failure_message(
            name, outcome, 0.0, "", hint="", first="train"))
    before, expected = best_clocks(reference, RUNS_BEFORE)
    timeout = call_timeout(settings, before)
    outcome = box.call(name, [text, size, specials], timeout=timeout)
    student = call_clocks(outcome) if outcome.ok else None
    clock = clock_of(settings)
    rounds = Rounds([None if student is None else student.on(clock)], [before.on(clock) or 0.0])
    runs = [(student, before)]

    def first_round() -> None:
        """The reference's runs after the student's, unless one run settles the verdict."""
        if settled_by_one_reference_run(rounds.best_student(), rounds.best_reference(), settings):
            return
        after, _ = best_clocks(reference, RUNS_AFTER)
        both = Clocks(min(before.wall, after.wall), min(before.cpu, after.cpu))
        runs[0] = (student, both)
        rounds.reference[0] = both.on(clock) or 0.0

    def again() -> Optional[float]:
        repeat = box.call(name, [text, size, specials], timeout=timeout)
        if not repeat.ok:
            return None
        runs.append((call_clocks(repeat), None))
        return runs[-1][0].on(clock)

    def reference_again() -> float:
        clocks, _ = best_clocks(reference, 1)
        runs.append((None, clocks))
        return clocks.on(clock) or 0.0

    def remeasure(first: Rounds) -> Rounds:
        first_round()
        return interleaved_rounds(first, settings, again, reference_again)

    passed, message = judge(exercise, name, outcome, expected, rounds, text=text,
                            timeout=timeout, remeasure=remeasure)
    best_student = _best([clocks for clocks, _ in runs if clocks is not None], clock)
    best_reference = _best([clocks for _, clocks in runs if clocks is not None], clock)
    details = clocked_details(best_student, best_reference or runs[0][1], settings)
    result = graded(CHECK_ID, TITLE, share, passed, message=message,
                    details=rounds_details(details, rounds))
    result.seconds = getattr(outcome, "seconds", None)
    return result


def _best(runs: list[Clocks], clock: str) -> Optional[Clocks]:
    """The run with the least time on ``clock`` (:meth:`Clocks.on`)."""
    timed = [clocks for clocks in runs if clocks.on(clock) is not None]
    return min(timed, key=lambda clocks: clocks.on(clock)) if timed else None


def call_timeout(settings: Any, reference: Clocks) -> float:
    """The student's call's wall-clock limit: the settings' own, or on the wall clock, once the
    call is well past the bound (the verdict is then certain)."""
    limit = wall_timeout(settings)
    if clock_of(settings) != "wall" or not reference.wall:
        return limit
    return round(min(limit, CUT_FACTOR * settings.max_ratio * reference.wall + CUT_GRACE_SECONDS), 3)


def judge(exercise: Exercise, name: str, outcome: Any, expected: tuple, rounds: Rounds, *,
          text: str, timeout: float,
          remeasure: Optional[Callable[[Rounds], Rounds]] = None) -> tuple[bool, str]:
    """Pass or fail, and the message: an answer first, then a training run, then the time
    (measured again, in ``rounds``, by ``remeasure`` when the first ratio is near the bound)."""
    settings = exercise.efficiency
    workload = describe_workload(exercise, text)
    limits = limits_text(settings)
    if not outcome.ok:
        if outcome.kind == "timeout" and timeout < wall_timeout(settings):
            return False, (f"{name} was stopped {workload}: {over_ratio(settings)} ({limits}), "
                           f"so it was not run to the end. {HINT}")
        return False, call_failure_message(name, outcome, timeout, workload, hint=HINT,
                                           first=untimed_milestone_title(exercise, TRAIN),
                                           settings=settings)
    try:
        vocab, merges = byte_training(outcome.value, name)
    except ShapeError as error:
        return False, f"{error}; its speed is not graded until it returns (vocab, merges)."
    problem = honest_run_problem(name, text, vocab, merges, expected, settings.special_tokens)
    if problem:
        return False, (f"{name} {workload}: {problem}; its speed is graded once its merges "
                       "are a valid BPE run on this text.")
    same = merges == expected[1]
    learned = (f"{name} learned the reference's merges {workload}" if same else
               f"{name} learned {len(merges)} byte-level BPE merges {workload}")
    note = "" if same else " " + differs_note(exercise, expected[1], merges)
    if remeasure is not None:
        remeasure(rounds)
    verdict = speed_verdict(rounds.best_student(), rounds.best_reference(), settings)
    if verdict is None:
        return True, f"{learned}, within the time allowed ({limits}).{note}"
    return False, f"{learned}, but {verdict} ({limits}). {HINT}{note}"


def honest_run_problem(name: str, text: str, vocab: dict, merges: list, expected: tuple,
                       special_tokens: list[str]) -> Optional[str]:
    """Why ``(vocab, merges)`` does not show the work of a training run as long as the
    reference's (less a tenth: :func:`~grader.families.bpe.training_work.fewest_merges`), or
    None. A run trained by another convention or with a catalogued mistake is timed: the
    train milestone charges its merges. The vocabulary is judged with all the merges returned."""
    wanted = len(expected[1])
    fewest = fewest_merges(wanted)
    if len(merges) < fewest:
        return (f"it returned {len(merges)} merges, but the text has pairs for {wanted} (the "
                f"reference learned that many), so it did not train: a training run learns at "
                f"least {fewest}")
    judged = merges[:wanted]
    if judged != expected[1][:len(judged)] and not does_the_work(text, special_tokens, judged):
        found = departure(text, special_tokens, judged)
        if found is not None:
            return departure_text(name, judged, found)
    return vocab_problem(vocab, merges, special_tokens)


def differs_note(exercise: Exercise, expected: list, actual: list) -> str:
    index = first_differing_index(expected, actual)
    where = f"from merge {index + 1}" if index is not None else "in length"
    return (f"They differ from the reference's {where}; the "
            f"{untimed_milestone_title(exercise, TRAIN)} milestone grades which merges are right.")
