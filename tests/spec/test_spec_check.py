"""``grade check`` logic: shipped exercises are clean, wrong expected values are explained."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.spec.loading import exercise_ids
from grader.spec.check import check_spec

SPECS = Path(__file__).parents[1] / "specs"


def spec_with(tmp_path: Path, name: str, old: str, new: str) -> Path:
    """A copy of valid-minimal.yaml named ``name`` with ``old`` replaced by ``new``."""
    text = (SPECS / "valid-minimal.yaml").read_text(encoding="utf-8")
    assert old in text
    text = text.replace(old, new).replace("id: valid-minimal", f"id: {name}")
    path = tmp_path / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("exercise_id", exercise_ids())
def test_every_shipped_exercise_passes_check(exercise_id):
    report = check_spec(exercise_id)
    assert report.ok, "\n".join(str(p) for p in report.problems)
    assert "ok:" in report.summary()
    if not report.exercise.roles():
        return  # an answers file, no cases: every expected answer is computed per student
    # Authors can write expected values only for BPE's roles (merges, tokens, lengths).
    writable = "train" in report.exercise.roles()
    assert report.computed > 0 and (report.verified > 0 or not writable)
    assert "ok:" in report.summary()


def test_wrong_merge_list_is_explained_with_step_counts_tie_and_the_rule_that_fits():
    path = SPECS / "wrong-merges.yaml"
    report = check_spec(path)
    (problem,) = report.problems
    lines = path.read_text(encoding="utf-8").splitlines()
    assert problem.line == next(n for n, line in enumerate(lines, 1) if line.endswith("# ERROR"))
    assert problem.field == "cases[1].merges[1]"
    message = problem.message
    assert "step 2 departs from the reference: written (ca, t), but the reference merges (ca, p)" in message
    assert "(ca, p), (ca, t), (p, </w>), (t, </w>) tie at 2" in message
    assert "tie_break lexicographic" in message and "picks (ca, p)" in message
    assert "Pair counts at step 2: (ca, t)=2, (t, </w>)=2, (ca, p)=2, (p, </w>)=2" in message
    assert "what tie_break first-seen gives" in message


def test_a_pair_that_is_not_there_at_that_step_is_named(tmp_path):
    path = spec_with(tmp_path, "absent-pair", "num_merges: 3\n", "num_merges: 3\n    merges: [[a, b], [b, c], [ab, c]]\n")
    (problem,) = check_spec(path).problems
    assert problem.field == "cases[1].merges[1]"
    assert "(b, c) is not an adjacent pair at that step" in problem.message
    assert "Pair counts at step 2: (ab, </w>)=2, (ab, c)=1, (c, </w>)=1" in problem.message
    assert "No tie_break rule reproduces the written list" in problem.message


def test_a_less_frequent_pair_is_named_with_its_count(tmp_path):
    path = spec_with(tmp_path, "rare-pair", "num_merges: 3\n", "num_merges: 3\n    merges: [[b, c]]\n")
    problem = check_spec(path).problems[0]
    assert problem.field == "cases[1].merges[0]"
    assert "(b, c) occurs 1 times, fewer than 3" in problem.message


def test_too_short_and_too_long_merge_lists(tmp_path):
    short = spec_with(tmp_path, "short", "merges: [[l, o], [lo, w]]", "merges: [[l, o]]")
    (problem,) = check_spec(short).problems
    assert problem.field == "cases[0].merges"
    assert "lists 1 merges, but num_merges is 2 and the reference goes on: step 2 merges (lo, w)" in problem.message

    long = spec_with(tmp_path, "long", "num_merges: 1\n", "num_merges: 5\n    merges: [[a, a], [a, </w>], [aa, a</w>], [x, y]]\n")
    (problem,) = check_spec(long).problems
    assert problem.field == "cases[2].merges[3]"
    assert "training stops after 3" in problem.message
    assert "no pair remains" in problem.message


def test_wrong_tokens_and_lengths_are_reported_at_their_lines(tmp_path):
    path = spec_with(tmp_path, "tokens", "tokens: [low, e, s, t, </w>]", "tokens: [lowest, </w>]")
    (problem,) = check_spec(path).problems
    assert problem.field == "cases[0].encode[0].tokens"
    assert "gives [low, e, s, t, </w>], not [lowest, </w>]" in problem.message
    text = path.read_text(encoding="utf-8").splitlines()
    assert problem.line == next(n for n, line in enumerate(text, 1) if "tokens: [lowest" in line)


def test_wrong_sequence_lengths_name_each_wrong_count(tmp_path):
    text = (SPECS / "valid-minimal.yaml").read_text(encoding="utf-8")
    text = text.replace("id: valid-minimal", "id: lengths")
    text = text.replace("  encode:\n    name: encode", "  sequence_lengths:\n    name: sequence_lengths\n    signature: \"sequence_lengths(sentence: str, merges: list) -> dict[str, int]\"\n    doc: \"Count.\"\n  encode:\n    name: encode")
    text += "    sentence: \"aaa aa\"\n    lengths: {char: 5, bpe: 3, word: 2}\n"
    text = text.replace("      - {kind: cases}\n", "      - {kind: cases}\n  - id: lengths\n    title: Lengths\n    points: 5\n    function: sequence_lengths\n    checks: [{kind: cases}]\n")
    path = tmp_path / "lengths.yaml"
    path.write_text(text, encoding="utf-8")
    problems = check_spec(path).problems
    assert [p.field for p in problems] == ["cases[2].lengths.char", "cases[2].lengths.bpe"]
    assert "is 7 for this sentence and merges, not 5" in problems[0].message
    assert "is 5 for this sentence and merges, not 3" in problems[1].message


def test_a_spec_that_does_not_load_is_a_failed_check():
    report = check_spec(SPECS / "bad-tie-break.yaml")
    assert not report.ok and report.exercise is None
    assert "did not load" in report.summary()
