"""Where the Jinja2 templates live: inside the installed package, or in a source checkout.

A non-editable ``pip install .`` ships ``templates/`` as the package data directory
``grader/templates``; a checkout (or an editable install) keeps it at the repository root.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


class TemplatesNotFoundError(FileNotFoundError):
    """Neither the installed nor the checkout templates directory exists."""


def templates_path() -> Path:
    """The directory holding the report and bundle templates."""
    candidates = (_PACKAGE_DIR / "templates", _PACKAGE_DIR.parent / "templates")
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    searched = ", ".join(str(path) for path in candidates)
    raise TemplatesNotFoundError(
        f"the grader's templates directory is missing (looked in {searched}); "
        "reinstall bpe-autograder or run from a complete checkout"
    )
