"""Submissions as students make them: a UTF-8 byte-order mark, CRLF line ends and Jupyter
notebooks grade like the plain ``.py`` file; a disallowed import is explained."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
import yaml

from grader.grading.engine import grade_submission
from grader.grading.submission_file import (
    SubmissionFileError,
    explain_load_error,
    exercise_header,
    header_mismatch,
    read_submission,
)
from grader.spec import load_exercise
from grader.spec.loading import exercise_path

ROOT = Path(__file__).resolve().parents[2]

SUBMISSIONS = Path(__file__).parents[1] / "submissions"
CORRECT = SUBMISSIONS / "correct_counter.py"


@pytest.fixture(scope="module")
def quick_spec(tmp_path_factory):
    """bpe-train-encode without the efficiency milestone and with few generated examples."""
    data = yaml.safe_load(exercise_path("bpe-train-encode").read_text(encoding="utf-8"))
    data["properties"]["examples"] = 8
    data["milestones"] = [m for m in data["milestones"]
                          if all(c["kind"] != "efficiency" for c in m["checks"])]
    path = tmp_path_factory.mktemp("spec") / "quick.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return load_exercise(path)


def notebook_of(source: str, path: Path) -> Path:
    """``source`` split into two code cells around a markdown cell, with IPython lines added."""
    lines = source.split("\n")
    cut = next(i for i in range(len(lines) // 2, len(lines))
               if lines[i].startswith("def ") and lines[i - 1] == "")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("%load_ext autoreload\n!pip install numpy\n" + "\n".join(lines[:cut])),
        nbformat.v4.new_markdown_cell("## Encoding"),
        nbformat.v4.new_code_cell("\n".join(lines[cut:])),
        nbformat.v4.new_code_cell("%%timeit\nx = 1"),
        nbformat.v4.new_code_cell("%%bash\necho hi"),
    ]
    nbformat.write(notebook, str(path))
    return path


def scores(report) -> list[tuple[str, float]]:
    return [(check.id, check.score) for m in report.milestones for check in m.checks]


def test_a_bom_and_crlf_file_grades_like_the_plain_file(tmp_path, quick_spec):
    windows = tmp_path / "student.py"
    windows.write_bytes(b"\xef\xbb\xbf" + CORRECT.read_bytes().replace(b"\n", b"\r\n"))
    source = read_submission(windows)
    assert source.text == CORRECT.read_text(encoding="utf-8")
    assert any("byte-order mark" in note for note in source.notes)
    assert any("CRLF" in note for note in source.notes)
    plain, bom = grade_submission(CORRECT, quick_spec), grade_submission(windows, quick_spec)
    assert bom.errors == [] and bom.score == bom.max_score
    assert scores(bom) == scores(plain)


def test_a_notebook_grades_like_the_plain_file(tmp_path, quick_spec):
    path = notebook_of(CORRECT.read_text(encoding="utf-8"), tmp_path / "student.ipynb")
    source = read_submission(path)
    assert "null" not in source.text and "%" not in source.text and "!pip" not in source.text
    assert "echo hi" not in source.text
    assert any("3 code cell(s)" in note for note in source.notes)
    dropped = next(note for note in source.notes if "dropped" in note)
    assert "%load_ext autoreload" in dropped and "!pip install numpy" in dropped
    assert "the whole %%bash cell" in dropped
    report = grade_submission(path, quick_spec)
    assert report.errors == [] and report.score == report.max_score
    assert scores(report) == scores(grade_submission(CORRECT, quick_spec))


def test_the_header_is_read_from_a_notebook_and_a_bom_file(tmp_path):
    text = "# exercise: lesson97-bpe\ndef f():\n    pass\n"
    bom = tmp_path / "a.py"
    bom.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert exercise_header(bom) == "lesson97-bpe"
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_markdown_cell("intro"), nbformat.v4.new_code_cell(text)]
    nbformat.write(notebook, str(tmp_path / "a.ipynb"))
    assert exercise_header(tmp_path / "a.ipynb") == "lesson97-bpe"
    assert "graded as exercise 'bpe-train-encode'" in header_mismatch(bom, "bpe-train-encode")
    assert header_mismatch(bom, "lesson97-bpe") is None


def test_a_broken_notebook_and_a_non_utf8_file_say_what_to_do(tmp_path, quick_spec):
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(SubmissionFileError, match="submit a .py file"):
        read_submission(broken)
    latin = tmp_path / "latin.py"
    latin.write_bytes("# café\n".encode("latin-1"))
    with pytest.raises(SubmissionFileError, match="save it as UTF-8"):
        read_submission(latin)
    report = grade_submission(latin, quick_spec)
    assert report.score == 0 and "save it as UTF-8" in report.errors[0]


def test_a_disallowed_import_is_explained(tmp_path, quick_spec):
    path = tmp_path / "student.py"
    path.write_text("import numpy\n", encoding="utf-8")
    report = grade_submission(path, quick_spec)
    assert report.score == 0
    assert "may import only the Python standard library" in report.errors[0]


def test_the_import_advice_names_the_allowed_modules():
    error = "raised ModuleNotFoundError: No module named 'numpy.linalg' while importing"
    assert "the Python standard library and regex" in explain_load_error(error, ["regex"])
    assert "numpy is not available" in explain_load_error(error, ["regex"])
    installed_missing = explain_load_error("No module named 'regex'", ["regex"])
    assert "allowed by this exercise but is not installed" in installed_missing
    assert explain_load_error("crashed with SIGXFSZ while importing") == (
        "wrote more data to a file than the sandbox allows (the file-size limit) [SIGXFSZ] "
        "while importing")


def test_an_oversized_submission_is_refused_before_it_is_parsed(tmp_path):
    from grader.grading.submission_file import MAX_SUBMISSION_BYTES, SubmissionFileError

    path = tmp_path / "big.ipynb"
    path.write_text('{"cells": [' + " " * (MAX_SUBMISSION_BYTES + 10) + "]}", encoding="utf-8")
    with pytest.raises(SubmissionFileError, match="clear its outputs"):
        read_submission(path)


def test_a_notebooks_errors_say_the_cell_and_the_line_in_it(tmp_path):
    code = (ROOT / "examples" / "bpe-train-encode" / "student_correct.py").read_text(
        encoding="utf-8").replace("# exercise: bpe-train-encode\n", "")
    crash = code.replace("        pairs = get_stats(vocab)\n",
                         "        pairs = get_stats(vocab)\n        boom = [][0]\n", 1)
    crash_line = crash.splitlines().index("        boom = [][0]") + 1
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_markdown_cell("# BPE"),
                      nbformat.v4.new_code_cell("# exercise: bpe-train-encode\n%matplotlib inline"),
                      nbformat.v4.new_code_cell(crash)]
    path = tmp_path / "crash.ipynb"
    path.write_text(nbformat.writes(notebook), encoding="utf-8")
    report = grade_submission(path, load_exercise("bpe-train-encode"))
    messages = [c.message for m in report.milestones for c in m.checks if c.visibility == "visible"]
    assert any(f"(at cell 3, line {crash_line}, in train_bpe)" in m for m in messages), messages
    notebook.cells.append(nbformat.v4.new_code_cell("x = 1\ndef broken(:\n    pass"))
    path.write_text(nbformat.writes(notebook), encoding="utf-8")
    report = grade_submission(path, load_exercise("bpe-train-encode"))
    # as in Jupyter, a cell that does not compile stops only itself
    assert any("cell 4 could not run: SyntaxError in cell 4, line 2" in note
               for note in report.notes), report.notes


def test_a_notebook_without_cell_ids_is_read_without_a_warning(tmp_path, recwarn):
    """Older and hand-made notebooks have no cell ids: nbformat's warning about them must not
    reach the student's terminal."""
    code = "# exercise: lesson97-bpe\ndef f():\n    return 1\n"
    path = tmp_path / "old.ipynb"
    path.write_text(json.dumps({
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [{"cell_type": "code", "metadata": {}, "execution_count": None,
                   "outputs": [], "source": code.splitlines(keepends=True)}],
    }), encoding="utf-8")
    assert "def f():" in read_submission(path).text
    assert not [str(w.message) for w in recwarn.list], "a warning reached the terminal"
