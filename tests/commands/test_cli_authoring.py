"""``grade list``, ``grade stub``, ``grade check`` and ``grade schema`` from the command line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.commands.cli import main
from grader.spec.loading import exercise_ids
from grader.spec import json_schema, load_exercise
from grader.spec.stubs import render_stub

REPO = Path(__file__).resolve().parents[2]
SPECS = Path(__file__).parents[1] / "specs"


def grade(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_list_shows_ids_titles_milestones_and_points():
    result = grade("list")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    for exercise in (load_exercise(i) for i in exercise_ids()):
        header = f"{exercise.id}  ({exercise.total_points:g} points)  {exercise.title}"
        start = lines.index(header)
        block = lines[start + 1 : start + 1 + len(exercise.milestones)]
        for milestone, line in zip(exercise.milestones, block):
            assert line.split()[:3] == [milestone.id, f"{milestone.points:g}", "pts"]
            assert line.endswith(milestone.title)


def test_stub_prints_to_stdout():
    result = grade("stub", "lesson97-bpe")
    assert result.exit_code == 0
    assert result.output == render_stub(load_exercise("lesson97-bpe"))


def test_stub_writes_a_file_and_refuses_to_overwrite_it(tmp_path):
    target = tmp_path / "student.py"
    assert grade("stub", "bpe-train-encode", "-o", str(target)).exit_code == 0
    assert target.read_text(encoding="utf-8").startswith("# exercise: bpe-train-encode\n")
    target.write_text("work in progress\n", encoding="utf-8")
    refused = grade("stub", "bpe-train-encode", "-o", str(target))
    assert refused.exit_code == 2
    assert "already exists; pass --force" in refused.output
    assert target.read_text(encoding="utf-8") == "work in progress\n"
    assert grade("stub", "bpe-train-encode", "-o", str(target), "--force").exit_code == 0
    assert target.read_text(encoding="utf-8").startswith("# exercise: bpe-train-encode\n")


def test_stub_of_an_unknown_exercise_is_a_clear_error():
    result = grade("stub", "nope")
    assert result.exit_code == 2  # a usage error, as for grade submit
    assert "no exercise 'nope'" in result.output
    assert "available: " + ", ".join(exercise_ids()) in result.output
    assert "--exercises-dir DIR or GRADE_EXERCISES_PATH" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("exercise_id", exercise_ids())
def test_check_of_a_shipped_exercise_exits_zero(exercise_id):
    result = grade("check", exercise_id)
    assert result.exit_code == 0, result.output
    assert f"ok: exercise {exercise_id!r}" in result.output


def test_check_of_a_broken_spec_exits_three_with_file_line_and_field():
    result = grade("check", str(SPECS / "bad-tie-break.yaml"))
    assert result.exit_code == 3
    assert (
        "bad-tie-break.yaml:12: conventions.tie_break: 'alphabetic' is not one of lexicographic, "
        "concatenated, first-seen, reverse-lexicographic"
    ) in result.output


def test_check_explains_a_wrong_merge_list():
    result = grade("check", str(SPECS / "wrong-merges.yaml"))
    assert result.exit_code == 3
    assert "step 2 departs from the reference" in result.output
    assert "Pair counts at step 2:" in result.output
    assert "what tie_break first-seen gives" in result.output


def test_schema_prints_the_json_schema():
    result = grade("schema")
    assert result.exit_code == 0
    assert json.loads(result.output) == json_schema()


@pytest.mark.slow
def test_works_from_a_non_editable_install(tmp_path):
    """Build a wheel from a copy of the sources, install it into a target and run from elsewhere."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    for name in ("grader", "reference", "exercises", "templates"):
        shutil.copytree(REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    wheels = tmp_path / "wheels"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(source)],
        capture_output=True, text=True, timeout=300,
    )
    if build.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {build.stderr.strip().splitlines()[-1:]}")
    (wheel,) = wheels.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "grader/exercise_specs/bpe-train-encode.yaml" in names
    assert "grader/jinja_templates/stub.py.j2" in names
    # every family's own templates (its answers sheet) ship with it
    assert {"grader/families/hand/answers.yaml.j2", "grader/families/concept/sheet.yaml.j2"} <= set(names)

    target = tmp_path / "installed"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        capture_output=True, text=True, timeout=300,
    )
    assert install.returncode == 0, install.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    program = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import grader, grader.spec.loading\n"
        "assert grader.__file__.startswith(sys.argv[1]), grader.__file__\n"
        "print('DIR', grader.spec.loading.exercises_dir())\n"
        "from grader.commands.cli import main\n"
        "main(['list'])\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    listed = subprocess.run(
        [sys.executable, "-I", "-c", program, str(target)],
        capture_output=True, text=True, timeout=120, cwd=elsewhere, env=env,
    )
    assert listed.returncode == 0, listed.stderr
    assert f"DIR {target / 'grader' / 'exercise_specs'}" in listed.stdout
    for exercise_id in exercise_ids():
        assert exercise_id in listed.stdout
