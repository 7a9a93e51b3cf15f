"""``check()`` from a notebook cell, in a real kernel, as root, as an ordinary user and in a
default container: its milestone lines are under the cell, for a wrong solution and then the
fixed one, and its verdicts on public checks are those of grading the notebook saved at that
point (the grading behind ``grade submit``). The saved notebook with a ``%time`` assignment and a crashing demo
cell grades as its functions deserve: exactly as the same functions in a ``.py``."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from grader.grading.engine import grade_submission
from grader.grading.submission_file import read_submission
from support.container import container_available
from support.kernel import cell_text, kernel_unavailable, run_notebook

SUBMISSIONS = Path(__file__).parents[1] / "submissions"
WRONG = (SUBMISSIONS / "wrong_tie_first_seen.py").read_text(encoding="utf-8")
RIGHT = (SUBMISSIONS / "correct_dicts.py").read_text(encoding="utf-8")
SEED = "notebook check test"


def split(source: str) -> tuple[str, str]:
    body = source.split("\n", 1)[1]  # without its # exercise: line
    head, tail = body.split("\ndef encode", 1)
    return head, "def encode" + tail


WRONG_CELLS = ["# exercise: bpe-train-encode\nfrom grader.notebook import check", *split(WRONG),
               "%time m = train_bpe(['low lower lowest newest widest'], 5)",
               "print(encode('lowest', m)[99])",  # the demo cell raises IndexError
               f"check('train', seed_secret={SEED!r})", f"check(seed_secret={SEED!r})"]
RIGHT_CELLS = [*split(RIGHT), f"check('train', seed_secret={SEED!r})",
               f"check(seed_secret={SEED!r})"]
WRONG_TRAIN, WRONG_ALL, RIGHT_TRAIN, RIGHT_ALL = 5, 6, 9, 10  # indexes of the check cells


def notebook(path: Path, cells: list[str]) -> Path:
    book = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nbformat.write(book, str(path))
    return path


@pytest.fixture(scope="module", params=["root", "nobody", "container"])
def executed(request, tmp_path_factory):
    """The notebook run once per place: a wrong solution checked, then the fixed one. As
    root, as an ordinary user, and as root in a default container (where no namespace can be
    made, as on hosted notebook services)."""
    nobody, container = request.param == "nobody", request.param == "container"
    reason = kernel_unavailable(as_nobody=nobody) or (container_available() if container else None)
    if reason:
        pytest.skip(reason)
    path = notebook(tmp_path_factory.mktemp("book") / "student.ipynb", WRONG_CELLS + RIGHT_CELLS)
    return run_notebook(path, as_nobody=nobody, in_container=container)


def saved(executed, cells: int, folder: Path) -> Path:
    """The notebook as saved after its first ``cells`` cells ran, outputs included."""
    book = nbformat.v4.new_notebook(cells=executed.cells[:cells])
    path = folder / f"saved-{cells}.ipynb"
    nbformat.write(book, str(path))
    return path


@pytest.fixture(scope="module")
def gradings():
    """Reports by what grading reads of a submission (its name and the source the grader
    makes of it), shared by the three places."""
    return {}


def graded_once(path: Path, gradings: dict):
    """``grade_submission`` of ``path``; a notebook the grader reads as one graded already (the
    same name and code cells: grading reads no outputs) gets that report."""
    source = read_submission(path)
    key = (path.name, source.text, tuple(source.notes), tuple(source.cells),
           tuple(source.parts))
    if key not in gradings:
        gradings[key] = grade_submission(path, seed_secret=SEED)
    return gradings[key]


@pytest.fixture(scope="module")
def graded_saved(executed, gradings, tmp_path_factory):
    """The notebook of each place as saved after its first N cells, graded once for the tests
    reading it: N -> report, for the wrong train check, all wrong checks and all right ones.
    The places' saved notebooks differ in their outputs only, so each N is graded once."""
    folder = tmp_path_factory.mktemp("saved")
    return {ran: graded_once(saved(executed, ran, folder), gradings)
            for ran in (WRONG_TRAIN + 1, WRONG_ALL + 1, RIGHT_ALL + 1)}


@pytest.fixture(scope="module")
def graded_script(tmp_path_factory):
    """The wrong solution as a ``.py``, graded once: the same file in every place."""
    plain = tmp_path_factory.mktemp("script") / "wrong.py"
    plain.write_text(WRONG, encoding="utf-8")
    return grade_submission(plain, seed_secret=SEED)


def shown_verdicts(text: str) -> dict[str, list[tuple[str, bool]]]:
    """Milestone id -> (check title, passed) for each public check line check() showed."""
    verdicts: dict[str, list[tuple[str, bool]]] = {}
    current = None
    for line in text.splitlines():
        heading = re.match(r"^\S.* \[([\w-]+)\]: (\d+ of \d+ public checks pass|no public checks)$", line)
        if heading:
            current = verdicts.setdefault(heading.group(1), [])
        elif current is not None and re.match(r"^  [✓✗] ", line):
            current.append((line[4:], line[2] == "✓"))
    return verdicts


def graded_verdicts(report, milestones=None) -> dict[str, list[tuple[str, bool]]]:
    return {m.id: [(c.title or c.id, c.passed) for c in m.checks if c.visibility != "hidden"]
            for m in report.milestones if milestones is None or m.id in milestones}


def test_check_shows_milestone_lines_under_the_cell_as_text_and_html(executed):
    wrong = cell_text(executed.cells[WRONG_TRAIN])
    assert "Train the merges [train]: " in wrong
    assert "[encode]" not in wrong  # check("train") shows that milestone only
    assert "✗ rank-order: train 10 merges" in wrong
    assert re.search(r"\n  \d+ hidden checks run when you submit", wrong)
    everything = cell_text(executed.cells[RIGHT_ALL])
    for milestone in ("[train]", "[encode]", "[efficiency]"):
        assert milestone in everything
    assert "✗" not in everything
    html = cell_text(executed.cells[RIGHT_ALL], "text/html")
    assert "Encode words with the learned merges</b> [encode]" in html
    assert "hidden checks run when you submit" in html


def test_check_says_which_cell_raised(executed):
    shown = cell_text(executed.cells[WRONG_ALL])
    assert "IndexError" in cell_text(executed.cells[4])  # the kernel's own error
    assert "cell 5 raised IndexError: list index out of range" in shown
    assert "cell 4: %time m = train_bpe" in shown


def test_verdicts_are_those_of_grading_the_saved_notebook(executed, graded_saved):
    for check_cell, ran in ((WRONG_ALL, WRONG_ALL + 1), (RIGHT_ALL, RIGHT_ALL + 1)):
        shown = shown_verdicts(cell_text(executed.cells[check_cell]))
        assert shown == graded_verdicts(graded_saved[ran]), check_cell
    wrong_train = shown_verdicts(cell_text(executed.cells[WRONG_TRAIN]))
    assert wrong_train == graded_verdicts(graded_saved[WRONG_TRAIN + 1], {"train"})
    assert any(not passed for _, passed in wrong_train["train"])
    assert all(passed for _, passed in shown_verdicts(
        cell_text(executed.cells[RIGHT_TRAIN]))["train"])


def test_a_time_assignment_and_a_crashing_demo_grade_as_the_functions_do(graded_saved,
                                                                        graded_script):
    book, script = graded_saved[WRONG_ALL + 1], graded_script
    scores = [(c.id, c.score) for m in book.milestones for c in m.checks]
    assert scores == [(c.id, c.score) for m in script.milestones for c in m.checks]
    assert 0 < book.score < book.max_score
