"""Commands: bundle (being built)."""

import click

@click.command("bundle")
def bundle() -> None:
    """Not available yet."""
    raise click.ClickException("'grade bundle' is not available yet")


