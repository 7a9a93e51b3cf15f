"""The family's two check kinds: ``valid`` (each test, on its own) and ``catches`` (each
catalogued mistake of a milestone's groups).

``valid`` splits its points evenly among the tests run: a test earns its part when it holds on
the correct BPE, deterministically, in time, and asserts something. ``catches`` splits its
points evenly among the mistakes of its groups: a mistake earns its part when a valid test
catches it. A file without a single test earns nothing.
"""

from __future__ import annotations

from grader.families.api import CheckContext, CheckResult, check_points, graded
from grader.families.bpe_tests import feedback
from grader.families.bpe_tests.groups import group, group_mistakes

VALID, CATCHES = "valid", "catches"
VALID_TITLE = "Your tests hold on the correct BPE and assert something"
CATCHES_TITLE = "Known mistakes your tests catch"


def run_valid(context: CheckContext) -> list[CheckResult]:
    opened = context.calls
    verdicts = opened.verdicts
    tests = verdicts.tests
    run = [verdict for verdict in tests if verdict.status != "not-run"]
    if not run:
        return [graded(VALID, "Your tests", context.points, False, message=(
            f"{opened.file_name} has no test functions: write functions named test_... that "
            f"import train_bpe and encode from {opened.module} and assert what they return"))]
    shares = dict(zip((v.test.name for v in run), check_points(context.points, [1.0] * len(run))))
    return [graded(f"{VALID}:{verdict.test.name}", verdict.test.name,
                   shares.get(verdict.test.name, 0.0), verdict.counts,
                   message=feedback.test_message(verdict, verdicts.file,
                                                 max_tests=verdicts.max_tests))
            for verdict in tests]


def run_catches(context: CheckContext) -> list[CheckResult]:
    opened = context.calls
    verdicts = opened.verdicts
    pairs = [(group(group_id), mistake) for group_id in context.milestone.groups
             for mistake in group_mistakes(group_id)]
    shares = check_points(context.points, [1.0] * len(pairs))
    all_valid = all(verdict.counts for verdict in verdicts.tests)
    results = []
    for (kind, mistake), share in zip(pairs, shares):
        verdict = verdicts.mistake(mistake.id) if verdicts.valid else None
        if verdict is not None and verdict.caught:
            message = feedback.caught_message(verdict, opened.reference_answer)
        elif verdict is None:
            message = ("not caught: no test of yours counts (see what your tests earn for "
                       "themselves)")
        elif verdict.unfinished:
            message = feedback.unfinished_message()
        else:
            message = feedback.slipped_message(verdict, kind, all_valid)
        results.append(graded(f"{CATCHES}:{mistake.id}", f"{mistake.title} ({mistake.id})", share,
                              verdict is not None and verdict.caught, message=message))
    return results
