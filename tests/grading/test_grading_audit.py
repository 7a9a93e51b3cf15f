"""``grade audit``: exit status, what it reports, and that it finds a weak exercise's gaps.

The full audit of every shipped exercise runs once per test process (tests/support/audits.py;
tests/mistakes/test_mistaken_students.py checks it through); here the command runs on a few
mistakes at a time, and two tests read what they need from the full audits.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from grader.commands.cli import main
from grader.grading.audit import exercise_without_efficiency, run_audit
from grader.spec import load_exercise
from grader.spec.loading import exercise_path
from support.audits import audit_group, audit_of

ROOT = Path(__file__).resolve().parents[2]


def grade(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def weak_exercise(tmp_path: Path) -> Path:
    """bpe-train-encode cut down to one train case on which no tie rule makes a difference."""
    data = yaml.safe_load(exercise_path("bpe-train-encode").read_text(encoding="utf-8"))
    data["id"] = "weak"
    data["functions"] = {"train": data["functions"]["train"]}
    data["milestones"] = [{"id": "train", "title": "Train", "points": 10, "function": "train",
                           "checks": [{"kind": "cases"}]}]
    data["cases"] = [{"id": "one-word", "visibility": "public", "corpus": ["ab"], "num_merges": 2}]
    path = tmp_path / "weak.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def test_audit_of_a_few_mistakes_passes_and_says_what_caught_them():
    result = grade("audit", "bpe-train-encode", "--mistake", "ties-first-seen",
                   "--mistake", "encode-longest-match")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "Audit of bpe-train-encode: 2 of 2 known mistakes caught"
    assert lines[1].startswith("✓ a correct student-style submission scores 100/100")
    first_seen = next(line for line in lines if "ties-first-seen" in line)
    assert first_seen.lstrip().startswith("✓") and "fails train (" in first_seen
    assert "encode" not in first_seen.split("fails")[1]
    longest = next(line for line in lines if "encode-longest-match" in line)
    assert "fails encode (" in longest and "train" not in longest.split("fails")[1]
    assert lines[-1] == "Audit passed."


def test_audit_json_lists_each_mistake_with_the_checks_that_caught_it():
    result = grade("audit", "lesson97-bpe", "--mistake", "lengths-char-letters-only",
                   "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["ok"] is True and data["reference"]["full_marks"] is True
    [mistake] = data["mistakes"]
    assert mistake["id"] == "lengths-char-letters-only"
    assert mistake["affected"] == ["sequence-lengths"] and mistake["missed"] == []
    assert mistake["failed"] == ["sequence-lengths"]
    assert mistake["catching_checks"]["sequence-lengths"]
    assert mistake["named_in"] == ["sequence-lengths"]


def test_a_weak_exercise_fails_its_audit_and_is_told_which_check_to_strengthen(tmp_path):
    result = grade("audit", str(weak_exercise(tmp_path)), "--mistake", "ties-first-seen")
    assert result.exit_code == 3  # the verdict is no
    line = next(line for line in result.output.splitlines() if "ties-first-seen" in line)
    assert line.lstrip().startswith("✗") and "PASSES train" in line
    assert "no check of 'train' (cases) tells it from the reference" in result.output
    assert "add a case whose corpus shows it" in result.output
    assert result.output.rstrip().endswith("Audit FAILED: see the lines marked ✗ and !.")


def test_usage_errors_exit_2_with_a_clear_message():
    unknown_exercise = CliRunner().invoke(main, ["audit", "no-such-exercise"])
    assert unknown_exercise.exit_code == 2
    assert "no exercise 'no-such-exercise'" in unknown_exercise.output
    unknown_mistake = CliRunner().invoke(main, ["audit", "bpe-train-encode", "--mistake", "typo"])
    assert unknown_mistake.exit_code == 2
    assert "no applicable mistake typo" in unknown_mistake.output
    assert "ties-first-seen" in unknown_mistake.output  # the known ids are listed


def test_the_exercises_own_tie_rule_is_not_audited_as_a_mistake():
    result = grade("audit", "bpe-train-encode", "--mistake", "ties-lexicographic")
    assert result.exit_code == 2
    assert "no applicable mistake ties-lexicographic" in result.output


def test_a_reference_that_loses_points_fails_the_audit(tmp_path):
    broken = tmp_path / "student.py"
    broken.write_text("# exercise: bpe-train-encode\ndef train_bpe(corpus, num_merges):\n"
                      "    return []\n", encoding="utf-8")
    exercise = exercise_without_efficiency(load_exercise("bpe-train-encode"))
    audit = run_audit(exercise, mistake_ids=[], reference_submission=broken)
    assert not audit.ok and not audit.reference.full_marks
    assert any("encode" in error for error in audit.reference.errors)


def test_auditing_drops_only_the_timing_checks():
    exercise = load_exercise("bpe-train-encode")
    trimmed = exercise_without_efficiency(exercise)
    assert [m.id for m in trimmed.milestones] == ["train", "encode"]
    assert trimmed.milestones[0].checks == exercise.milestones[0].checks


def trivial_only_exercise(tmp_path: Path) -> Path:
    """bpe-train-encode's train milestone with one case whose answer is [] and properties:
    nothing in it needs real work, so an empty trainer passes it all."""
    data = yaml.safe_load(exercise_path("bpe-train-encode").read_text(encoding="utf-8"))
    data["id"] = "trivial-only"
    data["functions"] = {"train": data["functions"]["train"]}
    data["milestones"] = [{"id": "train", "title": "Train", "points": 10, "function": "train",
                           "checks": [{"kind": "cases"}, {"kind": "properties"}]}]
    data["cases"] = [{"id": "nothing", "visibility": "public", "corpus": [], "num_merges": 2}]
    path = tmp_path / "trivial-only.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


@pytest.mark.xdist_group(audit_group("lesson97-bpe"))
def test_the_audit_fails_when_doing_nothing_earns_points(tmp_path):
    exercise = load_exercise(str(trivial_only_exercise(tmp_path)))
    report = run_audit(exercise, mistake_ids=[], jobs=1)
    assert not report.ok
    assert set(report.do_nothing) == {"empty", "constant", "identity", "echo"}
    assert report.do_nothing["empty"] and report.do_nothing["empty"][0].startswith("train/")
    shipped = audit_of("lesson97-bpe")  # its full audit, shared with the other audit tests
    assert shipped.do_nothing == {kind: [] for kind in shipped.do_nothing} and shipped.ok


@pytest.mark.xdist_group(audit_group("bpe-train-encode"))
def test_a_mistake_on_real_work_keeps_points_and_the_audit_says_how_many():
    report = audit_of("bpe-train-encode")  # every mistake, ties-reverse-lexicographic among them
    audit = next(m for m in report.mistakes if m.id == "ties-reverse-lexicographic")
    assert audit.caught and audit.fair and not audit.unpaid
    points, most = audit.kept["train"].split("/")
    assert 0 < float(points) < float(most)
    assert report.ok


def test_the_audit_fails_when_real_work_earns_nothing(monkeypatch):
    # Without the evidence of a named mistake, a trainer right but for its tie rule passes
    # only trivial checks and would earn nothing: the audit must say so.
    from grader.grading import naming

    monkeypatch.setattr(naming.MilestoneObservations, "work_explained", lambda self, named: None)
    # Without the timing checks: the mistake is graded without them anyway, and timing the
    # reference beside the do-nothing submissions tells nothing about unpaid work.
    exercise = exercise_without_efficiency(load_exercise("bpe-train-encode"))
    report = run_audit(exercise, mistake_ids=["ties-reverse-lexicographic"], jobs=1)
    assert report.mistakes[0].unpaid == ["train"]
    assert not report.ok
