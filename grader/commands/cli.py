"""The ``grade`` command line: a thin Click layer; each command lives in ``grader.commands``.

Commands are imported only when run (or when their own ``--help`` is asked for), so
``grade --version`` and ``grade --help`` start without pydantic, Hypothesis or the sandbox.
The one-line summaries ``grade --help`` lists are kept here for the same reason; a test checks
they match the commands' own help. A process started to run a command takes its dataclasses'
methods compiled by an earlier one (:mod:`grader.spec.compiled_methods`).
"""

from __future__ import annotations

import importlib
import sys
from typing import Optional

import click

from grader.commands.common import EXIT_CODES_HELP

COMMANDS: dict[str, tuple[str, str]] = {
    # name: (module:attribute, one-line summary)
    "submit": ("grader.commands.submit:submit",
               "Grade SUBMISSION (a student's .py or .ipynb file) and print feedback."),
    "audit": ("grader.commands.audit:audit",
              "Do EXERCISE's checks catch every known mistake?"),
    "list": ("grader.commands.authoring:list_exercises",
             "List the exercises available, with their milestones and points."),
    "show": ("grader.commands.authoring:show",
             "Print the YAML spec of EXERCISE."),
    "stub": ("grader.commands.authoring:stub",
             "Render the student stub of EXERCISE."),
    "check": ("grader.commands.authoring:check",
              "Validate specs and verify their expected values."),
    "new": ("grader.commands.authoring:new",
            "Write a new exercise spec that passes grade check as written."),
    "schema": ("grader.commands.authoring:schema",
               "Print the exercise spec format as a JSON Schema."),
    "trace": ("grader.commands.trace:trace",
              "Print BPE training step by step, as in the hand exercises."),
    "bundle": ("grader.commands.bundle:bundle",
               "Package EXERCISE's autograder for Gradescope, PrairieLearn or GitHub Classroom."),
    "batch": ("grader.commands.batch:batch",
              "Grade a whole class into a gradebook, CSV exports and a class report."),
    "similarity": ("grader.commands.similarity:similarity",
                   "Rank the pairs of a class's submissions by the code they share."),
}


def load_command(name: str) -> click.Command:
    module_name, attribute = COMMANDS[name][0].split(":")
    return getattr(importlib.import_module(module_name), attribute)


class LazyGroup(click.Group):
    """A group whose commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> Optional[click.Command]:
        if cmd_name not in COMMANDS:
            return None
        if ctx.find_root().command is getattr(sys.modules.get("__main__"), "main", None):
            from grader.spec.compiled_methods import keep

            keep()  # this process is the command's own: its records' methods need no compiling
        return load_command(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, summary) for name, (_, summary) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]},
             epilog=EXIT_CODES_HELP)
@click.version_option(package_name="bpe-autograder")
def main() -> None:
    """Auto-grade Byte-Pair Encoding homework against a reference solution.

    Exercises are found by id in the --exercises-dir folders of a command, then in the
    colon-separated folders of GRADE_EXERCISES_PATH, then among the shipped ones.
    """


if __name__ == "__main__":
    main()
