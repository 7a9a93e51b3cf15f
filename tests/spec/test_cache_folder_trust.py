"""The kept work is read only from a folder no other account can write: there, that account
could swap one of the grader's own files for another (one spec's validated form for
another's). Such a folder is not used at all; grading works without it and says so once, on
standard error and never in the report."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.spec import disk_cache, load_exercise, spec_cache

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "exercises" / "bpe-train-encode.yaml"
CORRECT = ROOT / "examples" / "bpe-train-encode" / "student_correct.py"
GRADE = str(Path(sys.executable).with_name("grade"))
OTHER_UID = 65432


def _two_specs(folder: Path) -> tuple[Path, Path]:
    """The shipped spec and one with another title, in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    first, second = folder / "bpe-train-encode.yaml", folder / "second" / "bpe-train-encode.yaml"
    second.parent.mkdir()
    text = SHIPPED.read_text(encoding="utf-8")
    first.write_text(text, encoding="utf-8")
    second.write_text(text.replace("title: \"", "title: \"Swapped ", 1), encoding="utf-8")
    return first, second


def _swapped(monkeypatch, tmp_path: Path, cache: Path) -> Path:
    """``cache`` holding the second spec's kept form under the first spec's name, as an account
    that can write the folder would arrange it. The first spec's path is returned."""
    first, second = _two_specs(tmp_path / "course")
    monkeypatch.setenv(disk_cache.ENVIRONMENT_VARIABLE, str(cache))
    assert load_exercise(second).title.startswith("Swapped")
    assert load_exercise(first).title == load_exercise(SHIPPED).title
    text = first.read_text(encoding="utf-8")
    first_file = spec_cache.file_for(first, str(first), text)
    assert first_file is not None and first_file.exists(), "the spec was not kept"
    second_text = second.read_text(encoding="utf-8")
    second_file = spec_cache.file_for(second, str(second), second_text)
    os.replace(second_file, first_file)  # the swap: both files are the grader's own
    return first


@pytest.mark.parametrize("how", ["mode-0777", "another-owner", "parent-0777"])
def test_a_cache_folder_another_account_can_write_is_not_read(monkeypatch, tmp_path, capsys, how):
    if how == "another-owner" and os.geteuid() != 0:
        pytest.skip("giving a folder to another account needs root")
    cache = tmp_path / "above" / "cache"
    first = _swapped(monkeypatch, tmp_path, cache)
    if how == "mode-0777":
        os.chmod(cache, 0o777)
    elif how == "another-owner":
        os.chown(cache, OTHER_UID, OTHER_UID)
    else:
        os.chmod(cache.parent, 0o777)
    capsys.readouterr()
    loaded = load_exercise(first)
    loaded_again = load_exercise(first)
    assert not loaded.title.startswith("Swapped"), "the swapped file was read"
    assert loaded.title == loaded_again.title == load_exercise(SHIPPED).title
    warnings = capsys.readouterr().err.splitlines()
    assert len([line for line in warnings if "not using the cache folder" in line]) == 1, warnings


def test_the_graders_own_folder_is_used(monkeypatch, tmp_path, capsys):
    cache = tmp_path / "above" / "cache"
    first = _swapped(monkeypatch, tmp_path, cache)
    assert load_exercise(first).title.startswith("Swapped")  # the control: the swap works
    assert "not using the cache folder" not in capsys.readouterr().err


def test_grading_works_without_an_untrusted_folder_and_says_so_once_outside_the_report(tmp_path):
    cache = tmp_path / "cache"
    (cache / disk_cache.SPECS).mkdir(parents=True)
    os.chmod(cache, 0o777)
    student = tmp_path / "student.py"
    shutil.copyfile(CORRECT, student)
    done = subprocess.run([GRADE, "submit", "--format", "json", str(student)],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, disk_cache.ENVIRONMENT_VARIABLE: str(cache)})
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["score"] == report["max_score"]
    assert done.stderr.count("not using the cache folder") == 1, done.stderr
    assert "cache" not in done.stdout
    assert list((cache / disk_cache.SPECS).iterdir()) == []
    assert [path.name for path in cache.iterdir()] == [disk_cache.SPECS]
