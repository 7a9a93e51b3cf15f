"""Finding submissions: every input layout, and a reason for everything that is not graded."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.batch.discovery import DiscoveryError, discover
from grader.batch.sharding import Shard, ShardError

from batch_helpers import CORRECT, GRADESCOPE_METADATA, copy, notebook


def reasons(found) -> dict[str, str]:
    return {item.entry: item.reason for item in found.unusable}


def test_files_layout_takes_the_student_id_from_the_file_name(tmp_path: Path) -> None:
    copy(CORRECT, tmp_path / "alice.py")
    notebook(tmp_path / "bob.ipynb", "x = 1")
    found = discover(tmp_path)
    assert found.layout == "file"
    assert [(s.student, s.path.name, s.is_notebook) for s in found.submissions] == [
        ("alice", "alice.py", False), ("bob", "bob.ipynb", True)]
    assert found.unusable == []


def test_folders_layout_takes_the_id_from_the_folder(tmp_path: Path) -> None:
    copy(CORRECT, tmp_path / "alice" / "hw3" / "my_bpe.py")
    copy(CORRECT, tmp_path / "bob" / "student.py")
    copy(CORRECT, tmp_path / "bob" / "helper.py")  # several files: student.py is taken
    (tmp_path / "bob" / "README.md").write_text("notes")
    (tmp_path / "bob" / "__pycache__").mkdir()
    (tmp_path / "bob" / "__pycache__" / "x.py").write_text("")
    found = discover(tmp_path)
    assert found.layout == "folder"
    assert {s.student: s.entry for s in found.submissions} == {
        "alice": "alice/hw3/my_bpe.py", "bob": "bob/student.py"}


def test_every_unusable_entry_has_its_reason(tmp_path: Path) -> None:
    copy(CORRECT, tmp_path / "alice.py")
    (tmp_path / "empty").mkdir()
    (tmp_path / "docs-only").mkdir()
    (tmp_path / "docs-only" / "answer.txt").write_text("42")
    copy(CORRECT, tmp_path / "two" / "a.py")
    copy(CORRECT, tmp_path / "two" / "b.py")
    (tmp_path / "notes.txt").write_text("hello")
    copy(CORRECT, tmp_path / "dup.py")
    copy(CORRECT, tmp_path / "dup" / "student.py")
    (tmp_path / ".DS_Store").write_text("")
    found = discover(tmp_path)
    assert [s.student for s in found.submissions] == ["alice"]
    why = reasons(found)
    assert set(why) == {"empty", "docs-only", "two", "notes.txt", "dup.py", "dup/student.py"}
    assert "empty folder" in why["empty"]
    assert "found answer.txt" in why["docs-only"]
    assert why["two"].startswith("2 submission files (a.py, b.py)")
    assert "not a Python file or notebook (.txt)" in why["notes.txt"]
    assert "student id 'dup' has 2 submissions" in why["dup.py"]
    assert "none was graded" in why["dup/student.py"]


def test_the_output_folder_inside_the_submissions_is_not_a_student(tmp_path: Path) -> None:
    copy(CORRECT, tmp_path / "alice.py")
    (tmp_path / "graded" / "reports").mkdir(parents=True)
    found = discover(tmp_path, exclude=(tmp_path / "graded",))
    assert [s.student for s in found.submissions] == ["alice"] and found.unusable == []


def test_an_empty_submissions_folder_is_one_clear_line(tmp_path: Path) -> None:
    found = discover(tmp_path)
    assert found.submissions == []
    assert [u.line() for u in found.unusable] == [
        ".: the folder holds no submissions (.py or .ipynb files, or one folder per student)"]


def test_a_missing_or_non_folder_argument_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(DiscoveryError, match="no such folder"):
        discover(tmp_path / "nope")
    copy(CORRECT, tmp_path / "one.py")
    with pytest.raises(DiscoveryError, match="is not a folder.*grade submit"):
        discover(tmp_path / "one.py")




def test_gradescope_export_reads_ids_and_names_from_the_metadata(tmp_path: Path) -> None:
    (tmp_path / "submission_metadata.yml").write_text(GRADESCOPE_METADATA)
    copy(CORRECT, tmp_path / "submission_101" / "student.py")
    notebook(tmp_path / "submission_102" / "bpe.ipynb", "x = 1")
    (tmp_path / "submission_104").mkdir()
    copy(CORRECT, tmp_path / "stray" / "student.py")
    found = discover(tmp_path)
    assert found.layout == "gradescope"
    assert [(s.student, s.name, s.email, s.entry) for s in found.submissions] == [
        ("1001", "Ada Lovelace", "ada@example.edu", "submission_101/student.py"),
        ("1002", "Alan Turing", "alan@example.edu", "submission_102/bpe.ipynb"),
        # a group submission counts for each member; no sid: the e-mail is the id
        ("grace@example.edu", "Grace Hopper", "grace@example.edu", "submission_102/bpe.ipynb"),
    ]
    why = {(u.entry, u.student): u.reason for u in found.unusable}
    assert "its folder is missing" in why[("submission_103", "")]
    assert "empty folder" in why[("submission_104", "1004")]
    assert "not listed in submission_metadata.yml" in why[("stray", "")]


def test_shards_split_a_class_exactly_once_each() -> None:
    students = [f"s{i:03d}" for i in range(200)]
    shards = [Shard.parse(f"{k}/3") for k in (1, 2, 3)]
    held = [[s for s in students if shard.holds(s)] for shard in shards]
    assert sorted(sum(held, [])) == students
    assert all(40 < len(part) < 95 for part in held)
    assert held == [[s for s in students if shard.holds(s)] for shard in shards]  # deterministic
    for bad in ("0/2", "3/2", "1/0", "a/b", "2"):
        with pytest.raises(ShardError):
            Shard.parse(bad)
