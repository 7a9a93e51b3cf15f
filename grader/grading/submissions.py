"""How a submission is opened for grading: the student's code in the sandbox, or a family's own.

Every code family's students hand in Python (a ``.py`` file or a notebook), which runs only in
the sandbox: :data:`SANDBOXED_CODE` opens it, loads it in a worker and says which functions
are missing. A family whose students hand in something else (an answers file) brings its own
:class:`SubmissionKind` in its record (``Family.submission``), graded by the same engine. An
:class:`Opened` submission is what the engine grades: whom the checks call, the sandbox, the
isolation layers that held, why it is not gradable, and which milestones cannot run.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Optional

from grader.grading import ahead, prepared
from grader.grading.output_ledger import OutputLedger
from grader.grading.secrets import SeedSecretError, resolve_secret
from grader.grading.student_calls import StudentCalls
from grader.grading.submission_file import (
    HandedIn,
    SubmissionFileError,
    SubmissionSource,
    explain_load_error,
    prepared_submission,
)
from grader.spec import Exercise
from grader.spec.hooks import Opened, SubmissionKind, Submitter
from grader.spec.registry import family_of


class GradingSetupError(Exception):
    """The submission or its exercise cannot be determined; the message says how to fix it."""


class SandboxedCode:
    """Python code (a ``.py`` file or a Jupyter notebook), run only in the sandbox."""

    suffixes = (".py", ".ipynb")
    noun = "a Python file or notebook"

    def file_name_problem(self, name: str) -> Optional[str]:
        if not name.endswith(".py") or "/" in name or "\\" in name or not name[:-3].isidentifier():
            return (f"{name!r} must be a plain Python file name such as student.py "
                    "(an importable name ending in .py, no directories)")
        return None

    def open(self, stack: contextlib.ExitStack, path: Path, exercise: Exercise, *,
             seed_secret: Optional[str], strict_sandbox: bool, helper: bool,
             submitter: Submitter = None, content: Optional[bytes] = None) -> Opened:
        from grader.sandbox import Sandbox, SandboxLimits

        try:
            secret = resolve_secret(seed_secret)
        except SeedSecretError as error:
            raise GradingSetupError(str(error)) from None
        limits = SandboxLimits(
            call_seconds=exercise.limits.call_seconds,
            memory_mib=exercise.limits.memory_mib,
            total_seconds=exercise.limits.total_seconds,
        )
        if helper:  # forked before the sandbox exists, so it holds none of its pipes
            stack.callback(ahead.stop_helper, prepared.start_helper(exercise, secret))
        else:
            prepared.load_stored(exercise, secret)
        try:
            submitted = path if content is None else HandedIn(path, raw=content)
            sandboxed, source = stack.enter_context(prepared_submission(submitted))
        except SubmissionFileError as error:
            reason = str(error)
            return Opened(not_gradable=[reason], blocked=lambda milestone: reason)
        box = stack.enter_context(Sandbox(sandboxed, limits=limits, strict=strict_sandbox,
                                          allowed_imports=exercise.allowed_imports,
                                          where=source.where if source.notebook else None,
                                          parts=([part[:2] for part in source.parts]
                                                 if source.notebook else None)))
        loaded = box.load()
        ledger = OutputLedger(box)
        ledger.loaded()
        roles = exercise.roles()
        if loaded.ok:
            calls = StudentCalls(box, exercise, loaded.functions, file_name=path.name,
                                 secret=secret, output=ledger)
            blocked = {role: cell_missing(calls.missing_message(role), calls.function_name(role),
                                          source, loaded.failed_parts)
                       for role in roles}
            not_gradable = list(dict.fromkeys(m for m in blocked.values() if m))
        else:
            calls = StudentCalls(box, exercise, (), file_name=path.name, secret=secret, output=ledger)
            error = explain_load_error(loaded.error, exercise.allowed_imports)
            reason = f"{path.name} could not be loaded: {error}"
            not_gradable = [reason]
            blocked = {role: reason for role in roles}
        stack.callback(calls.close)
        notes = source.notes + [
            f"cell {source.parts[index][2]} {failed_part_words(words)}; "
            + ("the next cells still ran and grading went on" if index + 1 < len(source.parts)
               else "grading went on with the cells before it")
            for index, words in loaded.failed_parts]
        return Opened(calls=calls, box=box, layers=dict(box.layers), not_gradable=not_gradable,
                      notes=notes,
                      blocked=lambda milestone: blocked.get(milestone.function),
                      output=ledger.text)


SANDBOXED_CODE = SandboxedCode()


def failed_part_words(words: str) -> str:
    """What happened to a cell, after its number: ``raised NameError: ...`` as it is, a
    syntax error as ``could not run: SyntaxError in cell 4, line 2: ...``."""
    return words if words.startswith("raised ") else f"could not run: {words}"


def cell_missing(message: Optional[str], name: str, source: SubmissionSource,
                 failed: list[tuple[int, str]]) -> Optional[str]:
    """``message`` (a function is missing), and why when its notebook cell did not run to the
    end: ``the def of encode is in cell 4, which raised ... and stopped there``."""
    if message is None:
        return None
    lines = source.text.split("\n")
    definition = re.compile(rf"^\s*(async\s+)?def\s+{re.escape(name)}\s*\(")
    for index, words in failed:
        first, last, cell = source.parts[index]
        if any(definition.match(line) for line in lines[first - 1:last]):
            stopped = " and stopped there" if words.startswith("raised ") else ""
            return (f"{message} (the def of {name} is in cell {cell}, which "
                    f"{failed_part_words(words)}{stopped}; fix that cell)")
    return message


def submission_kind(exercise: Exercise) -> SubmissionKind:
    """What students of ``exercise`` hand in."""
    return family_of(exercise).submission or SANDBOXED_CODE
