"""A notebook graded as Jupyter runs it: timing magics run their statement, a cell that raises
is reported (cell, line, error) and the next cells still run, and a function missing because
of such a cell is said to be."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
import yaml

from grader.grading.engine import grade_submission
from grader.grading.submission_file import read_submission
from grader.spec import load_exercise
from grader.spec.loading import exercise_path

SUBMISSIONS = Path(__file__).parents[1] / "submissions"
CORRECT = (SUBMISSIONS / "correct_counter.py").read_text(encoding="utf-8")
TRAINS_RIGHT = (SUBMISSIONS / "wrong_encode_drops_marker.py").read_text(encoding="utf-8")


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


def split(source: str) -> tuple[str, str]:
    """``source`` cut before ``def encode``: training, then encoding."""
    head, tail = source.split("def encode", 1)
    return head, "def encode" + tail


def notebook(path: Path, *cells: str) -> Path:
    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_markdown_cell("# BPE")] + [
        nbformat.v4.new_code_cell(cell) for cell in cells]
    nbformat.write(book, str(path))
    return path


def scores(report) -> list[tuple[str, float]]:
    return [(check.id, check.score) for m in report.milestones for check in m.checks]


def test_a_time_assignment_and_a_crashing_demo_cell_grade_as_the_functions_deserve(
        tmp_path, quick_spec):
    train, encode = split(TRAINS_RIGHT)
    encode = encode.replace("    return [token for token in symbols if token != EOW]",
                            "    return [symbols[len(symbols)]]")  # raises on every word
    demo = "print(encode('lowest', m))"
    path = notebook(tmp_path / "student.ipynb", train, encode,
                    "%time m = train_bpe(['low lower lowest newest widest'], 5)\nprint(m)",
                    demo, "%timeit -n 3 train_bpe(['low'], 2)")
    plain = tmp_path / "plain.py"
    plain.write_text(train + encode, encoding="utf-8")
    report, expected = grade_submission(path, quick_spec), grade_submission(plain, quick_spec)
    assert 0 < expected.score < expected.max_score
    assert report.score == expected.score and scores(report) == scores(expected)
    assert report.errors == expected.errors == []
    crash_line = encode.splitlines().index("    return [symbols[len(symbols)]]") + 1
    assert any(note.startswith("cell 5 raised IndexError: tuple index out of range (at cell 3, "
                               f"line {crash_line}, in encode); the next cells still ran")
               for note in report.notes), report.notes
    assert any("%time m = train_bpe(['low lower lowest newest widest'], 5)" in note
               for note in report.notes)
    assert "[('e', 's')" in report.student_output  # the %time line ran: m was printed
    # a .py file keeps running as one module: the same demo call is a load error there
    demo_py = tmp_path / "demo.py"
    demo_py.write_text(train + encode + "\nm = train_bpe(['low lowest'], 3)\n" + demo + "\n",
                       encoding="utf-8")
    assert not grade_submission(demo_py, quick_spec).gradable


def test_a_name_error_cell_leaves_the_cells_before_and_after_it_graded(tmp_path, quick_spec):
    train, encode = split(CORRECT)
    path = notebook(tmp_path / "student.ipynb", train, "print(merges_of_my_corpus)\nx = 1",
                    encode)
    report = grade_submission(path, quick_spec)
    assert report.errors == [] and report.score == report.max_score
    assert any(note.startswith("cell 3 raised NameError: name 'merges_of_my_corpus' is not "
                               "defined (at cell 3, line 1); the next cells still ran")
               for note in report.notes), report.notes


def test_a_function_missing_because_its_cell_raised_says_so(tmp_path, quick_spec):
    train, encode = split(CORRECT)
    path = notebook(tmp_path / "student.ipynb", train, "ratio = 1 / 0\n" + encode)
    report = grade_submission(path, quick_spec)
    train_ids = {m.id for m in report.milestones if m.passed}
    assert train_ids and report.score > 0
    encode_messages = {c.message for m in report.milestones for c in m.checks if not c.passed}
    assert any("(the def of encode is in cell 3, which raised ZeroDivisionError: division by "
               "zero (at cell 3, line 1) and stopped there; fix that cell)" in message
               for message in encode_messages), encode_messages
    assert any("grading went on with the cells before it" in note for note in report.notes)


def test_a_cell_with_a_syntax_error_is_reported_and_the_other_cells_graded(tmp_path, quick_spec):
    train, encode = split(CORRECT)
    path = notebook(tmp_path / "student.ipynb", train, "x = 1\ndef broken(:\n    pass", encode)
    report = grade_submission(path, quick_spec)
    assert report.errors == [] and report.score == report.max_score
    assert any(note.startswith("cell 3 could not run: SyntaxError in cell 3, line 2")
               for note in report.notes), report.notes


def test_magics_that_run_a_statement_keep_it_and_the_rest_are_noted_whole(tmp_path):
    long_pip = "!pip install a-package-whose-name-is-long==1.2.3 --quiet --no-deps"
    path = notebook(
        tmp_path / "magics.ipynb",
        "%time m = train_bpe(corpus, 5)\n%timeit -n 3 -r2 encode('low', m)\n"
        "%prun -s cumulative train_bpe(corpus, 2)\nm2 = %time train_bpe(corpus, 1)\n"
        "for word in words:\n    %time encode(word, m)\n%matplotlib inline\nx = !ls\n" + long_pip,
        "%%time\nslow = train_bpe(corpus, 9)",
        "%%timeit -n 2 setup = 1\ntrain_bpe(corpus, setup)",
        "%%bash\necho hi",
    )
    source = read_submission(path)
    lines = source.text.split("\n")
    assert lines[:6] == ["m = train_bpe(corpus, 5)", "encode('low', m)", "train_bpe(corpus, 2)",
                         "m2 = train_bpe(corpus, 1)", "for word in words:",
                         "    encode(word, m)"]
    assert "slow = train_bpe(corpus, 9)" in lines
    assert "setup = 1" in lines and "train_bpe(corpus, setup)" in lines
    assert "echo hi" not in source.text and "%" not in source.text and "!" not in source.text
    ran = next(note for note in source.notes if note.startswith("IPython timing magics"))
    assert "cell 2: %time m = train_bpe(corpus, 5)" in ran and "cell 3: %%time" in ran
    dropped = next(note for note in source.notes if "were dropped" in note)
    assert f"cell 2: {long_pip}" in dropped  # the whole line, not its first 40 characters
    assert "cell 2: %matplotlib inline" in dropped and "cell 2: x = !ls" in dropped
    assert "cell 5: the whole %%bash cell" in dropped
    assert [cell for _, _, cell in source.parts] == [2, 3, 4]


def test_the_lines_of_the_grader_check_are_left_out_only_where_it_is_imported(tmp_path):
    checked = read_submission(notebook(
        tmp_path / "checked.ipynb", "from grader.notebook import check\nx = 1",
        "def f():\n    check('inside')  # indented: the student's own code\n", "check('train')"))
    assert "from grader.notebook" not in checked.text and "check('train')" not in checked.text
    assert "    check('inside')" in checked.text
    assert any("cell 2: from grader.notebook import check; cell 4: check('train')" in note
               for note in checked.notes)
    own = read_submission(notebook(tmp_path / "own.ipynb", "def check(x):\n    return x",
                                   "check('train')"))
    assert "check('train')" in own.text
    assert not any("check()" in note for note in own.notes)
