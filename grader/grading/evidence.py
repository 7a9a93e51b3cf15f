"""No points without a solution: a milestone's points flow only from evidence of real work.

Some checks are passed by code that does nothing: an empty merge list is deterministic,
prefix-stable and at most ``k`` long; a word's bare characters join back to the word; a
case whose right answer is ``[]`` or the bare characters is answered by a stub. Such checks
earn their points only when the same milestone also passes *real work*: a case item or the
differential check whose right answer is not what a do-nothing implementation returns.

The trivial answers, per role, are what the do-nothing implementations of
:mod:`grader.grading.do_nothing` return on the input, and also:

- ``train``: no merges (``[]``);
- ``encode``: the word's bare characters, with or without the end-of-word marker as a token
  of its own, the whole word as one token (with or without the marker), or no tokens;
- ``sequence_lengths``: ``bpe`` equal to ``char`` (no merge applied) or to ``word`` (every
  word one token).

A milestone with no real-work check of its own (an efficiency milestone) takes the evidence
of the milestones checking the same function. A function none of whose checks is real work
(an exercise without a single non-trivial case or differential check) is left alone:
``grade audit`` reports it, since its do-nothing submissions then earn points.

A check whose points are withheld keeps its verdict, shows 0 points and says why.
"""

from __future__ import annotations

from typing import Any, Optional

from grader.grading import do_nothing
from grader.result import CheckResult, GradeReport
from grader.spec import Exercise

REASONS = {
    "train": ("no points until {name} gets right a case or generated input whose right "
              "merges are not an empty list"),
    "encode": ("no points until {name} gets right a case or generated input whose right "
               "tokens are not just the word's characters"),
    "sequence_lengths": ("no points until {name} gets right a case or generated input whose "
                         "bpe count differs from both char and word"),
}
EVIDENCE_KINDS = frozenset({"cases", "differential"})


def trivial_answer(exercise: Exercise, role: str, inputs: tuple, expected: Any) -> bool:
    """Whether ``expected``, the right answer of ``role`` on ``inputs`` (``(corpus,
    num_merges)`` for train, ``(word,)`` or ``(sentence,)`` otherwise), is what a do-nothing
    implementation returns."""
    if role == "train":
        if not expected:
            return True
    elif role == "encode":
        word = inputs[0]
        marker = exercise.conventions.end_of_word
        tail = [marker] if marker else []
        if list(expected) in [list(word) + tail, list(word), [word + marker], [word], []]:
            return True
    elif role == "sequence_lengths":
        if not isinstance(expected, dict) or expected.get("bpe") in (expected.get("char"),
                                                                      expected.get("word")):
            return True
    else:
        return True
    call = inputs if role == "train" else (inputs[0], [])
    return any(_same(do_nothing.answer(exercise, kind, role, *call), expected)
               for kind in do_nothing.KINDS)


def _same(answer: Any, expected: Any) -> bool:
    if isinstance(answer, list) and isinstance(expected, list):
        return [tuple(a) if isinstance(a, (list, tuple)) else a for a in answer] == \
            [tuple(e) if isinstance(e, (list, tuple)) else e for e in expected]
    return answer == expected


def generated_real_work(exercise: Exercise, role: str, seed: Optional[int]) -> bool:
    """Whether some generated input of ``role`` has a non-trivial right answer."""
    from grader.grading.generated_inputs import generated_examples, reference_merges
    from reference import encode as reference_encode
    from reference.sequence_lengths import sequence_lengths as reference_lengths

    if role not in REASONS:
        return False  # other families: their cases carry the evidence
    marker = exercise.conventions.end_of_word
    for example in generated_examples(exercise, role, exercise.properties.examples, seed):
        if role == "train":
            expected: Any = reference_merges(exercise, *example)
            inputs: tuple = example
        else:
            corpus, num_merges, text = example
            inputs = (text,)
            merges = reference_merges(exercise, corpus, num_merges)
            if role == "encode":
                expected = reference_encode(text, merges, end_of_word=marker)
            else:
                expected = reference_lengths(text, merges, end_of_word=marker)
        if not trivial_answer(exercise, role, inputs, expected):
            return True
    return False


def _evidence(check: CheckResult) -> bool:
    return check.real_work and check.passed and not check.trivial_pass


def require_evidence(report: GradeReport, exercise: Exercise) -> None:
    """Withhold the points of every milestone that shows no real work (in place)."""
    specs = {milestone.id: milestone for milestone in exercise.milestones}
    capable: dict[str, bool] = {}
    shown: dict[str, bool] = {}
    for result in report.milestones:
        role = specs[result.id].function
        capable[role] = capable.get(role, False) or any(c.real_work for c in result.checks)
        shown[role] = shown.get(role, False) or any(_evidence(c) for c in result.checks)
    for result in report.milestones:
        role = specs[result.id].function
        if not capable.get(role):
            continue
        if any(c.real_work for c in result.checks):
            has_work = any(_evidence(c) for c in result.checks)
        else:
            has_work = shown.get(role, False)
        if has_work:
            continue
        reason = REASONS.get(role, "no points until the function does real work").format(
            name=f"{exercise.function(role).name}()")
        for check in result.checks:
            if check.passed and check.score > 0:
                check.score = 0.0
                check.message = f"{check.message.rstrip('.')}; {reason}." if check.message else reason
