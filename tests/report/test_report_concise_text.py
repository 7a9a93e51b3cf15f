"""The text report says each thing once: identical failures folded, passed checks summed up per
milestone, a milestone's likely mistakes shown once with their evidence; ``verbose`` and
``failures_only`` give the long and the short of it."""

from __future__ import annotations

from grader.report import render
from grader.result import CheckResult, Diagnosis, GradeReport, MilestoneResult

CRASH = "train_bpe raised NotImplementedError: train_bpe is not written yet"
TIES = Diagnosis("ties-first-seen", "Ties broken by the pair met first", "Use the rule.",
                 evidence="reproduces your output on all 3 failing inputs it was tried on")
OTHER = Diagnosis("stale-counts", "Pair counts taken once", "Recount.",
                  evidence="reproduces your output on 1 of the 3 failing inputs, and contradicts none")


def check(check_id, passed, message="", diagnoses=(), cause=None, visibility="visible"):
    details = {"kind": "counterexample", "input": {"corpus": ["a"]}, "cause": cause} if cause else None
    return CheckResult(check_id, check_id.title(), passed, 1.0 if passed else 0.0, 1.0,
                       visibility=visibility, message=message or ("passed" if passed else "failed"),
                       diagnoses=list(diagnoses), details=details)


def stub_report() -> GradeReport:
    report = GradeReport("ex", "Exercise")
    for name in ("train", "encode"):
        checks = [check(f"{name}-case-{i}", False, CRASH) for i in range(10)]
        checks += [check(f"{name}-property-{i}", False, f"not checked: {CRASH}", cause=CRASH)
                   for i in range(5)]
        checks += [check(f"{name}-hidden-{i}", False, visibility="hidden") for i in range(5)]
        report.milestones.append(MilestoneResult(name, name.title(), checks, 20.0))
    return report


def test_thirty_identical_failures_are_written_out_once():
    text = render(stub_report(), "text")
    assert text.count("NotImplementedError") == 2  # once in full, once referring back
    assert "and 14 more failed the same way" in text
    assert "15 checks failed the same way as in [train]" in text
    assert "5 checks failed (hidden" in text
    assert len(text.splitlines()) < 25


def test_a_correct_submission_is_a_line_per_milestone_unless_verbose():
    checks = [check(f"case-{i}", True) for i in range(30)]
    report = GradeReport("ex", "Exercise", [MilestoneResult("train", "Train", checks, 30.0)])
    short = render(report, "text")
    assert "30 checks passed" in short and short.count("✓") == 1
    verbose = render(report, "text", verbose=True)
    assert verbose.count("✓") == 30
    assert "30 checks passed" not in render(report, "text", failures_only=True)


def test_a_milestones_likely_mistakes_are_shown_once_with_their_evidence():
    checks = [check(f"case-{i}", False, f"merge {i} differs", [TIES]) for i in range(7)]
    report = GradeReport("ex", "Exercise", [MilestoneResult("train", "Train", checks, 7.0)])
    text = render(report, "text")
    assert text.count("Likely mistake") == 1
    assert "all 3 failing inputs" in " ".join(text.split())
    assert render(report, "text", verbose=True).count("Likely mistake") == 1


def test_several_surviving_names_are_one_of_these():
    checks = [check("case-1", False, "differs", [TIES, OTHER])]
    report = GradeReport("ex", "Exercise", [MilestoneResult("train", "Train", checks, 1.0)])
    text = " ".join(render(report, "text").split())
    assert "Likely mistake, one of these 2:" in text
    assert text.index("Ties broken") < text.index("Pair counts taken once")


def test_failures_only_leaves_passed_checks_out_and_keeps_failures():
    checks = [check("case-1", True), check("case-2", False, "merge 1 differs")]
    report = GradeReport("ex", "Exercise", [MilestoneResult("train", "Train", checks, 2.0)])
    text = render(report, "text", failures_only=True)
    assert "✓" not in text and "merge 1 differs" in text


def test_the_documents_name_a_mistake_once_and_the_data_formats_per_check():
    checks = [check(f"case-{i}", False, f"differs on input {i}", [TIES]) for i in range(3)]
    report = GradeReport("ex", "Exercise", [MilestoneResult("train", "Train", checks, 3.0)])
    for fmt in ("text", "markdown", "html"):
        assert render(report, fmt).count("Ties broken by the pair met first") == 1, fmt
    assert render(report, "json").count("Ties broken by the pair met first") == 3
