"""Commands: trace (being built)."""

import click

@click.command("trace")
def trace() -> None:
    """Not available yet."""
    raise click.ClickException("'grade trace' is not available yet")


