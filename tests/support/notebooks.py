"""A student's notebook for the door tests: a ``.py`` solution cut into cells as it would be in
Jupyter, with a ``%time`` cell and a demo cell that raises, so that grading it has notes."""

from __future__ import annotations

from pathlib import Path

import nbformat

DEMO_NOTES = ("is a notebook", "%time merges = train_bpe", "raised IndexError")


def demo_notebook(source: Path, path: Path) -> Path:
    """``source`` (a bpe-train-encode solution) cut before a top-level def past its middle,
    then a ``%time`` training cell and a demo cell that raises IndexError."""
    lines = source.read_text(encoding="utf-8").splitlines()
    cut = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].startswith("def "))
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("\n".join(lines[:cut])),
                      nbformat.v4.new_markdown_cell("## Encoding"),
                      nbformat.v4.new_code_cell("\n".join(lines[cut:])),
                      nbformat.v4.new_code_cell("%time merges = train_bpe(['low lower lowest'], 3)"),
                      nbformat.v4.new_code_cell("print(encode('lowest', merges)[99])")]
    nbformat.write(notebook, str(path))
    return path
