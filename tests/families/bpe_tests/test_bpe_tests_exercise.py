"""The bpe-tests exercise end to end, in the sandbox: grade list, stub, submit, audit, and each
known suite's grade (graded once, by one audit, for the whole module)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from grader.commands.cli import main
from grader.families.bpe_tests.audit import run_tests_audit, suite_text
from grader.spec import load_exercise
from support.reports import without_durations

EXERCISE = "bpe-tests"


@pytest.fixture(scope="module")
def exercise():
    return load_exercise(EXERCISE)


@pytest.fixture(scope="module")
def audit(exercise):
    return run_tests_audit(exercise)


def milestone(report, milestone_id):
    return next(m for m in report.milestones if m.id == milestone_id)


def test_grade_list_shows_the_exercise():
    result = CliRunner().invoke(main, ["list"])
    assert result.exit_code == 0
    assert "bpe-tests" in result.output and "Known mistakes" not in result.output


def test_grade_list_families_says_what_its_students_hand_in():
    result = CliRunner().invoke(main, ["list", "--families"])
    lines = result.output.splitlines()
    at = lines.index(next(line for line in lines if line.startswith("bpe_tests ")))
    assert lines[at + 1].strip() == "no functions: students hand in a Python test file"


def test_the_stub_is_graded_and_its_example_tests_count(tmp_path):
    runner = CliRunner()
    stub = tmp_path / "test_bpe.py"
    assert runner.invoke(main, ["stub", EXERCISE, "-o", str(stub)]).exit_code == 0
    result = runner.invoke(main, ["submit", str(stub), "--format", "json"])
    assert result.exit_code == 0, result.output
    import json
    report = json.loads(result.output)
    valid = next(m for m in report["milestones"] if m["id"] == "valid")
    assert valid["score"] == valid["max_score"] == 10
    assert 0 < report["score"] < 90  # two tests catch some mistakes, not all


def test_a_thorough_suite_scores_at_least_90(audit):
    assert audit.reference.score >= 90 and audit.reference.full_marks


def test_a_suite_without_a_tie_corpus_loses_the_tie_group_with_the_hint(audit):
    ties = milestone(audit.reports["tie-blind"], "ties")
    assert ties.score == 0
    first_seen = next(c for c in ties.checks if c.id == "catches:ties-first-seen")
    assert first_seen.message.startswith(
        "A trainer with this mistake passes all your tests: add a test with a corpus where "
        "several pairs tie for the highest count.")
    assert milestone(audit.reports["tie-blind"], "valid").score == 10


def test_assert_true_tests_and_a_file_without_tests_score_0(audit):
    assert audit.reports["assert-true"].score == 0
    assert audit.reports["no-tests"].score == 0
    messages = [c.message for c in milestone(audit.reports["assert-true"], "valid").checks]
    assert any("calls neither train_bpe nor encode" in m for m in messages)
    assert any("catches every exception" in m for m in messages)


def test_a_test_failing_on_the_reference_is_shown_with_the_references_output(audit):
    valid = milestone(audit.reports["fails-on-reference"], "valid")
    failing = next(c for c in valid.checks if c.id == "valid:test_encode_lower")
    assert failing.score == 0
    assert ("Your test expects ['lo', 'w</w>'] from encode('lower', [('e', 's'), ('es', 't'), "
            "('est', '</w>'), ('l', 'o'), ('lo', 'w')]), the correct BPE returns ['low', 'e', "
            "'r', '</w>']") in failing.message


def test_grade_audit_passes(audit):
    assert audit.ok
    assert not any(audit.do_nothing.values())


def test_a_test_file_cannot_read_the_served_implementations(exercise, tmp_path):
    from grader.families.api import grade_submission
    probe = tmp_path / "test_probe.py"
    probe.write_text(suite_text(exercise, "no-tests") + (
        "\n\ndef test_reads_the_implementation():\n"
        "    import bpe\n"
        "    assert 'mistake' not in repr(vars(bpe))\n"
        "    assert not hasattr(bpe.train_bpe, '__wrapped__')\n"
        "    assert bpe.train_bpe.__code__.co_filename != __import__('grader').__file__\n"),
        encoding="utf-8")
    report = grade_submission(probe, exercise, helper=False)
    checks = milestone(report, "valid").checks
    # the import of grader fails in the sandbox: the test cannot even name the grader
    assert checks[0].score == 0 and "ModuleNotFoundError" in checks[0].message


MIXED = '''# exercise: bpe-tests
import time

from bpe import train_bpe


def test_a_bad_corpus_raises():
    try:
        train_bpe("low lower", 1)
    except ValueError:
        return
    assert False, "a str corpus was accepted"


def test_with_a_fixture(corpus):
    assert train_bpe(corpus, 1)


def test_on_the_clock():
    assert train_bpe([str(time.time_ns())], 1)


def test_forever():
    while True:
        pass


def test_twice():
    assert False


def test_twice():
    assert train_bpe(["a"], 1) == [("a", "</w>")]


class TestInAClass:
    def test_method(self):
        assert train_bpe(["a"], 1) == [("a", "</w>")]
'''


@pytest.fixture(scope="module")
def mixed(exercise, tmp_path_factory):
    from grader.families.api import grade_submission
    path = tmp_path_factory.mktemp("mixed") / "test_mixed.py"
    path.write_text(MIXED, encoding="utf-8")
    report = grade_submission(path, exercise, helper=False)
    return report, {check.title: check for check in milestone(report, "valid").checks}


def test_each_kind_of_test_gets_its_verdict_and_only_valid_ones_earn(mixed):
    report, mixed = mixed
    assert report.notes == ["class TestInAClass (line 36) holds test methods, which are not "
                            "run: write them as plain functions at the top level of the file"]
    assert list(mixed) == ["test_a_bad_corpus_raises", "test_with_a_fixture",
                           "test_on_the_clock", "test_forever", "test_twice"]
    assert mixed["test_a_bad_corpus_raises"].passed  # a do-nothing BPE raises nothing
    assert mixed["test_twice"].passed  # the def that runs is the last one
    assert "takes arguments" in mixed["test_with_a_fixture"].message
    assert "not deterministic" in mixed["test_on_the_clock"].message
    assert "seed your random inputs" in mixed["test_on_the_clock"].message
    assert mixed["test_forever"].message.startswith("too slow")
    assert all(mixed[name].score == 0 for name in ("test_with_a_fixture", "test_on_the_clock",
                                                   "test_forever"))


def test_importing_pytest_is_answered_with_what_to_write_instead(exercise, tmp_path):
    from grader.families.api import grade_submission
    path = tmp_path / "test_pytest.py"
    path.write_text("# exercise: bpe-tests\nimport pytest\nfrom bpe import train_bpe\n\n\n"
                    "def test_a():\n    assert train_bpe(['a'], 1)\n", encoding="utf-8")
    report = grade_submission(path, exercise, helper=False)
    assert report.score == 0
    assert any("pytest is not available where your tests run" in error for error in report.errors)


def test_the_same_file_graded_again_gets_the_same_report(audit, exercise, tmp_path):
    from grader.families.api import grade_submission
    path = tmp_path / "test_tie_blind.py"
    path.write_text(suite_text(exercise, "tie-blind"), encoding="utf-8")
    again = grade_submission(path, exercise, helper=False)
    assert without_durations(again.to_json()) == without_durations(
        audit.reports["tie-blind"].to_json())
