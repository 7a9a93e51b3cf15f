"""Hand-built ``GradeReport``s for the report-format tests.

``sample_report`` is a realistic grading (a failed tie, a wrong encode, a property
counterexample, a timing check, hidden checks); ``hostile_report`` fills every place the
student's code influences with markup, control characters and lone surrogates; hidden
checks carry sentinel strings where a careless renderer would leak them.
"""

from __future__ import annotations

import copy

from grader.result import CheckResult, Diagnosis, GradeReport, MilestoneResult

HIDDEN_SENTINELS = (
    "SENTINEL_HIDDEN_MESSAGE",
    "SENTINEL_HIDDEN_INPUT",
    "SENTINEL_HIDDEN_EXPECTED",
    "SENTINEL_HIDDEN_ACTUAL",
    "SENTINEL_HIDDEN_DIAGNOSIS",
    "SENTINEL_HIDDEN_HINT",
)

INJECTION = "<script>alert('x')</script>"
CONTROL = "\x00\x07\x1b[31m\x1b]0;title\x07\x08\x7f\x9b"
HOSTILE = f"{INJECTION} & \"quotes\" 'single' ]]> `tick` **bold** | pipe {CONTROL} \ud800 end"


def tie_details() -> dict:
    return {
        "kind": "merges",
        "input": {"corpus": {"low": 5, "lower": 2, "newest": 6, "widest": 3}, "num_merges": 6},
        "expected": [["e", "s"], ["es", "t"], ["est", "</w>"], ["l", "o"], ["lo", "w"], ["n", "e"]],
        "actual": [["e", "s"], ["es", "t"], ["est", "</w>"], ["o", "w"], ["l", "ow"], ["n", "e"]],
        "first_difference": {
            "step": 4,
            "expected": ["l", "o"],
            "actual": ["o", "w"],
            "pair_counts": [["l", "o", 7], ["o", "w", 7], ["n", "e", 6], ["w", "est</w>", 6], ["i", "d", 3]],
            "tied": [["l", "o"], ["o", "w"]],
            "rule": "lexicographic",
            "rule_text": "the smallest pair (a, b), comparing a first, then b",
        },
    }


def hidden_check(check_id: str, passed: bool, points: float) -> CheckResult:
    """A hidden check as a careless engine might leave it: full of the case's secrets."""
    return CheckResult(
        id=check_id,
        title=f"hidden case {check_id[-1]}",
        passed=passed,
        score=points if passed else 0.0,
        max_score=points,
        visibility="hidden",
        message="SENTINEL_HIDDEN_MESSAGE expected SENTINEL_HIDDEN_EXPECTED",
        diagnoses=[
            Diagnosis("SENTINEL_HIDDEN_DIAGNOSIS", "SENTINEL_HIDDEN_DIAGNOSIS", "SENTINEL_HIDDEN_HINT")
        ],
        details={
            "kind": "merges",
            "input": {"corpus": ["SENTINEL_HIDDEN_INPUT"], "num_merges": 3},
            "expected": [["SENTINEL_HIDDEN_EXPECTED", "x"]],
            "actual": [["SENTINEL_HIDDEN_ACTUAL", "y"]],
        },
        seconds=0.011,
    )


def train_milestone() -> MilestoneResult:
    return MilestoneResult(
        id="train",
        title="Learn the merges",
        max_score=40.0,
        checks=[
            CheckResult("lesson-corpus", "the lesson's corpus", True, 10.0, 10.0,
                        message="Your 10 merges match the reference.", seconds=0.004),
            CheckResult(
                "ties", "ties between equal counts", False, 0.0, 10.0,
                message="Your merges depart from the reference at step 4.",
                diagnoses=[Diagnosis(
                    "tie-first-seen", "Ties broken by first appearance",
                    "When two pairs have the same count, this exercise takes the smallest pair (a, b).",
                )],
                details=tie_details(), seconds=0.005,
            ),
            hidden_check("hidden-1", True, 10.0),
            hidden_check("hidden-2", False, 10.0),
        ],
    )


def encode_milestone() -> MilestoneResult:
    return MilestoneResult(
        id="encode",
        title="Encode new words",
        max_score=40.0,
        checks=[
            CheckResult(
                "lowest", "encode 'lowest'", False, 0.0, 20.0,
                message="encode('lowest') returned different tokens.",
                diagnoses=[Diagnosis(
                    "encode-longest-match", "Greedy longest match",
                    "Apply merges in the order they were learned, not the longest token first.",
                )],
                details={"kind": "tokens", "input": {"word": "lowest"},
                         "expected": ["low", "est</w>"], "actual": ["lo", "west</w>"]},
                seconds=0.002,
            ),
            CheckResult(
                "round-trip", "tokens join back to the word", False, 0.0, 20.0,
                message="A generated word does not round-trip.",
                details={"kind": "counterexample", "property": "round-trip",
                         "input": {"word": "aa", "merges": [["a", "a"]]},
                         "expected": "aa</w>", "actual": "a</w>",
                         "explanation": "''.join(tokens) must be the word plus '</w>'"},
                seconds=0.3,
            ),
        ],
    )


def efficiency_milestone() -> MilestoneResult:
    return MilestoneResult(
        id="efficiency",
        title="Train fast enough",
        max_score=20.0,
        checks=[
            CheckResult(
                "zipf-corpus", "a large Zipf corpus", True, 20.0, 20.0,
                message="train_bpe finished within the allowed time.",
                details={"kind": "timing", "student_seconds": 0.82, "reference_seconds": 0.07,
                         "ratio": 11.7, "limit_ratio": 20.0, "limit_seconds": 10.0},
                seconds=0.9,
            ),
        ],
    )


def sample_report() -> GradeReport:
    return GradeReport(
        exercise="bpe-train-encode",
        title="BPE: train and encode",
        milestones=[train_milestone(), encode_milestone(), efficiency_milestone()],
        errors=[],
        sandbox_layers={"process": True, "rlimits": True, "network": False, "privilege": False},
        student_output="training on 4 words\ndone\n",
        seconds=1.37,
    )


def hostile_report() -> GradeReport:
    """Student-controlled text everywhere the student's code can reach."""
    report = sample_report()
    report.student_output = f"{HOSTILE}\n" * 3
    report.errors = [f"train_bpe raised ValueError: {HOSTILE}"]
    ties = report.milestones[0].checks[1]
    ties.message = f"train_bpe must return a list of (str, str) pairs; item 3 is {HOSTILE}"
    ties.details["actual"][3] = [HOSTILE, "w"]
    ties.details["first_difference"]["actual"] = [HOSTILE, "w"]
    encode = report.milestones[1].checks[0]
    encode.details["actual"] = [HOSTILE, "</w>"]
    return report


def not_gradable_report() -> GradeReport:
    report = sample_report()
    for milestone in report.milestones:
        for check in milestone.checks:
            check.passed, check.score, check.details, check.diagnoses = False, 0.0, None, []
            if check.visibility == "visible":
                check.message = "Not run: the submission does not import."
    report.errors = ["Not gradable: student.py does not import: SyntaxError: invalid syntax (line 3)"]
    report.student_output = ""
    return report


def with_durations(report: GradeReport, scale: float) -> GradeReport:
    """A copy whose measured durations (and the ratio derived from them) are scaled;
    configured limits such as ``limit_seconds`` stay as they were."""
    changed = copy.deepcopy(report)
    if changed.seconds is not None:
        changed.seconds *= scale
    for check in changed.checks:
        if check.seconds is not None:
            check.seconds *= scale
        if isinstance(check.details, dict):
            for key in ("student_seconds", "reference_seconds"):
                if check.details.get(key) is not None:
                    check.details[key] *= scale
            if check.details.get("ratio") is not None:
                # two timings of one run never scale exactly together
                check.details["ratio"] = round(check.details["ratio"] * 1.05, 3)
    return changed


def empty_report() -> GradeReport:
    """An exercise with no milestones: every format must still be valid."""
    return GradeReport(exercise="empty", title="")
