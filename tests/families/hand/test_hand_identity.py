"""Who a student is when no door names one: a classmate's solved answers file earns nothing.

Every door says who handed a file in (Gradescope's metadata, PrairieLearn's variant, GitHub's
actor, ``grade batch``'s student id). When it names no one it can use (a group submission, an
id that is no student id, a folder named "Mallory Smith"), the file is graded with no variant
credit and the report says why in one sentence; the file's own ``student:`` line, which anyone
can write, decides only where there is no door at all: ``grade submit`` on the student's own
machine.
"""

from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner

from grader.commands.cli import main
from grader.families.hand.audit import sheet_text
from grader.families.hand.expected import expected_answers
from grader.families.hand.mistakes import diagnostic_variant
from grader.grading.engine import grade_submission
from grader.spec import load_exercise
from grader.spec.hooks import NoSubmitter
from support.doors import handed_in_by, points, run_door

EXERCISE = load_exercise("hand-bpe")
SECRET = "course-secret"
WHY = "so the grader cannot tell whose corpus it is graded on"


def solved(student: str, secret: str = SECRET) -> str:
    """``student``'s answers file, every answer right."""
    return sheet_text(EXERCISE, student,
                      expected_answers(EXERCISE, diagnostic_variant(EXERCISE, student, secret)))


def one_sentence(text: str, reason: str) -> None:
    """The report says why once, in one sentence naming ``reason``, and claims no submitter."""
    sentence = next(line for line in text.split("\n") if WHY in line)
    assert reason in sentence and sentence.count(". ") == 0 and sentence.endswith(".")
    assert "handed in by '" not in text


DOORS = [
    ("gradescope", handed_in_by("gradescope", "ada@uni.edu", group=("bob@uni.edu",)),
     "Gradescope lists 2 submitters for it (a group submission)"),
    ("gradescope", handed_in_by("gradescope", "o'brien@uni.edu"),
     "who handed it in is named \"o'brien@uni.edu\", which is not a student id"),
    ("gradescope", {}, "Gradescope's submission_metadata.json, which names who handed it in, "
                       "cannot be read"),
    ("prairielearn", handed_in_by("prairielearn"), "PrairieLearn's variant (its "
                                                   "params.bpe_student) names no one"),
    ("classroom", handed_in_by("classroom"), "GitHub (GITHUB_ACTOR) names no one"),
]


@pytest.mark.parametrize("platform, identity, reason", DOORS,
                         ids=["gradescope-group", "gradescope-bad-email", "gradescope-no-metadata",
                              "prairielearn-no-student", "classroom-no-actor"])
def test_a_classmates_file_through_a_door_that_names_no_one_earns_nothing(tmp_path, platform,
                                                                          identity, reason):
    results, log = run_door(tmp_path, platform, EXERCISE, {"answers.yaml": solved("bob@uni.edu")},
                            secret=SECRET, **identity)
    if platform == "prairielearn":  # not gradable: no attempt is charged, no score recorded
        assert results["gradable"] is False and "score" not in results, log[-2000:]
    else:
        assert points(platform, results, EXERCISE.total_points) == 0, log[-2000:]
    one_sentence("\n".join(texts(results)), reason)


def texts(document) -> list[str]:
    """Every string a results document shows."""
    if isinstance(document, dict):
        return [text for value in document.values() for text in texts(value)]
    if isinstance(document, list):
        return [text for value in document for text in texts(value)]
    return [document] if isinstance(document, str) else []


def test_a_batch_folder_named_with_a_space_earns_nothing(tmp_path):
    folder = tmp_path / "class"
    (folder / "Mallory Smith").mkdir(parents=True)
    (folder / "Mallory Smith" / "answers.yaml").write_text(solved("bob"), encoding="utf-8")
    (folder / "bob.yaml").write_text(solved("bob"), encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["batch", str(folder), "-o", str(out), "--exercise",
                                       "hand-bpe", "--seed-secret", SECRET, "--jobs", "1"])
    assert result.exit_code == 0, result.output
    rows = {row["student"]: row for row in csv.DictReader((out / "grades.csv").open())}
    assert float(rows["bob"]["total"]) == EXERCISE.total_points
    assert float(rows["Mallory Smith"]["total"]) == 0
    one_sentence("\n".join(rows["Mallory Smith"].values()),
                 "who handed it in is named 'Mallory Smith', which is not a student id")


@pytest.mark.parametrize("submitter, reason", [
    ("Jane Doe", "who handed it in is named 'Jane Doe', which is not a student id"),
    (NoSubmitter("Gradescope lists 3 submitters for it (a group submission)"),
     "Gradescope lists 3 submitters for it (a group submission)"),
])
def test_the_engine_gives_no_variant_credit_without_a_usable_submitter(tmp_path, submitter,
                                                                       reason):
    path = tmp_path / "answers.yaml"
    path.write_text(solved("bob"), encoding="utf-8")
    report = grade_submission(path, EXERCISE, seed_secret=SECRET, submitter=submitter)
    assert report.score == 0
    [error] = report.errors
    one_sentence(error, reason)


def test_the_students_own_file_graded_on_their_machine_gets_full_feedback(tmp_path):
    path = tmp_path / "answers.yaml"
    right = expected_answers(EXERCISE, diagnostic_variant(EXERCISE, "ada", SECRET))
    path.write_text(sheet_text(EXERCISE, "ada", {**right, "first-merge": {"pair": "x y",
                                                                          "count": 1}}))
    result = CliRunner().invoke(main, ["submit", str(path), "--seed-secret", SECRET, "-q",
                                       "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["score"] == EXERCISE.total_points - 15 and report.get("gradable", True)
    assert WHY not in result.output
    path.write_text(solved("ada"))
    result = CliRunner().invoke(main, ["submit", str(path), "--seed-secret", SECRET, "-q"])
    assert WHY not in result.output and f"{EXERCISE.total_points:g}" in result.output


def test_grade_submit_says_why_when_a_platform_names_no_one(tmp_path):
    path = tmp_path / "answers.yaml"
    path.write_text(solved("bob"), encoding="utf-8")
    reason = "Gradescope lists 2 submitters for it (a group submission)"
    result = CliRunner().invoke(main, ["submit", str(path), "--seed-secret", SECRET, "-q",
                                       "--no-student", reason])
    assert result.exit_code == 0 and reason in result.output and WHY in result.output
    both = CliRunner().invoke(main, ["submit", str(path), "--student", "bob", "--no-student", "x"])
    assert both.exit_code == 2 and "not both" in both.output


EXPORT = """\
submission_101:
  :submitters:
  - :name: Ada Lovelace
    :sid: '1001'
    :email: ada@uni.edu
submission_102:
  :submitters:
  - :name: Bob Bell
    :sid: '1002'
    :email: bob@uni.edu
submission_103:
  :submitters: []
"""


@pytest.mark.parametrize("student_id", ["email", "sid"])
def test_a_file_is_graded_the_same_through_the_gradescope_door_and_a_batch_of_its_export(
        tmp_path, student_id):
    """Under either setting of which id names a student, both doors take that id for who
    handed a file in: ada's own file (rendered for her e-mail or her SID) scores full marks
    either way, bob's copy of it the same low score either way, and a submission the export
    names no one for earns nothing and says why."""
    people = (("ada", "1001", "ada@uni.edu"), ("bob", "1002", "bob@uni.edu"))
    ada = solved("ada@uni.edu" if student_id == "email" else "1001")
    door = {}
    for name, sid, email in people:
        metadata = {"submission_metadata.json": {"users": [
            {"email": email, "sid": sid, "id": int(sid), "name": name}]}}
        results, log = run_door(tmp_path / name, "gradescope", EXERCISE, {"answers.yaml": ada},
                                secret=SECRET, metadata=metadata, student_id=student_id)
        door[sid] = results["score"]
    export = tmp_path / "export"
    export.mkdir()
    (export / "submission_metadata.yml").write_text(EXPORT)
    for entry in ("submission_101", "submission_102", "submission_103"):
        (export / entry).mkdir()
        (export / entry / "answers.yaml").write_text(ada, encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["batch", str(export), "-o", str(out), "--exercise",
                                       "hand-bpe", "--seed-secret", SECRET, "--jobs", "1",
                                       "--student-id", student_id])
    assert result.exit_code == 0, result.output
    rows = {row["student"]: row for row in csv.DictReader((out / "grades.csv").open())}
    batch = {sid: float(rows[sid]["total"]) for sid in ("1001", "1002")}
    assert door == batch == {"1001": EXERCISE.total_points, "1002": batch["1002"]}
    assert batch["1002"] < EXERCISE.total_points / 2
    kind = "e-mail" if student_id == "email" else "SID"
    one_sentence("\n".join(rows["submission_103"].values()),
                 f"Gradescope's export gives no {kind} for who handed in submission_103")


def test_the_other_setting_grades_a_file_on_another_variant(tmp_path):
    """The setting decides: ada's file rendered for her e-mail earns full marks at a door set
    to e-mails and not at one set to SIDs."""
    ada = solved("ada@uni.edu")
    metadata = {"submission_metadata.json": {"users": [
        {"email": "ada@uni.edu", "sid": "1001", "id": 1001, "name": "ada"}]}}
    scores = {}
    for setting in ("email", "sid"):
        results, _ = run_door(tmp_path / setting, "gradescope", EXERCISE, {"answers.yaml": ada},
                              secret=SECRET, metadata=metadata, student_id=setting)
        scores[setting] = results["score"]
    assert scores["email"] == EXERCISE.total_points > scores["sid"]


def test_the_roster_column_and_the_bundle_readme_follow_the_setting(tmp_path):
    from grader.bundles.starters import read_roster, starters_readme

    roster = tmp_path / "roster.csv"
    roster.write_text("Name,SID,Email\nAda,1001,ada@uni.edu\nBob,1002,bob@uni.edu\n")
    assert read_roster(roster, None, "email") == ["ada@uni.edu", "bob@uni.edu"]
    assert read_roster(roster, None, "sid") == ["1001", "1002"]
    assert read_roster(roster, "Name", "sid") == ["Ada", "Bob"]
    readme = starters_readme(EXERCISE, "gradescope", "seed-secret", "sid")
    assert "the SID of the submitter" in readme and "--id-column SID" in readme
    assert "--student-id sid" in readme
    written = CliRunner().invoke(main, ["stub", "hand-bpe", "--roster", str(roster), "--student-id",
                                        "sid", "--seed-secret", SECRET, "-o", str(tmp_path / "s")])
    assert written.exit_code == 0, written.output
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == ["1001", "1002"]
