"""The efficiency check of a byte-level trainer: CS336's reference run, timed.

The student's ``train_bpe`` trains on the exercise's text file (``efficiency.text_file``,
shipped beside the specs: CS336's ``corpus.en``) until the vocabulary has ``256 + special
tokens + num_merges`` tokens, once in the sandbox; the reference trains on it in the trusted
process (CPU time, best of three). The check passes when the merges equal the reference's,
the vocabulary holds the same tokens, and the student's CPU time is within ``max_ratio``
times the reference's and ``max_seconds``. Durations appear only in ``details``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from grader.families.byte_level.judges import merges_problem, vocab_problem
from grader.families.byte_level.shapes import byte_training
from grader.grading.checks.context import CheckContext
from grader.grading.feedback import graded
from grader.grading.shapes import ShapeError
from grader.grading.timing import (
    best_time,
    call_failure_message,
    cpu_or_wall,
    speed_verdict,
    timing_details,
    wall_timeout,
)
from grader.package_data import data_dir
from grader.result import CheckResult
from reference.byte_level import train_byte_bpe

CHECK_ID = "efficiency"
TITLE = "Training speed on CS336's corpus"
TRAIN = "train_byte_bpe"
REFERENCE_RUNS = 3
HINT = ("Pre-tokenize once and count each distinct pre-token with its frequency; after a merge, "
        "update only the pre-tokens that contain the merged pair.")


@lru_cache(maxsize=4)
def read_text(name: str) -> str:
    path = data_dir("exercises") / "data" / name
    return Path(path).read_text(encoding="utf-8")


def run(context: CheckContext) -> list[CheckResult]:
    exercise, share = context.exercise, context.points
    settings = exercise.efficiency
    name = exercise.function(TRAIN).name
    if not settings.text_file:
        return [graded(CHECK_ID, TITLE, share, False,
                       message="the exercise's efficiency: block names no text_file to train on")]
    text = read_text(settings.text_file)
    specials = list(settings.special_tokens)
    size = 256 + len(specials) + settings.num_merges
    reference_seconds, (vocab, merges) = best_time(lambda: train_byte_bpe(text, size, specials),
                                                   REFERENCE_RUNS)
    workload = f"on {settings.text_file} ({len(text):,} characters) to {size} tokens"
    outcome = context.box.call(name, [text, size, specials], timeout=wall_timeout(settings))
    student_seconds = cpu_or_wall(outcome) if outcome.ok else None
    passed, message = False, ""
    if not outcome.ok:
        message = call_failure_message(name, outcome, wall_timeout(settings), workload, hint=HINT,
                                       first="training")
    else:
        try:
            got_vocab, got_merges = byte_training(outcome.value, name)
            problem = merges_problem(merges, got_merges) or vocab_problem(vocab, got_vocab)
        except ShapeError as error:
            problem = f"{error}"
        if problem:
            message = f"{name} {workload}: {problem} Its speed is not graded until it is right."
        else:
            verdict = speed_verdict(student_seconds, reference_seconds, settings)
            passed = verdict is None
            message = (f"{name} learned the reference's merges {workload}, within the time allowed."
                       if passed else f"{name} learned the right merges {workload}, but {verdict}. {HINT}")
    result = graded(CHECK_ID, TITLE, share, passed, message=message,
                    details=timing_details(student_seconds, reference_seconds, settings))
    result.seconds = getattr(outcome, "seconds", None)
    return [result]
