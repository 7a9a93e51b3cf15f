"""Where the Jinja2 templates live (see :mod:`grader.package_data`)."""

from __future__ import annotations

from pathlib import Path

from .package_data import PackageDataNotFound, data_dir

TemplatesNotFoundError = PackageDataNotFound


def templates_path() -> Path:
    """The directory holding the stub, report and bundle templates."""
    return data_dir("templates")
