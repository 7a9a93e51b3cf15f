"""The hand-bpe answers exercise: the hand exercises' worked answers, per-student variants,
reading answers files safely, and grading them without running any code.

The conformance tests rebuild the hand exercises' own corpora (4x cat 4x cap; 6x low 3x lower;
3x ab 2x abc) as variants and check the answers the exercises give: first merge and count,
the four-way tie at step 2 decided by the concatenated rule, ``caps`` -> cap s </w>,
``slow`` -> s low </w>, and the eight-token vocabulary.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.commands.cli import main
from grader.grading.data_file import DataFileError as AnswerFileError
from grader.grading.data_file import parse_data_file
from grader.families.hand.audit import sheet_text
from grader.grading.audit import run_audit
from grader.grading.engine import grade_submission
from grader.families.hand.mistakes import HAND_MISTAKES, diagnostic_variant, same_answer
from grader.spec import load_exercise
from grader.families.hand.expected import expected_answers
from grader.grading.secrets import SECRET_ENV
from grader.families.hand.variants import Variant, decided_tie, first_tie
from grader.grading.student_ids import DEFAULT_SECRET, VariantError, course_secret
from reference.plain import train_steps

ROOT = Path(__file__).resolve().parents[3]
EXERCISE = load_exercise("hand-bpe")
STUDENTS = [f"student{number}" for number in range(12)]


def read_answer_file(path, limit):
    return parse_data_file(path.name, path.read_bytes(), limit)


def hand_variant(corpus, num_merges, words=(), pair_counts_step=2):
    steps = tuple(train_steps(corpus, num_merges, tie_break="concatenated"))
    return Variant("hand", corpus, tuple(words), num_merges, pair_counts_step,
                   first_tie(list(steps)) or 1, steps)


# --------------------------------------------------------------------------- the hand exercises


def test_cat_cap_first_merge_tie_and_caps():
    variant = hand_variant({"cat": 4, "cap": 4}, 2, words=["caps"])
    answers = expected_answers(EXERCISE, variant)
    assert answers["first-merge"] == {"pair": "c a", "count": 8}
    assert answers["pair-counts"] == {"ca t": 4, "t </w>": 4, "ca p": 4, "p </w>": 4}
    assert answers["tie"] == {"step": 2, "tied": ["ca p", "ca t", "p </w>", "t </w>"],
                              "chosen": "ca p", "rule": "concatenated"}
    assert answers["tokens"] == {"caps": ["cap", "s", "</w>"]}


def test_low_lower_tie_at_the_first_step_and_slow():
    variant = hand_variant({"low": 6, "lower": 3}, 2, words=["slow"])
    answers = expected_answers(EXERCISE, variant)
    assert answers["first-merge"] == {"pair": "l o", "count": 9}
    assert answers["tie"]["step"] == 1 and answers["tie"]["tied"][:2] == ["l o", "o w"]
    assert answers["tokens"] == {"slow": ["s", "low", "</w>"]}


def test_ab_abc_vocabulary_of_eight():
    variant = hand_variant({"ab": 3, "abc": 2}, 4)
    vocabulary = expected_answers(EXERCISE, variant)["vocabulary"]
    assert sorted(vocabulary) == sorted(["a", "b", "c", "</w>", "ab", "ab</w>", "abc", "abc</w>"])
    assert expected_answers(EXERCISE, variant)["tie"]["chosen"] == "ab c"  # abc < c</w>


# --------------------------------------------------------------------------- variants


def test_same_student_same_variant_and_different_students_different_answers():
    first = diagnostic_variant(EXERCISE, "alice", DEFAULT_SECRET)
    assert diagnostic_variant(EXERCISE.model_copy(), "alice", DEFAULT_SECRET) == first
    answers = [repr(expected_answers(EXERCISE, diagnostic_variant(EXERCISE, s, DEFAULT_SECRET)))
               for s in STUDENTS]
    assert len(set(answers)) == len(STUDENTS)


def test_the_secret_changes_the_variants():
    by_secret = [[diagnostic_variant(EXERCISE, s, secret).corpus for s in STUDENTS[:4]]
                 for secret in (DEFAULT_SECRET, "course-2026-spring")]
    assert by_secret[0] != by_secret[1]


def test_secret_comes_from_the_option_then_the_environment(monkeypatch):
    monkeypatch.delenv(SECRET_ENV, raising=False)
    assert course_secret() == DEFAULT_SECRET
    monkeypatch.setenv(SECRET_ENV, "from-env")
    assert course_secret() == "from-env"
    assert course_secret("given") == "given"


@pytest.mark.parametrize("student", STUDENTS)
def test_every_variant_has_a_tie_the_rule_decides_and_exposes_every_mistake(student):
    variant = diagnostic_variant(EXERCISE, student, DEFAULT_SECRET)
    steps = list(variant.steps)
    assert len(steps) == EXERCISE.answers.num_merges
    assert decided_tie(steps[variant.tie_step - 1], "concatenated")
    expected = expected_answers(EXERCISE, variant)
    for mistake in HAND_MISTAKES:
        if mistake.tie_break == "concatenated":
            continue
        sheet = mistake.sheet(EXERCISE, variant)
        assert any(repr(sheet.get(q)) != repr(expected[q]) for q in expected), mistake.id


@pytest.mark.parametrize("student", ["", " alice", "a" * 65, "../x", None, 7])
def test_bad_student_ids_are_refused(student):
    with pytest.raises(VariantError, match="student id"):
        diagnostic_variant(EXERCISE, student, DEFAULT_SECRET)


# --------------------------------------------------------------------------- reading files


def write(tmp_path, text, name="answers.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_scalars_stay_strings_except_integers(tmp_path):
    data = read_answer_file(write(tmp_path, "a: [no, on, null, 1.5, 7, '8', 08, 2024-01-01]\n"), 1000)
    assert data == {"a": ["no", "on", "null", "1.5", 7, "8", 8, "2024-01-01"]}  # 08 is decimal


@pytest.mark.parametrize("text, message", [
    ("a: &x [1]\nb: *x\n", "anchors"),
    ("- 1\n- 2\n", "must be a YAML mapping"),
    ("a: [1\n", "not valid YAML"),
    ("a: " + "[" * 10 + "]" * 10 + "\n", "nests deeper"),
    ("a: !!binary aGVsbG8=\n", "line 1: the YAML tag !!binary is not allowed"),
    ("a: !!set {x, y}\n", "the YAML tag !!set is not allowed"),
    ("a: !!int 0xZZ\n", "'0xZZ' is not a whole number"),
    ("a: !!python/object:os.system x\n", "is not allowed"),
    ("a: !mine x\n", "the YAML tag !mine is not allowed"),
    ("a: " + "9" * 500 + "\n", "a number of 500 digits"),
    ('a: "\\ud800"\n', "line 1: the text holds a lone surrogate"),
    ("a:\n\tb: 1\n", "replace the tab at the start of that line with spaces"),
])
def test_unsafe_or_malformed_files_are_refused(tmp_path, text, message):
    with pytest.raises(AnswerFileError, match=message):
        read_answer_file(write(tmp_path, text), 1000)


def test_size_limit(tmp_path):
    with pytest.raises(AnswerFileError, match="at most 100"):
        read_answer_file(write(tmp_path, "a: " + "x" * 200 + "\n"), 100)


# --------------------------------------------------------------------------- grading


def sheet_for(student, tmp_path, change=None):
    variant = diagnostic_variant(EXERCISE, student, course_secret())
    answers = expected_answers(EXERCISE, variant)
    if change:
        answers.update(change(variant))
    return write(tmp_path, sheet_text(EXERCISE, student, answers), f"{student}.yaml")


def test_correct_answers_score_full_marks_without_a_sandbox(tmp_path):
    report = grade_submission(sheet_for("alice", tmp_path), EXERCISE)
    assert report.score == report.max_score == 100
    assert report.sandbox_layers == {}


def test_another_students_answers_do_not_pass(tmp_path):
    bob = diagnostic_variant(EXERCISE, "bob", course_secret())
    path = write(tmp_path, sheet_text(EXERCISE, "alice", expected_answers(EXERCISE, bob)))
    assert grade_submission(path, EXERCISE).score < 50


def test_a_wrong_answer_shows_the_trace_up_to_its_step_and_names_the_mistake(tmp_path):
    tie_rule = next(m for m in HAND_MISTAKES if m.id == "hand-ties-first-seen")
    student, variant = next(
        (s, v) for s in STUDENTS
        if not same_answer("tie", tie_rule.sheet(EXERCISE, v := diagnostic_variant(
            EXERCISE, s, course_secret()))["tie"], expected_answers(EXERCISE, v)["tie"]))
    path = sheet_for(student, tmp_path, lambda v: {"tie": tie_rule.sheet(EXERCISE, v)["tie"]})
    report = grade_submission(path, EXERCISE)
    assert [m.id for m in report.milestones if not m.passed] == ["tie"]
    check = next(m for m in report.milestones if m.id == "tie").checks[0]
    assert check.details["kind"] == "trace"
    assert f"Merge {variant.tie_step} of {variant.tie_step}" in check.details["trace"]
    assert f"Merge {variant.tie_step + 1} " not in check.details["trace"]
    assert "hand-ties-first-seen" in [d.id for d in check.diagnoses]


def test_the_wrong_example_fails_where_it_is_wrong(tmp_path):
    # the example files are answers to the variants of the practice secret
    report = grade_submission(ROOT / "examples" / "hand-bpe" / "answers_wrong.yaml",
                              seed_secret=DEFAULT_SECRET)
    failed = {m.id: {d.id for c in m.checks for d in c.diagnoses}
              for m in report.milestones if not m.passed}
    assert failed == {
        "pair-counts": {"hand-not-recounted"},
        "vocabulary": {"hand-vocabulary-no-marker"},
        "tokens": {"hand-encode-longest-match", "hand-encode-left-to-right"},
    }
    correct = grade_submission(ROOT / "examples" / "hand-bpe" / "answers_correct.yaml",
                               seed_secret=DEFAULT_SECRET)
    assert correct.score == correct.max_score


def test_a_file_without_a_student_id_is_not_gradable(tmp_path):
    report = grade_submission(write(tmp_path, "# exercise: hand-bpe\nfirst_merge: {}\n"), EXERCISE)
    assert report.score == 0 and report.errors
    assert "student id" in report.errors[0]


def test_the_audit_passes():
    audit = run_audit(EXERCISE)
    assert audit.ok, [m.to_json() for m in audit.mistakes if not m.caught] or audit.unexpected


# --------------------------------------------------------------------------- the stub


def test_stub_needs_a_student_and_renders_their_variant(tmp_path):
    runner = CliRunner()
    refused = runner.invoke(main, ["stub", "hand-bpe"])
    assert refused.exit_code == 2 and "--student" in refused.output
    alice = runner.invoke(main, ["stub", "hand-bpe", "--student", "alice"]).output
    bob = runner.invoke(main, ["stub", "hand-bpe", "--student", "bob"]).output
    assert alice != bob
    variant = diagnostic_variant(EXERCISE, "alice", course_secret())
    for word, count in variant.corpus.items():
        assert f"#   {word}: {count}" in alice
    path = write(tmp_path, alice)
    data = read_answer_file(path, 65536)
    assert data["student"] == "alice" and set(data["tokens"]) == set(variant.words)
    report = grade_submission(path)
    assert report.score == 0 and not report.errors
    secret = runner.invoke(main, ["stub", "hand-bpe", "--student", "alice",
                                  "--seed-secret", "another"]).output
    assert secret != alice


# --------------------------------------------------------------------------- marking as a person would


ALICE_WRONG_FIRST = """# exercise: hand-bpe
student: "alice"
first_merge:
  pair: "(r, o)"
  count: 5
pair_counts:
  "c a": 2
  "a p": 2
  "p </w>": 2
  "n e": 4
  "e w": 4
  "w e": 4
  "e r": 4
  "r </w>": 4
  "(ro, w)": 5
  "w </w>": 5
vocabulary: ["</w>", "a", "c", "e", "n", "o", "p", "r", "w", "ro", "row", "row</w>", "er", "er</w>"]
tokens:
  "nerow": ["n", "e", "row</w>"]
  "taps": ["t", "a", "p", "s", "</w>"]
tie:
  step: 1
  tied: [["o", "w"], "(r, o)", "w </w>"]
  chosen: "ow"
  rule: "concatenated"
"""


def test_answers_that_follow_from_a_wrong_first_merge_earn_their_part(tmp_path):
    # alice's corpus (practice secret) is cap: 2, newer: 4, row: 5; the rule merges (o, w)
    # first, this student (r, o), and every later answer is right for that first merge.
    report = grade_submission(write(tmp_path, ALICE_WRONG_FIRST), EXERCISE,
                              seed_secret=DEFAULT_SECRET)
    scores = {m.id: m.score for m in report.milestones}
    assert scores["first-merge"] == 0
    assert all(scores[m] == next(x.max_score for x in report.milestones if x.id == m)
               for m in ("pair-counts", "vocabulary", "tokens", "tie"))
    notes = {m.id: m.checks[0].message for m in report.milestones}
    assert notes["pair-counts"].startswith("right for your own first merge (r o)")
    assert notes["vocabulary"].startswith("right for your own first merge (r o)")
    assert notes["tie"] == "correct"  # written in three notations, all read as pairs


def test_answers_that_follow_from_nothing_get_nothing(tmp_path):
    text = ALICE_WRONG_FIRST.replace('"(ro, w)": 5', '"ro w": 4')
    report = grade_submission(write(tmp_path, text), EXERCISE, seed_secret=DEFAULT_SECRET)
    assert next(m for m in report.milestones if m.id == "pair-counts").score == 0


@pytest.mark.parametrize("written", ['"o w"', '["o", "w"]', '"(o, w)"', "\"('o', 'w')\"", '"ow"'])
def test_every_clear_notation_of_a_pair_is_read_as_the_pair(tmp_path, written):
    text = ALICE_WRONG_FIRST.replace('pair: "(r, o)"', f"pair: {written}")
    report = grade_submission(write(tmp_path, text), EXERCISE, seed_secret=DEFAULT_SECRET)
    assert next(m for m in report.milestones if m.id == "first-merge").passed


def test_a_tab_is_reported_once_with_the_fix(tmp_path):
    text = '# exercise: hand-bpe\nstudent: "alice"\nfirst_merge:\n\tpair: "o w"\n'
    report = grade_submission(write(tmp_path, text), EXERCISE, seed_secret=DEFAULT_SECRET)
    assert len(report.errors) == 1
    assert "replace the tab at the start of that line with spaces" in report.errors[0]
    from grader.report import render
    assert render(report, "text").count("found character '\\t'") == 1


def test_a_file_made_for_another_student_says_so(tmp_path):
    made = CliRunner().invoke(main, ["stub", "hand-bpe", "--student", "alice",
                                     "--seed-secret", DEFAULT_SECRET])
    assert made.exit_code == 0, made.output
    path = write(tmp_path, made.output.replace('student: "alice"', 'student: "alicee"'))
    report = grade_submission(path, EXERCISE, seed_secret=DEFAULT_SECRET)
    assert report.score == 0 and not report.gradable
    assert "was made for another corpus than the one student 'alicee' has" in report.errors[0]
    assert "cap: 2, newer: 4, row: 5" in report.errors[0]


@pytest.mark.parametrize("line, message", [
    ("", "the file has no student id: add the line student:"),
    ("student: 42", "put it in quotes"),
])
def test_a_missing_or_numeric_id_says_how_to_write_it(tmp_path, line, message):
    report = grade_submission(write(tmp_path, f"# exercise: hand-bpe\n{line}\nfirst_merge: {{}}\n"),
                              EXERCISE)
    assert message in report.errors[0]


def test_who_handed_the_file_in_decides_the_variant_not_its_student_line(tmp_path):
    alice = sheet_for("alice", tmp_path)
    own = grade_submission(alice, EXERCISE, submitter="alice")
    assert own.score == own.max_score and own.errors == []
    copied = grade_submission(alice, EXERCISE, submitter="bob")
    assert copied.score < 50 and copied.gradable
    assert "handed in by 'bob': it is graded on 'bob''s corpus" in copied.errors[0]


def test_a_batch_grades_each_file_as_its_students_own(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "alice.yaml").write_bytes(sheet_for("alice", tmp_path).read_bytes())
    (folder / "bob.yaml").write_bytes(sheet_for("alice", tmp_path).read_bytes())  # a copy
    result = CliRunner().invoke(main, ["batch", str(folder), "-o", str(tmp_path / "out"),
                                       "--exercise", "hand-bpe"])
    assert result.exit_code == 0, result.output
    import csv
    with (tmp_path / "out" / "grades.csv").open(encoding="utf-8") as handle:
        totals = {row["student"]: float(row["total"]) for row in csv.DictReader(handle)}
    assert totals["alice"] == 100 and totals["bob"] < 50


def test_a_platform_id_that_cannot_pick_a_variant_earns_nothing_whatever_the_files_line(tmp_path):
    report = grade_submission(sheet_for("alice", tmp_path), EXERCISE, submitter="Jane Doe")
    assert report.score == 0
    assert "who handed it in is named 'Jane Doe', which is not a student id" in report.errors[0]
