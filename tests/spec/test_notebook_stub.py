"""``grade stub ID --notebook``: a notebook nbformat validates, made of the instructions, one
cell per function of the stub with its public examples, and a check cell after each
milestone; run in a kernel with the stub's bodies, its check cells report the functions not
written yet."""

from __future__ import annotations

import re

import nbformat
import pytest
from click.testing import CliRunner

from grader.commands.cli import main
from grader.spec import load_exercise
from grader.spec.stubs import stub_functions
from support.kernel import cell_text, kernel_unavailable, run_notebook

EXERCISE = "bpe-train-encode"


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stub")
    output = folder / f"{EXERCISE}.ipynb"
    result = CliRunner().invoke(main, ["stub", EXERCISE, "--notebook", "-o", str(output)])
    assert result.exit_code == 0, result.output
    return output


def test_the_notebook_validates_and_holds_every_function_and_milestone(written):
    book = nbformat.read(written, as_version=4)
    nbformat.validate(book)
    exercise = load_exercise(EXERCISE)
    code = [cell.source for cell in book.cells if cell.cell_type == "code"]
    assert code[0].splitlines()[:2] == [f"# exercise: {EXERCISE}", "from grader.notebook import check"]
    assert book.cells[0].cell_type == "markdown" and exercise.title in book.cells[0].source
    for function in stub_functions(exercise):
        at = next(i for i, cell in enumerate(book.cells)
                  if cell.cell_type == "code" and cell.source.startswith(f"def {function.name}("))
        assert "raise NotImplementedError" in book.cells[at].source
        ids = [re.fullmatch(r'check\("([\w-]+)"\)', cell.source) for cell in book.cells[at + 1:at + 1 + len(function.todos)]]
        assert [m.group(1) for m in ids if m] == [todo["id"] for todo in function.todos]
        assert all(example in book.cells[at - 1].source for example in function.examples)
    assert code[-1] == "check()"


def test_the_default_file_is_the_exercise_id_and_is_not_overwritten(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert CliRunner().invoke(main, ["stub", EXERCISE, "--notebook"]).exit_code == 0
    assert (tmp_path / f"{EXERCISE}.ipynb").is_file()
    again = CliRunner().invoke(main, ["stub", EXERCISE, "--notebook"])
    assert again.exit_code != 0 and "--force" in again.output


def test_check_cells_report_the_functions_not_written_yet(written):
    reason = kernel_unavailable()
    if reason:
        pytest.skip(reason)
    book = run_notebook(written)
    shown = {cell.source: cell_text(cell) for cell in book.cells if cell.source.startswith("check(")}
    assert "train_bpe raised NotImplementedError: train_bpe is not written yet" in shown['check("train")']
    assert "does not define encode()" in shown['check("train")']  # its cell has not run yet
    assert "encode raised NotImplementedError: encode is not written yet" in shown['check("encode")']
    assert re.search(r"\[encode\]: 0 of \d+ public checks pass", shown["check()"])
    assert "hidden checks run when you submit" in shown["check()"]


def test_an_answers_exercise_has_no_notebook(tmp_path):
    result = CliRunner().invoke(main, ["stub", "hand-bpe", "--notebook", "-o",
                                       str(tmp_path / "hand.ipynb")])
    assert result.exit_code == 2 and "is handed in as answers.yaml only, not as a notebook" in result.output
    assert not (tmp_path / "hand.ipynb").exists()
