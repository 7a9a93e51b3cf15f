"""What every ``grade`` command shares: exit codes, the course-folder and colour options, and
loading an exercise with errors a user can act on.

Exit codes are the same for every command (and listed in every ``--help``):

- 0: done; the submission was graded (whatever its score), the spec is clean, every known
  mistake is caught;
- 1: a fault of the grader itself (a bug, a broken installation, a sandbox that cannot start);
- 2: a usage or input error: a bad option, an unknown exercise, a spec or file that cannot be
  read or loaded;
- 3: the command ran and its verdict is "no": ``grade check`` found problems, ``grade audit``
  let a known mistake through, ``grade submit --fail-under`` scored below the bar.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, NoReturn, Optional

import click

if TYPE_CHECKING:
    from grader.spec import Exercise

OK = 0
GRADER_FAULT = 1
INPUT_ERROR = 2
VERDICT_NO = 3

EXIT_CODES_HELP = (
    "\b\n"
    "Exit codes (the same for every command):\n"
    "  0  done: graded (whatever the score), spec clean, every mistake caught\n"
    "  1  a fault of the grader itself\n"
    "  2  usage or input error: bad option, unknown exercise, unreadable spec or file\n"
    "  3  the verdict is no: check found problems, audit missed a mistake,\n"
    "     score under --fail-under"
)

GRADER_FAULT_ADVICE = (
    "This is a fault of the grader, not of your input. Please report it to your course "
    "staff (or the bpe-autograder issue tracker) with the command you ran and this message."
)


class InputError(click.ClickException):
    """An input the user can fix (unknown exercise, a spec that does not load): exit 2."""

    exit_code = INPUT_ERROR


@contextmanager
def paused_collector() -> Iterator[None]:
    """Python's cyclic garbage collector paused while a command loads the grader, its exercise
    and its inputs. The modules' objects are not garbage, yet the collector would scan them
    again and again as they arrive: about a tenth of a grading's CPU time. On leaving they are
    frozen (``gc.freeze``), so the collections of the work that follows skip them too."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
        gc.freeze()


def say(text: str, *, err: bool = False) -> None:
    """Print a line that may quote what a student wrote (a file name, a note, an exception),
    its control characters escaped (:func:`grader.report.safety.terminal_text`)."""
    # Imported here: the report package pulls in every renderer, which --help need not load.
    from grader.report.safety import terminal_text

    click.echo(terminal_text(text), err=err)


def fail(command: str, *lines: str, code: int = GRADER_FAULT) -> NoReturn:
    """Print ``lines`` on standard error, each prefixed with ``grade COMMAND:``, and exit."""
    for line in lines:
        say(f"grade {command}: {line}", err=True)
    sys.exit(code)


def grader_fault(command: str, what: str, error: BaseException) -> NoReturn:
    """Exit 1 for a failure of the grader itself: one short message and what to do, never a
    traceback."""
    fail(command, f"{what}: {type(error).__name__}: {error}", GRADER_FAULT_ADVICE)


def with_exit_codes(help_text: Optional[str]) -> str:
    """A command's help text followed by the exit codes."""
    return f"{(help_text or '').rstrip()}\n\n{EXIT_CODES_HELP}"


def refuse_special_file(path: Any, param_hint: str, wanted: str) -> None:
    """A usage error (exit 2) when ``path`` is a named pipe, a folder, a device or a socket,
    told before anything opens it (reading a FIFO would wait for a writer forever)."""
    from grader.spec.loading import special_file_kind

    kind = special_file_kind(Path(path))
    if kind is not None:
        raise click.BadParameter(f"{path} is {kind}, not a file: give {wanted}",
                                 param_hint=param_hint)


def _use_dirs(ctx: click.Context, param: click.Parameter, value: tuple) -> tuple:
    if value:
        from grader.spec.loading import use_exercise_dirs

        for folder in value:
            if not Path(folder).is_dir():
                raise click.BadParameter(f"{folder} is not a folder", param_hint="--exercises-dir")

        use_exercise_dirs(value)
    return value


exercises_dir_option = click.option(
    "--exercises-dir", "exercises_dirs", multiple=True, metavar="DIR", expose_value=False,
    type=click.Path(exists=True, file_okay=False), callback=_use_dirs,
    help="A folder of the course's own specs, searched by id before GRADE_EXERCISES_PATH "
    "and the shipped exercises (repeatable).",
)


def load(exercise_ref: str) -> "Exercise":
    """The exercise named by an id or a spec path; an :class:`InputError` when it does not load."""
    from grader.spec import SpecError, load_exercise

    try:
        return load_exercise(exercise_ref)
    except SpecError as error:
        raise InputError(str(error)) from None


def color_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """``--color/--no-color``; by default colour only on a terminal and never with NO_COLOR."""
    return click.option(
        "--color/--no-color", "color", default=None,
        help="Colour the text report; default: only on a terminal, and never when the "
        "NO_COLOR environment variable is set.",
    )(function)


def use_color(choice: Optional[bool], stream: Any = None) -> bool:
    """Whether to colour output written to ``stream`` (standard output by default)."""
    if choice is not None:
        return choice
    if os.environ.get("NO_COLOR"):
        return False
    stream = sys.stdout if stream is None else stream
    return bool(getattr(stream, "isatty", lambda: False)())


student_id_option = click.option(
    "--student-id", type=click.Choice(["email", "sid"]), envvar="GRADE_STUDENT_ID", default=None,
    help="The course's setting of which id names a student: the e-mail or the SID of "
    "Gradescope's submitter records (the Gradescope door, grade batch of an export, the roster "
    "column of grade stub --roster and the bundle's README follow it); default: "
    "$GRADE_STUDENT_ID, else email.")
"""One course setting for every command that names students."""
