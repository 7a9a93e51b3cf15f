"""The step view in a real browser: a wrong submission of each family is graded once, its HTML
report opened in headless Chromium (driven by Playwright, one browser for the module), and
stepped to the first divergence with the keyboard and with clicks; what the page shows there
is checked against the grading's own evidence (the check's ``details``), not against the
step data the page was made from. A case that is hidden shows no step view."""

from __future__ import annotations

import ast
import dataclasses
import shutil
from pathlib import Path

import pytest

from grader.grading.engine import grade_submission
from grader.report import render
from grader.spec.loading import load_exercise
from grader.spec.registry import family_of

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install -e '.[dev]')")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (apt-get install -y chromium)")

WRONG = {
    "bpe-train-encode": "ties-first-seen",
    "byte-bpe": "byte-ties-smaller",
    "wordpiece": "wordpiece-raw-frequency",
    "unigram-lm": "unigram-greedy-longest-match",
}


def first_milestone(exercise_id: str, number: int = 0):
    """The exercise with its first milestone only (training, or segmentation; or another),
    and of it the cases check only: where the step view is, graded without the slower checks."""
    exercise = load_exercise(exercise_id)
    milestone = exercise.milestones[number]
    cases = [check for check in milestone.checks if check.kind == "cases"]
    return dataclasses.replace(exercise, milestones=[dataclasses.replace(milestone, checks=cases)])


def graded(exercise, mistake: str, folder: Path, name: str):
    source = family_of(exercise).students.source(exercise, mistake)
    path = folder / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    report = grade_submission(path, exercise)
    page = folder / f"{name}.html"
    page.write_text(render(report, "html"), encoding="utf-8")
    return report, page


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    folder = tmp_path_factory.mktemp("step-view")
    return {exercise_id: graded(first_milestone(exercise_id), mistake, folder, exercise_id)
            for exercise_id, mistake in WRONG.items()}


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture()
def page(browser):
    opened = browser.new_page(viewport={"width": 1280, "height": 900})
    yield opened
    opened.close()


def first_failing(report):
    return next(check for check in report.checks
                if not check.passed and check.visibility == "visible" and check.steps)


def step_to_divergence_with_keys(page, view, divergence: int) -> None:
    view.focus()
    page.keyboard.press("Home")
    assert view.get_attribute("data-current") == "1"
    for _ in range(divergence - 1):
        page.keyboard.press("ArrowRight")
    assert view.get_attribute("data-current") == str(divergence)


def click(view, name: str) -> None:
    """Click a control; one that cannot move (aria-disabled) is left alone, as a user would."""
    control = view.locator(f'[data-go="{name}"]')
    if control.get_attribute("aria-disabled") != "true":
        control.click()


def step_to_divergence_with_clicks(view, divergence: int) -> None:
    click(view, "last")
    click(view, "first")
    assert view.get_attribute("data-current") == "1"
    for _ in range(divergence - 1):
        click(view, "next")
    assert view.get_attribute("data-current") == str(divergence)


def shown_step(view):
    """The one step on screen, and its reference and student columns."""
    shown = view.locator(".sv-step:visible")
    assert shown.count() == 1
    return shown, shown.locator('[data-run="reference"]'), shown.locator('[data-run="student"]')


def open_view(page, report_page: Path):
    page.goto(report_page.as_uri())
    view = page.locator(".sv").first
    divergence = view.locator("[data-divergence]")
    assert divergence.count() == 1  # one first difference per view, marked
    number = int(divergence.get_attribute("data-step"))
    assert view.get_attribute("data-current") == str(number)  # opened there
    return view, number


def pair_text(pair) -> str:
    return f"({pair[0]}, {pair[1]})"


@pytest.mark.parametrize("exercise_id", ["bpe-train-encode", "wordpiece"])
def test_a_character_run_steps_to_its_divergence(page, reports, exercise_id):
    report, report_page = reports[exercise_id]
    difference = first_failing(report).details["first_difference"]
    view, divergence = open_view(page, report_page)
    assert divergence == difference["step"]
    for move in (lambda: step_to_divergence_with_keys(page, view, divergence),
                 lambda: step_to_divergence_with_clicks(view, divergence)):
        move()
        shown, reference, student = shown_step(view)
        assert shown.get_attribute("data-divergence") is not None
        assert reference.locator(".sv-pick").inner_text() == pair_text(difference["expected"])
        assert student.locator(".sv-pick").inner_text() == pair_text(difference["actual"])
        assert student.locator(".sv-rule-pick").inner_text() == pair_text(difference["expected"])
        tie = reference.locator(".sv-tie")
        if difference["tied"]:  # the pairs that tie, the rule's pick among them
            assert [code.inner_text() for code in tie.locator(".sv-tied code").all()] == \
                [pair_text(pair) for pair in difference["tied"]]
        else:
            assert tie.count() == 0
    if exercise_id == "wordpiece":  # scores as the fractions they come from
        scores = {tuple(row[:2]): row[2] for row in difference["pair_counts"]}
        assert reference.locator(".sv-value").inner_text() == scores[tuple(difference["expected"])]
        assert "/(" in reference.locator(".sv-value").inner_text()
    else:
        assert difference["tied"], "the tie-rule mistake departs at a tie"


def readable(token: bytes) -> str:
    assert all(0x20 <= byte < 0x7F and byte != 0x5C for byte in token)  # printable here
    return token.decode("ascii").replace(" ", "␣")


def test_a_byte_level_run_shows_its_bytes_readably_at_the_divergence(page, reports):
    report, report_page = reports["byte-bpe"]
    details = first_failing(report).details
    expected = ast.literal_eval(details["expected_merges"]["literal"])
    actual = ast.literal_eval(details["your_merges"]["literal"])
    index = next(i for i, (want, got) in enumerate(zip(expected, actual)) if want != got)
    view, divergence = open_view(page, report_page)
    assert divergence == index + 1
    want = f"({readable(expected[index][0])}, {readable(expected[index][1])})"
    got = f"({readable(actual[index][0])}, {readable(actual[index][1])})"
    for move in (lambda: step_to_divergence_with_keys(page, view, divergence),
                 lambda: step_to_divergence_with_clicks(view, divergence)):
        move()
        _, reference, student = shown_step(view)
        assert reference.locator(".sv-pick").inner_text() == want
        assert student.locator(".sv-pick").inner_text() == got
        tied = [code.inner_text() for code in reference.locator(".sv-tied code").all()]
        assert want in tied and got in tied  # smaller pair taken from a tie
        assert tied[0] == want  # the rule's pick comes first
        assert student.locator(".sv-rule-pick").inner_text() == want


def test_a_segmentation_steps_along_both_paths_on_the_lattice(page, reports):
    report, report_page = reports["unigram-lm"]
    details = first_failing(report).details
    expected, actual = details["expected"], details["actual"]
    index = next(i for i, (want, got) in enumerate(zip(expected, actual)) if want != got)
    view, divergence = open_view(page, report_page)
    assert divergence == index + 1
    for move in (lambda: step_to_divergence_with_keys(page, view, divergence),
                 lambda: step_to_divergence_with_clicks(view, divergence)):
        move()
        _, reference, student = shown_step(view)
        assert reference.locator(".sv-pick").inner_text() == expected[index]
        assert student.locator(".sv-pick").inner_text() == actual[index]
        # the current piece of each path is drawn thicker on the lattice
        for group in (".sv-ref", ".sv-stu"):
            now = view.locator(f"svg {group} path.sv-now")
            assert now.count() == 1
            assert now.get_attribute("data-path-step") == str(divergence)
    description = view.locator("svg desc").text_content()  # the lattice's text equivalent
    assert " | ".join(expected) in description and " | ".join(actual) in description
    view.focus()
    page.keyboard.press("End")
    assert view.get_attribute("data-current") == str(max(len(expected), len(actual)))
    page.keyboard.press("d")
    assert view.get_attribute("data-current") == str(divergence)


def test_an_encoding_steps_rule_by_rule_beside_the_answer(page, tmp_path):
    exercise = first_milestone("bpe-train-encode", 1)
    assert exercise.milestones[0].function == "encode"
    report, report_page = graded(exercise, "encode-reverse-rank", tmp_path, "encode")
    check = first_failing(report)
    answer = check.details["actual"]
    view, divergence = open_view(page, report_page)
    step_to_divergence_with_keys(page, view, divergence)
    _, reference, student = shown_step(view)
    assert student.locator(".sv-corpus li").inner_text().split() == answer
    assert student.locator(".sv-off").count() == 1  # no longer reachable from here
    if divergence > 1:
        step_to_divergence_with_clicks(view, divergence)
        assert reference.locator(".sv-pick").count() == 1  # the rule applied at this step


def test_every_step_view_belongs_to_a_visible_failure_and_fits_a_phone(browser, reports):
    phone = browser.new_page(viewport={"width": 360, "height": 800})
    try:
        for exercise_id, (report, report_page) in reports.items():
            phone.goto(report_page.as_uri())
            with_steps = [c for c in report.checks if c.steps]
            assert with_steps and all(c.visibility == "visible" and not c.passed for c in with_steps)
            assert phone.locator(".sv").count() == len(with_steps), exercise_id
            assert phone.locator("li.hidden .sv").count() == 0
            assert phone.evaluate("document.documentElement.scrollWidth") <= 360, exercise_id
            assert phone.locator("[data-step]").count() == \
                sum(len(c.steps["steps"]) for c in with_steps)
    finally:
        phone.close()


def test_a_hidden_case_produces_no_step_view(tmp_path):
    exercise = first_milestone("bpe-train-encode")
    hidden = dataclasses.replace(exercise, cases=[dataclasses.replace(case, visibility="hidden")
                                                  for case in exercise.cases])
    report, report_page = graded(hidden, WRONG["bpe-train-encode"], tmp_path, "hidden")
    failed = [check for check in report.checks if check.id.startswith("cases") and not check.passed]
    assert failed and all(check.visibility == "hidden" for check in failed)
    assert all(check.steps is None for check in report.checks)
    html = report_page.read_text(encoding="utf-8")
    assert "data-step" not in html and 'class="sv"' not in html and "<script" not in html
