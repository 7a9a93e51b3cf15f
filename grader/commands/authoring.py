"""Commands: authoring (being built)."""

import click

@click.command("list")
def list_exercises() -> None:
    """Not available yet."""
    raise click.ClickException("'grade list' is not available yet")


@click.command("stub")
def stub() -> None:
    """Not available yet."""
    raise click.ClickException("'grade stub' is not available yet")


@click.command("check")
def check() -> None:
    """Not available yet."""
    raise click.ClickException("'grade check' is not available yet")


@click.command("schema")
def schema() -> None:
    """Not available yet."""
    raise click.ClickException("'grade schema' is not available yet")


