"""``check()`` in an in-process IPython shell (no kernel to start): the exercise from the
cells' header, from a spec file (as a course bundle ships it) or from a course folder by id;
a clear message, never a traceback, for an unknown milestone, a missing exercise and a call
outside IPython."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

SUBMISSIONS = Path(__file__).parents[1] / "submissions"
SPECS = Path(__file__).parents[1] / "specs"
CORRECT = (SUBMISSIONS / "correct_dicts.py").read_text(encoding="utf-8").split("\n", 1)[1]

InteractiveShell = pytest.importorskip("IPython.core.interactiveshell").InteractiveShell


@pytest.fixture
def shell(capsys):
    """A fresh shell with the correct solution run in one cell, and what it prints."""
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    InteractiveShell.clear_instance()
    shell = InteractiveShell.instance(config=config)
    shell.run_cell(CORRECT, store_history=True)
    shell.run_cell("from grader.notebook import check", store_history=True)
    capsys.readouterr()

    def run(code: str) -> str:
        shell.run_cell(code, store_history=True)
        return capsys.readouterr().out

    yield run
    InteractiveShell.clear_instance()


def test_a_spec_file_names_the_exercise(shell):
    shown = shell(f"check('encode', exercise={str(SPECS / 'valid-minimal.yaml')!r})")
    assert "A small exercise (valid-minimal): checked the 3 cells this kernel ran" in shown
    assert "Encode [encode]: " in shown and "[train]" not in shown
    assert "✗" not in shown


def test_a_course_folder_is_searched_by_id(shell, tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    shutil.copy(SPECS / "valid-minimal.yaml", course / "valid-minimal.yaml")
    from grader.spec.loading import use_exercise_dirs

    try:
        shown = shell(f"check(exercise='valid-minimal', exercises_dir={str(course)!r})")
    finally:
        use_exercise_dirs([])  # the kernel keeps the folder; this test process must not
    assert "Train [train]: " in shown and "Encode [encode]: " in shown


def test_bad_calls_are_explained(shell, tmp_path):
    assert "no cell run so far has an '# exercise: ID' line" in shell("check()")
    shown = shell("check('tokenize', exercise='bpe-train-encode')")
    assert shown.startswith("check() could not run: bpe-train-encode has no milestone "
                            "'tokenize'; its milestones are train, encode")
    assert "is not a folder" in shell(f"check(exercises_dir={str(tmp_path / 'nowhere')!r})")
    assert "Traceback" not in shown


def test_outside_ipython_it_says_where_to_run_it(capsys):
    from grader.notebook import check

    InteractiveShell.clear_instance()
    check()
    assert "run it in a Jupyter cell, or grade a saved file with: grade submit FILE" in (
        capsys.readouterr().out)
