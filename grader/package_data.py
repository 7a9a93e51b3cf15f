"""Finding the folders shipped beside the code (exercise specs, templates), and the one Jinja
environment every template is rendered with.

A non-editable ``pip install .`` puts the top-level ``exercises/`` and ``templates/`` folders
inside the package as ``grader/exercise_specs`` and ``grader/jinja_templates`` (see
pyproject.toml); a checkout or an editable install keeps them at the repository root.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import jinja2

_GRADER_DIR = Path(__file__).resolve().parent
_CHECKOUT_DIR = _GRADER_DIR.parent

INSTALLED_NAMES = {"exercises": "exercise_specs", "templates": "jinja_templates"}


class PackageDataNotFound(FileNotFoundError):
    """Neither the installed nor the checkout copy of a shipped folder exists."""


def data_dir(name: str) -> Path:
    """The shipped folder ``name`` ("exercises" or "templates")."""
    candidates = (_GRADER_DIR / INSTALLED_NAMES[name], _CHECKOUT_DIR / name)
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    searched = ", ".join(str(path) for path in candidates)
    raise PackageDataNotFound(
        f"the grader's {name}/ folder is missing (looked in {searched}); "
        "reinstall bpe-autograder or run from a complete checkout"
    )


def templates_path() -> Path:
    """The directory holding the stub, report and bundle templates."""
    return data_dir("templates")


def jinja_environment(*, trim_blocks: bool = False, folder: Path | None = None) -> jinja2.Environment:
    """The one Jinja environment every template renders in: undefined names are errors,
    ``*.html.j2`` templates are autoescaped and nothing else is. ``trim_blocks`` also strips
    the whitespace around block tags, for templates laid out for reading (stubs, reports).
    ``folder`` holds the templates when they are not the shipped ones (a family's own)."""
    import jinja2  # only rendering needs it: grading and start-up do not

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(folder or templates_path())),
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(enabled_extensions=("html.j2", "html"),
                                            default_for_string=False),
        keep_trailing_newline=True,
        trim_blocks=trim_blocks,
        lstrip_blocks=trim_blocks,
    )
