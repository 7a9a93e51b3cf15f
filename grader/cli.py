"""The ``grade`` command line: a thin Click layer; each command lives in ``grader.commands``."""

from __future__ import annotations

import click

from grader.commands import authoring, batch, bundle, submit, trace


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="bpe-autograder")
def main() -> None:
    """Auto-grade Byte-Pair Encoding homework against a reference solution."""


for command in (
    submit.submit,
    submit.audit,
    authoring.list_exercises,
    authoring.stub,
    authoring.check,
    authoring.schema,
    trace.trace,
    bundle.bundle,
    batch.batch,
):
    main.add_command(command)
