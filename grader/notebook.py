"""Checks from a notebook cell: ``from grader.notebook import check`` then ``check("train")``.

:func:`check` takes the cells the running kernel has executed so far, in the order it ran
them (IPython's input history, as typed: magics included), makes them a notebook whose cell N
is ``In [N]``, and grades it with :func:`grader.grading.engine.grade_submission`, the grading
behind ``grade submit``: the same magic handling, sandbox and checks, so the verdicts are those
``grade submit`` gives the notebook saved after the same run. The public checks of the
milestones asked are shown under the cell (HTML in Jupyter, plain text elsewhere); hidden
checks are only counted. The grader's own lines (this import, the check() calls) are left out
of what is graded. The grader's modules are imported on the first call, not on import.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional, Sequence, Union

NOTEBOOK_NAME = "notebook.ipynb"


class CheckError(Exception):
    """check() cannot grade: no kernel history, no exercise, an unknown milestone. Its message
    says what to do."""


def check(milestone: Optional[str] = None, *, exercise: Union[str, os.PathLike, None] = None,
          exercises_dir: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]], None] = None,
          seed_secret: Optional[str] = None) -> None:
    """Grade the cells this kernel has run and show the feedback of ``milestone`` (an id such
    as ``"train"``; every milestone when None) under the cell.

    The exercise is ``exercise`` (an id or a spec file, such as the one a course bundle
    ships), else the ``# exercise: ID`` line of the cells; ``exercises_dir`` is a folder (or
    several) of the course's own specs, searched by id first.
    """
    try:
        feedback = _feedback(milestone, exercise, exercises_dir, seed_secret)
    except CheckError as error:
        _show(f"check() could not run: {error}", None)
        return
    _show(feedback.text(), feedback.html())


def executed_cells() -> list[str]:
    """The kernel's executed cells as typed, ``In [1]`` first; raise :class:`CheckError`
    outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:
        get_ipython = None  # type: ignore[assignment]
    shell = get_ipython() if get_ipython is not None else None
    if shell is None:
        raise CheckError("check() grades the cells of a running notebook; run it in a Jupyter "
                         "cell, or grade a saved file with: grade submit FILE")
    return [str(cell) for cell in shell.history_manager.input_hist_raw[1:]]


def cells_notebook(cells: Sequence[str]) -> bytes:
    """``cells`` as the bytes of a notebook with one code cell each, in order."""
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    for cell in notebook.cells:
        cell.pop("id", None)  # ids are random; the graded bytes depend only on the cells
    notebook.nbformat_minor = 4
    return nbformat.writes(notebook).encode("utf-8")


def _feedback(milestone: Optional[str], exercise: Any, exercises_dir: Any,
              seed_secret: Optional[str]) -> Any:
    from grader.sandbox.layers import start_probe

    start_probe()  # finds the host's isolation layers on another core while the grader loads
    from grader.grading.engine import resolve_exercise
    from grader.grading.submission_file import HEADER, HandedIn
    from grader.grading.submissions import GradingSetupError
    from grader.report.notebook_check import UnknownMilestone, check_feedback_of

    cells = executed_cells()
    if exercises_dir is not None:
        from grader.spec.loading import use_exercise_dirs

        folders = [exercises_dir] if isinstance(exercises_dir, (str, os.PathLike)) else exercises_dir
        missing = [str(folder) for folder in folders if not Path(folder).is_dir()]
        if missing:
            raise CheckError(f"exercises_dir: {', '.join(missing)} is not a folder")
        use_exercise_dirs(folders)
    if exercise is None:  # the header line may be in any cell run so far
        exercise = next((match.group(1) for cell in cells for line in cell.splitlines()
                         if (match := HEADER.match(line))), None)
        if exercise is None:
            raise CheckError("no cell run so far has an '# exercise: ID' line; run the cell that "
                             "has it, or name the exercise: check(exercise=\"ID\") (an id or "
                             "a spec file)")
    handed = HandedIn(Path(_notebook_name()), raw=cells_notebook(cells))
    try:
        from grader.grading.engine import grade_submission

        spec = resolve_exercise(handed, exercise)
        if milestone is not None and milestone not in [m.id for m in spec.milestones]:
            raise CheckError(f"{spec.id} has no milestone {milestone!r}; its milestones are "
                             + ", ".join(m.id for m in spec.milestones))
        report = grade_submission(handed, spec, seed_secret=seed_secret)
        feedback = check_feedback_of(report, [milestone] if milestone else [])
        feedback.graded_as = f"{len(cells)} cells this kernel ran, as {handed.name} (cell N is In [N])"
    except CheckError:
        raise
    except (GradingSetupError, UnknownMilestone) as error:
        raise CheckError(str(error)) from None
    except Exception as error:  # noqa: BLE001 - SandboxUnavailable and the like: said, not raised
        raise CheckError(f"{type(error).__name__}: {error}") from None
    return feedback


def _notebook_name() -> str:
    """The open notebook's file name where the front end tells the kernel (Jupyter Server
    sets JPY_SESSION_NAME, VS Code ``__vsc_ipynb_file__``), else :data:`NOTEBOOK_NAME`."""
    from IPython import get_ipython

    shell = get_ipython()
    named = os.environ.get("JPY_SESSION_NAME") or (
        shell.user_ns.get("__vsc_ipynb_file__") if shell is not None else None)
    name = os.path.basename(str(named or ""))
    return name if name.endswith(".ipynb") else NOTEBOOK_NAME


def _show(text: str, html: Optional[str]) -> None:
    """Show the feedback under the cell: HTML where the front end displays it, else text."""
    try:
        from IPython.display import display
    except ImportError:
        print(text)
        return
    bundle = {"text/plain": text}
    if html is not None:
        bundle["text/html"] = html
    display(bundle, raw=True)
