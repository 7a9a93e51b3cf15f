"""Shared pieces of the batch tests: quick exercise variants and tiny classes on disk."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from grader.spec import Exercise, load_exercise

from exercise_variants import quick

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SUBMISSIONS = ROOT / "tests" / "submissions"
HOSTILE = ROOT / "tests" / "hostile"

CORRECT = EXAMPLES / "bpe-train-encode" / "student_correct.py"
WRONG = EXAMPLES / "bpe-train-encode" / "student_wrong.py"  # ties first-seen, longest match
TIE_FIRST_SEEN = SUBMISSIONS / "wrong_tie_first_seen.py"
LESSON_CORRECT = EXAMPLES / "lesson97-bpe" / "student_correct.py"
LESSON_WRONG = EXAMPLES / "lesson97-bpe" / "student_wrong.py"

# What an "Export Submissions" folder of Gradescope holds beside the submission folders.
GRADESCOPE_METADATA = """\
submission_101:
  :submitters:
  - :name: Ada Lovelace
    :sid: '1001'
    :email: ada@example.edu
  :created_at: 2026-11-01 10:00:00.000000000 -07:00
  :score: 0.0
submission_102:
  :submitters:
  - :name: Alan Turing
    :sid: '1002'
    :email: alan@example.edu
  - :name: Grace Hopper
    :sid: ''
    :email: grace@example.edu
submission_103:
  :submitters:
  - :name: Nobody Home
    :sid: '1003'
    :email: nobody@example.edu
submission_104:
  :submitters:
  - :name: Empty Handed
    :sid: '1004'
    :email: empty@example.edu
"""


def quick_exercise(exercise_id: str = "bpe-train-encode", total_seconds: float = 10.0) -> Exercise:
    """The shipped exercise without efficiency, few generated inputs, short time limits."""
    exercise = quick(load_exercise(exercise_id), examples=6)
    limits = exercise.limits.model_copy(update={"call_seconds": 1.0,
                                                "total_seconds": total_seconds})
    return exercise.model_copy(update={"limits": limits})


def copy(source: Path, target: Path, header: str | None = None) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    text = source.read_text(encoding="utf-8", errors="surrogateescape")
    if header:
        text = f"# exercise: {header}\n" + text
    target.write_text(text, encoding="utf-8", errors="surrogateescape")
    return target


def notebook(path: Path, *cells: str, markdown: str = "# Homework") -> Path:
    """A minimal nbformat-4 notebook with a markdown cell and ``cells`` as code cells."""
    content = {
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": [markdown]}] + [
            {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
             "source": cell.splitlines(keepends=True)} for cell in cells],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(content), encoding="utf-8")
    return path


def small_class(folder: Path) -> Path:
    """alice (correct), bob (two mistakes), carol (ties first-seen) as STUDENT.py files."""
    copy(CORRECT, folder / "alice.py")
    copy(WRONG, folder / "bob.py")
    copy(TIE_FIRST_SEEN, folder / "carol.py")
    return folder


def replace_tree(source: Path, target: Path) -> Path:
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target)
    return target
