"""The worked family of docs/families.md, written out as a course folder.

The page marks each code block that is a file of the course with ``<!-- file: PATH -->`` on
the line before it; blocks marked with the same path are one file, in the page's order. The
tests build the course from the page itself, so the tutorial and the code cannot drift.
"""

from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "families.md"
BLOCK = re.compile(r"<!-- file: (?P<path>[^ ]+) -->\n```[a-z]*\n(?P<body>.*?)\n```\n", re.S)


def doc_files() -> dict[str, str]:
    """Each file of the page's worked example: path -> text."""
    files: dict[str, list[str]] = {}
    for found in BLOCK.finditer(PAGE.read_text(encoding="utf-8")):
        files.setdefault(found.group("path"), []).append(found.group("body"))
    return {path: "\n\n\n".join(parts) + "\n" for path, parts in files.items()}


def write_doc_course(folder: Path) -> Path:
    """Write the page's course (its family, spec and submissions) into ``folder``."""
    for path, text in doc_files().items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return folder
