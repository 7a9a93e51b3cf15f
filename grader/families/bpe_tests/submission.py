"""A test file opened for grading: read here, run only in the sandbox with the BPE served.

The file is read (bounded, UTF-8) and parsed on the grader's side to list its tests
(:mod:`grader.families.bpe_tests.test_file`); it is loaded in one sandbox whose module
``tests.module`` serves ``train_bpe`` and ``encode`` from this side. The checks then see an
:class:`OpenedTests`: the verdicts, asked for lazily, each run a fresh sandbox call
(:mod:`grader.families.bpe_tests.runner`).
"""

from __future__ import annotations

import contextlib
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from grader.families.api import Exercise, Opened, Sandbox, SandboxLimits
from grader.families.bpe_tests.implementations import FUNCTIONS, REFERENCE, Implementation
from grader.families.bpe_tests.outcomes import Run
from grader.families.bpe_tests.runner import ReferenceAnswers, answers_alike, run_test
from grader.families.bpe_tests.test_file import read_test_file
from grader.families.bpe_tests.verdicts import Verdicts

SAFE_NAME = "test_submission.py"


@dataclass
class OpenedTests:
    """What the family's checks grade: the file's tests and their verdicts."""

    exercise: Exercise
    file_name: str
    module: str
    verdicts: Verdicts
    reference_answer: ReferenceAnswers


class TestFileKind:
    """A Python file of tests, run in the sandbox against served implementations."""

    suffixes = (".py",)
    noun = "a Python test file"

    def file_name_problem(self, name: str) -> Optional[str]:
        if not name.endswith(".py") or "/" in name or "\\" in name or not name[:-3].isidentifier():
            return f"{name!r} must be a plain Python file name such as test_bpe.py"
        return None

    def open(self, stack: contextlib.ExitStack, path: Path, exercise: Exercise, *,
             seed_secret: Optional[str], strict_sandbox: bool, helper: bool,
             submitter: Any = None, content: Optional[bytes] = None) -> Opened:
        settings = exercise.tests
        try:
            raw = content if content is not None else _read(path, settings.max_file_bytes)
        except OSError as error:
            return _not_graded(f"{path.name} could not be read: {error.strerror or error}")
        if len(raw) > settings.max_file_bytes:
            return _not_graded(f"{path.name} is {len(raw)} bytes, over the "
                               f"{settings.max_file_bytes} bytes a test file may have")
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            return _not_graded(f"{path.name} is not UTF-8 text; save it as UTF-8")
        tests = read_test_file(text, settings.module)
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="grade-tests-")))
        copy = folder / (path.name if self.file_name_problem(path.name) is None else SAFE_NAME)
        copy.write_text(text, encoding="utf-8")
        limits = SandboxLimits(call_seconds=exercise.limits.call_seconds,
                               memory_mib=exercise.limits.memory_mib,
                               total_seconds=exercise.limits.total_seconds)
        box = stack.enter_context(Sandbox(copy, limits=limits, strict=strict_sandbox,
                                          allowed_imports=exercise.allowed_imports,
                                          serves={settings.module: FUNCTIONS}))
        loaded = box.load()
        if not loaded.ok:
            reason = f"{path.name} could not be loaded: {loaded.error}"
            if "No module named 'pytest'" in (loaded.error or ""):
                reason += (". pytest is not available where your tests run: write plain "
                           "assert statements, and check an error with try/except")
            return _not_graded(reason, layers=dict(box.layers), box=box)
        answers = ReferenceAnswers()

        def runner(test: str, implementation: Implementation) -> Run:
            run = run_test(box, test, implementation)
            if implementation is REFERENCE:
                answers.learn(run)
            return run

        verdicts = Verdicts(tests, runner, answers, settings.max_tests, answers_alike)
        opened_tests = OpenedTests(exercise, path.name, settings.module, verdicts, answers)
        notes = [f"class {name} (line {line}) holds test methods, which are not run: write "
                 "them as plain functions at the top level of the file"
                 for name, line in tests.classes]
        return Opened(calls=opened_tests, box=box, layers=dict(box.layers), notes=notes,
                      output=lambda: box.output)


def _read(path: Path, limit: int) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(limit + 1)


def _not_graded(reason: str, **more: Any) -> Opened:
    return Opened(not_gradable=[reason], blocked=lambda milestone: reason, **more)


TEST_FILE = TestFileKind()
