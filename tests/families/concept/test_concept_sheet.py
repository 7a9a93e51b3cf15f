"""lesson97-checks, the concept family's sheet: per-student orders, partial credit, lenient
reading, explanations that teach without giving away what an untouched sheet did not ask,
and the audit (right sheets 100, the untouched sheet 0, every known wrong answer caught)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.commands.cli import main
from grader.families.concept.answers import expected_answers, read_label, read_letter, read_number
from grader.families.concept.audit import sheet_text
from grader.families.concept.mistakes import catalogue
from grader.families.concept.sheet import render_sheet
from grader.families.concept.variants import draw_sheet
from grader.grading.student_ids import DEFAULT_SECRET
from grader.grading.audit import run_audit
from grader.grading.engine import grade_submission
from grader.spec import load_exercise

ROOT = Path(__file__).resolve().parents[3]
EXERCISE = load_exercise("lesson97-checks")
SECRET = "course-secret"


def grade(tmp_path: Path, student: str, answers: dict, **options):
    path = tmp_path / f"{student}-{len(list(tmp_path.iterdir()))}.yaml"
    path.write_text(sheet_text(EXERCISE, student, answers), encoding="utf-8")
    return grade_submission(path, EXERCISE, seed_secret=SECRET, helper=False, **options)


def right_answers(student: str, secret: str = SECRET) -> dict:
    return expected_answers(EXERCISE, draw_sheet(EXERCISE, student, secret))


def milestone(report, milestone_id):
    return next(m for m in report.milestones if m.id == milestone_id)


def messages(report) -> list[str]:
    return [c.message for m in report.milestones for c in m.checks]


def test_grade_list_shows_the_sheet_and_its_audit_passes():
    listed = CliRunner().invoke(main, ["list"])
    assert listed.exit_code == 0 and "lesson97-checks" in listed.output
    audit = run_audit(EXERCISE)
    assert audit.ok, audit.to_json()
    assert audit.reference.score == audit.reference.max_score == 100
    assert audit.do_nothing == {"untouched": []}
    assert len(audit.mistakes) == len(catalogue(EXERCISE)) >= 15
    named = {m.id for m in audit.mistakes if m.named}
    # every wrong option the lesson explains is named in the feedback
    assert {"check1-merge-selection:b-c", "check3-vocab-size:32k-to-char",
            "check2-wordpiece-pick:1", "wordpiece-objective:right"} <= named


def test_each_student_sees_the_options_in_an_order_of_their_own():
    first, second = draw_sheet(EXERCISE, "s001", SECRET), draw_sheet(EXERCISE, "s002", SECRET)
    assert first == draw_sheet(EXERCISE, "s001", SECRET)
    assert first.labels != second.labels
    assert draw_sheet(EXERCISE, "s001", "another-secret").labels != first.labels
    # across a class, the right letter of an item is spread over the letters
    # but never the letter the deck prints it under (A), where the deck's letters would answer it
    for item in ("check1-merge-selection", "check3-vocab-size"):
        letters = {right_answers(f"s{n:03}")[item]["survivor"] for n in range(40)}
        assert letters == {"B", "C", "D"}, item


def test_the_sheet_shows_every_option_and_no_answer():
    text = render_sheet(EXERCISE, draw_sheet(EXERCISE, "s001", SECRET))
    assert text.startswith("# exercise: lesson97-checks\n") and 'student: "s001"' in text
    for item in EXERCISE.items:
        assert f"\n{item.key}:" in text
    assert "(a, b): frequency 10 + 5 = 15" in text
    assert "tempts" not in text and "Why" not in text
    assert "24,576,000" not in text  # a refilled cell


def test_a_classmates_file_does_not_score_under_another_name(tmp_path):
    report = grade(tmp_path, "s001", right_answers("s001"))
    assert report.score == 100
    copied = grade(tmp_path, "s001", right_answers("s001"), submitter="s002")
    assert copied.score < 100
    assert any("handed in by 's002'" in note and "sheet" in note for note in copied.errors)


def test_rule_out_earns_per_strike_and_nothing_for_striking_the_survivor(tmp_path):
    right = right_answers("ada")
    answer = right["check1-merge-selection"]
    half_done = {**right, "check1-merge-selection": {"struck": answer["struck"][:2], "survivor": ""}}
    assert milestone(grade(tmp_path, "ada", half_done), "check-1").score == pytest.approx(5)
    everything = {**right, "check1-merge-selection": {
        "struck": answer["struck"] + [answer["survivor"]], "survivor": answer["survivor"]}}
    assert milestone(grade(tmp_path, "ada", everything), "check-1").score == 0
    only_survivor = {**right, "check1-merge-selection": {"struck": [], "survivor": answer["survivor"]}}
    assert milestone(grade(tmp_path, "ada", only_survivor), "check-1").score == pytest.approx(7.5)


def test_a_match_earns_per_term_and_a_description_given_twice_earns_for_neither(tmp_path):
    right = right_answers("ada")
    terms = right["sentencepiece-properties"]
    first, second, third = terms
    swapped = {**terms, first: terms[second], second: terms[first]}
    report = grade(tmp_path, "ada", {**right, "sentencepiece-properties": swapped})
    assert milestone(report, "which-is-which").score == pytest.approx(10 + 10 / 3, abs=1e-3)
    doubled = {**terms, second: terms[first]}
    report = grade(tmp_path, "ada", {**right, "sentencepiece-properties": doubled})
    assert milestone(report, "which-is-which").score == pytest.approx(10 + 10 / 3, abs=1e-3)
    # sorting into groups: several terms share a description, and that is right
    assert len(set(right["word-level-tokens"].values())) == 2
    assert milestone(grade(tmp_path, "ada", right), "which-is-which").score == 20


def test_answers_are_read_where_the_intent_is_clear(tmp_path):
    assert [read_letter(v) for v in ("b", "(B)", " B. (b, c)", "B)", "bc", "", 3)] == \
        ["B", "B", "B", "B", None, None, None]
    assert [read_label(v) for v in ("d2", "D2", "2", 2, " d 2 ", "x2", True)] == \
        ["d2", "d2", "d2", "d2", "d2", None, None]
    assert [read_number(v) for v in (24576000, "24,576,000", "24 576 000", "1.44x", "1.44×",
                                     "17.6", "1e3", "", "many", True)] == \
        [24576000, 24576000, 24576000, 1.44, 1.44, 17.6, 1000, None, None, None]
    right = right_answers("ada")
    table = {row: {key: f"{value:,}" for key, value in cells.items()}
             for row, cells in right["vocab-size-table"].items()}
    table["char (~100)"]["attention_cost"] = "17.6"  # within the column's 1 %
    report = grade(tmp_path, "ada", {**right, "vocab-size-table": table,
                                     "check2-wordpiece-pick": "(Z, W)"})
    assert report.score == 100


def test_an_untouched_sheet_scores_nothing_and_learns_no_answer(tmp_path):
    path = tmp_path / "answers.yaml"
    path.write_text(render_sheet(EXERCISE, draw_sheet(EXERCISE, "s001", SECRET)), encoding="utf-8")
    report = grade_submission(path, EXERCISE, seed_secret=SECRET, helper=False)
    assert report.score == 0 and not report.errors
    text = " ".join(messages(report))
    assert "The answer is" not in text and "can be ruled out too" not in text
    assert not [d for m in report.milestones for c in m.checks for d in c.diagnoses]


def test_a_wrong_answer_teaches_and_names_why_it_tempts(tmp_path):
    right = right_answers("ada")
    sheet = draw_sheet(EXERCISE, "ada", SECRET)
    tempting = sheet.label_of("check1-merge-selection", "b-c")
    wrong = {**right, "check1-merge-selection": {
        "struck": [label for label in sheet.labels["check1-merge-selection"] if label != tempting],
        "survivor": tempting}}
    report = grade(tmp_path, "ada", wrong)
    check_1 = milestone(report, "check-1")
    assert check_1.score == 0 and {m.id for m in report.milestones if not m.passed} == {"check-1"}
    survivor = next(c for c in check_1.checks if c.id.endswith(":survivor"))
    assert "The answer is" in survivor.message and "15 in total" in survivor.message
    assert [d.id for d in survivor.diagnoses] == ["check1-merge-selection:b-c"]
    assert "second step" in survivor.diagnoses[0].message


def test_without_explanations_a_wrong_answer_says_where_to_look_and_not_what_is_right(tmp_path):
    quiet = EXERCISE.model_copy(update={"answers": EXERCISE.answers.model_copy(update={"explain": False})})
    right = right_answers("ada")
    path = tmp_path / "answers.yaml"
    path.write_text(sheet_text(quiet, "ada", {**right, "check2-wordpiece-pick": "X",
                                              "check1-merge-selection": {"struck": [], "survivor": "Q"}}),
                    encoding="utf-8")
    report = grade_submission(path, quiet, seed_secret=SECRET, helper=False)
    failing = [c.message for m in report.milestones for c in m.checks if not c.passed]
    assert failing and not any("The answer is" in text or "Why:" in text for text in failing)
    assert any("Look again at deck, check 2" in text for text in failing)


def test_a_file_that_cannot_be_read_is_not_gradable_with_its_line(tmp_path):
    path = tmp_path / "answers.yaml"
    path.write_text('# exercise: lesson97-checks\nstudent: "ada"\nmerges_out_of_order: !!binary aGk=\n',
                    encoding="utf-8")
    report = grade_submission(path, EXERCISE, seed_secret=SECRET, helper=False)
    assert report.score == 0 and "line 3" in " ".join(report.errors)
    path.write_text("# exercise: lesson97-checks\nmerges_out_of_order: A\n", encoding="utf-8")
    report = grade_submission(path, EXERCISE, seed_secret=SECRET, helper=False)
    assert report.score == 0 and "order of your options" in " ".join(report.errors)


def test_the_examples_grade_as_their_comments_say():
    correct = grade_submission(ROOT / "examples" / "lesson97-checks" / "answers_correct.yaml",
                               seed_secret=DEFAULT_SECRET)
    assert correct.score == 100
    wrong = grade_submission(ROOT / "examples" / "lesson97-checks" / "answers_wrong.yaml",
                             seed_secret=DEFAULT_SECRET)
    named = {d.id for m in wrong.milestones for c in m.checks for d in c.diagnoses}
    assert named == {"merges-out-of-order:nothing", "check1-merge-selection:b-c",
                     "check2-wordpiece-pick:1"}
    assert wrong.score == pytest.approx(48.5)


def test_grade_stub_gives_two_students_two_orders(tmp_path):
    runner = CliRunner()
    for student in ("s001", "s002"):
        result = runner.invoke(main, ["stub", "lesson97-checks", "--student", student,
                                      "--seed-secret", SECRET, "-o", str(tmp_path / f"{student}.yaml")])
        assert result.exit_code == 0, result.output
    one = (tmp_path / "s001.yaml").read_text(encoding="utf-8")
    two = (tmp_path / "s002.yaml").read_text(encoding="utf-8")
    assert one != two and one.replace("s001", "s002") != two
    missing = runner.invoke(main, ["stub", "lesson97-checks", "-o", str(tmp_path / "x.yaml")])
    assert missing.exit_code != 0 and "--student" in missing.output


def test_grade_check_names_what_cannot_be_graded(tmp_path):
    text = (ROOT / "exercises" / "lesson97-checks.yaml").read_text(encoding="utf-8")
    broken = (text.replace("    answer: a-b\n", "    answer: a-z\n", 1)
              .replace("items: [check2-wordpiece-pick]", "items: [check2-wordpiece-pick, no-such-item]", 1)
              .replace('      "char (~100)": [100, 42000, 76800, 17.64]',
                       '      "char (~100)": [100, 42000, "many", 17.64]', 1))
    path = tmp_path / "lesson97-checks.yaml"
    path.write_text(broken, encoding="utf-8")
    result = CliRunner().invoke(main, ["check", str(path)])
    assert result.exit_code == 3, result.output
    assert "the answer 'a-z' is none of the options' ids" in result.output
    assert "no item 'no-such-item'" in result.output
    assert "must be a number: students refill it" in result.output
    assert "Traceback" not in result.output
