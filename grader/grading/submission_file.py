"""The submission as students make it, turned into the plain Python file the sandbox imports.

Students submit from Windows editors (a UTF-8 byte-order mark, CRLF line ends) and from
Jupyter (``.ipynb``). The file is read from disk once (:func:`handed_in`, a :class:`HandedIn`);
every later step (its header, its notes, what the sandbox imports, a data file's answers)
works on those bytes, so a file changed while it is graded is graded as it was read.
:func:`read_submission` returns the Python source with the BOM dropped, line ends made
``\\n`` and, for a notebook, the code cells in order (``parts``: the lines of each, which the
sandbox runs one by one as Jupyter does, a cell that raises not stopping the next) with timing
magics replaced by the statement they run (``%time m = f()`` runs ``m = f()``) and other
IPython magics and shell lines dropped; each change is noted in plain words. :func:`prepared_submission` writes that source
to a temporary ``.py`` file, so the sandbox always sees ordinary Python. The ``# exercise: ID`` header is read from the same source, and
:func:`explain_load_error` turns an import the exercise does not allow into advice.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import tempfile
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence, Union

BOM = "\ufeff"
HEADER = re.compile(r"^\s*#\s*exercise\s*:\s*(\S+)\s*$")
HEADER_SEARCH_LINES = 20
# Cell magics whose body is still Python the student meant to run.
TRANSPARENT_CELL_MAGICS = ("%%time", "%%timeit", "%%capture", "%%prun")
# Line magics that run the statement after their options, as IPython does: the option
# letters that take a value (``-n 3``) and those that do not; ``%time`` takes none.
STATEMENT_MAGICS: dict[str, Optional[tuple[str, str]]] = {
    "time": None, "timeit": ("nrp", "tcqo"), "prun": ("DlsT", "rq")}
SHOWN_LINE_CHARS = 300
LISTED_LINES = 12  # the lines one note lists, the rest counted
# The in-notebook check (grader.notebook): its import, and its calls once it is imported, are
# the grader's lines, not the student's work; graded, they would only fail in the sandbox.
CHECK_IMPORT = re.compile(r"^(?:from\s+grader\.notebook\s+import\s+check\s*|import\s+grader\.notebook\s*)(?:#.*)?$")
CHECK_CALL = re.compile(r"^(?:grader\.notebook\.)?check\(.*\)\s*;?\s*(?:#.*)?$")
_MISSING_MODULE = re.compile(r"No module named '([^'.]+)[^']*'")
MAX_SUBMISSION_BYTES = 4_000_000
"""A submission larger than this is refused before it is parsed (a homework is a few KB; a
notebook with its outputs rarely passes 1 MB)."""


class SubmissionFileError(ValueError):
    """The file cannot be read as a submission (not UTF-8, not a notebook); says how to fix it."""


@dataclass
class SubmissionSource:
    """The Python source of a submission and what was changed to get it."""

    text: str
    notes: list[str] = field(default_factory=list)
    notebook: bool = False
    changed: bool = False
    cells: list[tuple[int, int]] = field(default_factory=list)  # per line of text: (cell, line)
    # A notebook's code cells as run one by one: (first line, last line in text, cell number).
    parts: list[tuple[int, int, int]] = field(default_factory=list)

    def where(self, line: int) -> str:
        """Line ``line`` of the graded text as the student knows it: in a notebook, the cell
        (numbered as Jupyter counts all cells) and the line in it."""
        if self.notebook and 1 <= line <= len(self.cells):
            cell, inside = self.cells[line - 1]
            return f"cell {cell}, line {inside}"
        return f"line {line}"


@dataclass
class HandedIn:
    """A submission file as read from disk, once: its bytes, or why they could not be read."""

    path: Path
    raw: Optional[bytes] = None
    problem: Optional[str] = None
    _source: Optional[SubmissionSource] = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return self.path.name


Submitted = Union[HandedIn, str, "os.PathLike[str]"]
"""A submission as callers give it: read already, or a path to read once."""


def handed_in(submitted: Submitted) -> HandedIn:
    """The submission read once (``submitted`` itself when it was read already)."""
    if isinstance(submitted, HandedIn):
        return submitted
    path = Path(submitted)
    try:
        # Not blocking: a named pipe handed in as a file must not hang the grader.
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(descriptor, "rb") as handle:
            status = os.fstat(handle.fileno())
            if not stat.S_ISREG(status.st_mode):
                return HandedIn(path, problem=f"{path.name} is not a regular file; submit the "
                                              "file itself")
            size = status.st_size
            if size > MAX_SUBMISSION_BYTES:
                advice = (" (for a notebook, clear its outputs: Kernel > Restart & Clear "
                          "Output, then save)" if path.suffix.lower() == ".ipynb" else "")
                return HandedIn(path, problem=(
                    f"{path.name} is {size:,} bytes; a submission may have at most "
                    f"{MAX_SUBMISSION_BYTES:,}{advice}"))
            return HandedIn(path, raw=handle.read(MAX_SUBMISSION_BYTES + 1))
    except OSError as error:
        return HandedIn(path, problem=f"cannot read {path.name}: {error.strerror or error}")


def read_submission(submitted: Submitted) -> SubmissionSource:
    """The submission's Python source; raise :class:`SubmissionFileError` when unreadable."""
    handed = handed_in(submitted)
    if handed._source is None:
        handed._source = _source(handed)
    return handed._source


def _source(handed: HandedIn) -> SubmissionSource:
    path = handed.path
    if handed.problem is not None or handed.raw is None:
        raise SubmissionFileError(handed.problem or f"cannot read {path.name}")
    raw = handed.raw
    if len(raw) > MAX_SUBMISSION_BYTES:
        raise SubmissionFileError(f"{path.name} grew past {MAX_SUBMISSION_BYTES:,} bytes while "
                                  "it was read; submit it again once it is saved")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SubmissionFileError(
            f"{path.name} is not UTF-8 text (byte {error.start}); save it as UTF-8 in your editor"
        ) from None
    notes: list[str] = []
    if path.suffix.lower() == ".ipynb":
        source = _notebook_source(path.name, text)
        source.changed = True
        return source
    if text.startswith(BOM):
        text = text[len(BOM):]
        notes.append(f"{path.name} starts with a byte-order mark (as Windows editors save); it was ignored")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        notes.append(f"{path.name} has Windows (CRLF) line ends; they were read as plain line ends")
    return SubmissionSource(text, notes, changed=bool(notes))


def _notebook_source(name: str, text: str) -> SubmissionSource:
    import nbformat

    try:
        with warnings.catch_warnings():
            # Its cells' missing ids (older or hand-made notebooks) change nothing here: no
            # nbformat warning reaches the student's terminal.
            warnings.simplefilter("ignore")
            notebook = nbformat.reads(text.lstrip(BOM), as_version=4)
    except Exception as error:  # noqa: BLE001 - nbformat raises several unrelated types
        raise SubmissionFileError(
            f"{name} is not a readable Jupyter notebook ({type(error).__name__}: {error}); "
            "save it again from Jupyter, or submit a .py file (JupyterLab and Notebook 7: File > "
            "Save and Export Notebook As > Executable Script)"
        ) from None
    dropped: list[str] = []
    ran: list[str] = []
    cells: list[str] = []
    origins: list[tuple[int, int]] = []
    parts: list[tuple[int, int, int]] = []
    checks: list[str] = []
    code = [cell.get("source", "") for cell in notebook.cells if cell.get("cell_type") == "code"]
    checked = any(CHECK_IMPORT.match(line.strip()) for source in code for line in source.splitlines())
    for number, cell in enumerate(notebook.cells, start=1):
        if cell.get("cell_type") != "code":
            continue
        kept = _code_cell(number, cell.get("source", ""), dropped, ran,
                          checks if checked else None)
        if kept.strip():
            if cells:
                origins += [(number, 0), (number, 0)]  # the blank lines between two cells
            cells.append(kept.rstrip("\n") + "\n")
            first = len(origins) + 1
            origins += [(number, inside) for inside in range(1, cells[-1].count("\n") + 1)]
            parts.append((first, len(origins), number))
    notes = [f"{name} is a notebook: its {len(cells)} code cell(s) were run in order, each as "
             "Jupyter runs it (a cell that raises is reported and the next cells still run)"]
    if ran:
        notes.append("IPython timing magics were graded as the statement they run (once, "
                     "untimed): " + _listed(ran))
    if dropped:
        notes.append("IPython magics and shell lines are not Python and were dropped: "
                     + _listed(dropped))
    if checks:
        notes.append("the lines that import and call the grader's check() were left out "
                     "(they run the grader, not your code): " + _listed(checks))
    return SubmissionSource("\n\n".join(cells), notes, notebook=True, cells=origins, parts=parts)


def _listed(lines: list[str]) -> str:
    shown = lines[:LISTED_LINES]
    return "; ".join(shown) + (f"; and {len(lines) - len(shown)} more" if lines[len(shown):] else "")


def _shown(line: str) -> str:
    """A line of a cell as a note shows it: whole (a very long one cut, marked ``...``)."""
    line = line.strip()
    return line if len(line) <= SHOWN_LINE_CHARS else line[:SHOWN_LINE_CHARS] + "..."


def magic_statement(line: str) -> Optional[str]:
    """The Python statement a line magic runs (``%time STMT``, ``%timeit -n 3 STMT``,
    ``%prun -s cumulative STMT``, ``NAME = %time EXPR``), or None for any other line."""
    match = re.match(r"^(\s*)(?:([A-Za-z_][\w.]*\s*=)\s*)?%(\w+)(.*)$", line)
    if not match:
        return None
    indent, target, magic, rest = match.groups()
    if magic not in STATEMENT_MAGICS or (target and magic != "time"):
        return None
    options = STATEMENT_MAGICS[magic]
    rest = rest.lstrip()
    while options is not None and rest.startswith("-"):
        option = re.match(r"-(\S+)\s*", rest)
        if option is None:
            break
        letters, rest = option.group(1), rest[option.end():]
        for at, letter in enumerate(letters):
            if letter not in options[0] + options[1]:
                return None  # not an option of this magic: the line is left as it is
            if letter in options[0]:
                if at == len(letters) - 1:  # its value is the next word
                    value = re.match(r"\S+\s*", rest)
                    if value is None:
                        return None
                    rest = rest[value.end():]
                break
    if not rest.strip():
        return None
    return indent + (target + " " if target else "") + rest.rstrip()


def _code_cell(number: int, source: str, dropped: list[str], ran: list[str],
               checks: Optional[list[str]] = None) -> str:
    """The cell's Python; with ``checks`` (the notebook imports the grader's check()), its
    top-level import and calls of check() are left out and listed there."""
    lines = source.replace("\r\n", "\n").split("\n")
    first = lines[0].strip() if lines else ""
    if first.startswith("%%"):
        magic = first.split()[0]
        if magic not in TRANSPARENT_CELL_MAGICS:
            dropped.append(f"cell {number}: the whole {magic} cell")
            return ""
        ran.append(f"cell {number}: {_shown(first)}")
        setup = magic_statement(first[1:]) if magic == "%%timeit" else None
        lines = [setup.strip() if setup else ""] + lines[1:]  # line numbers stay the cell's
    kept = []
    for line in lines:
        stripped = line.lstrip()
        statement = magic_statement(line) if stripped.startswith("%") or "=" in stripped else None
        if checks is not None and line == stripped and (CHECK_IMPORT.match(stripped.rstrip())
                                                        or CHECK_CALL.match(stripped.rstrip())):
            checks.append(f"cell {number}: {_shown(line)}")
            kept.append("")
        elif statement is not None:
            ran.append(f"cell {number}: {_shown(line)}")
            kept.append(statement)
        elif stripped.startswith(("%", "!")) or re.match(r"^[\w.]+\s*=\s*[!%]", stripped):
            dropped.append(f"cell {number}: {_shown(line)}")
            kept.append("")  # keep line numbers within the cell
        else:
            kept.append(line)
    return "\n".join(kept)


@contextlib.contextmanager
def prepared_submission(submitted: Submitted) -> Iterator[tuple[Path, SubmissionSource]]:
    """The path of a temporary plain ``.py`` version of the submission (written from the bytes
    read once, so the student's file is never opened again), and what was changed."""
    handed = handed_in(submitted)
    source = read_submission(handed)
    folder = Path(tempfile.mkdtemp(prefix="grade-submission-"))
    try:
        target = folder / (handed.path.stem + ".py")
        target.write_text(source.text, encoding="utf-8")
        yield target, source
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def header_in(text: str) -> Optional[str]:
    """The id of the ``# exercise: ID`` line among the first lines of ``text``, if any."""
    for line in text.lstrip(BOM).splitlines()[:HEADER_SEARCH_LINES]:
        match = HEADER.match(line)
        if match:
            return match.group(1)
    return None


def exercise_header(submitted: Submitted) -> Optional[str]:
    """The id in the submission's ``# exercise: ID`` line near the top, if there is one."""
    try:
        return header_in(read_submission(submitted).text)
    except SubmissionFileError:
        return None


def header_mismatch(submitted: Submitted, exercise_id: str) -> Optional[str]:
    """A warning when the file's header names another exercise than the one it is graded on."""
    handed = handed_in(submitted)
    header = exercise_header(handed)
    if header is None or header == exercise_id:
        return None
    return (
        f"{handed.name} says '# exercise: {header}' but is graded as exercise {exercise_id!r} "
        "(from --exercise); check that this is the right file and the right exercise"
    )


def explain_load_error(error: str, allowed_imports: Sequence[str] = ()) -> str:
    """``error`` with advice when it is an import of a module the exercise does not allow."""
    from grader.grading.plain_words import plain

    error = plain(error)
    match = _MISSING_MODULE.search(error or "")
    if not match:
        return error
    module = match.group(1)
    allowed = ", ".join(allowed_imports)
    if module in allowed_imports:
        return (f"{error} ({module} is allowed by this exercise but is not installed where "
                "the grader runs; tell your course staff)")
    scope = ("the Python standard library" + (f" and {allowed}" if allowed else ""))
    return (f"{error}: {module} is not available to submissions, which may import only "
            f"{scope}; remove the import and write that part yourself")
