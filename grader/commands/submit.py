"""Commands: submit (being built)."""

import click

@click.command("submit")
def submit() -> None:
    """Not available yet."""
    raise click.ClickException("'grade submit' is not available yet")


@click.command("audit")
def audit() -> None:
    """Not available yet."""
    raise click.ClickException("'grade audit' is not available yet")


