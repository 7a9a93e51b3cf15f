"""A Jupyter notebook's code as one Python file, so a notebook submission is graded like a
``.py`` one.

Code cells are joined in order, separated by blank lines; IPython magics and shell escapes
(lines starting with ``%`` or ``!``) become comments, since plain Python cannot run them.
Markdown and raw cells, outputs and metadata are ignored. Only the standard library is used.
"""

from __future__ import annotations

import json
from pathlib import Path


class NotebookError(ValueError):
    """The file is not a notebook this module can read; the message says why."""


def notebook_source(path: Path) -> str:
    """The code cells of the notebook at ``path`` as Python source."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise NotebookError("the notebook is not UTF-8 text") from None
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(f"the notebook is not valid JSON (line {error.lineno}: "
                            f"{error.msg}); re-save it from Jupyter") from None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise NotebookError("the notebook has no list of cells (nbformat 4 expected)")
    chunks = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(str(part) for part in source)
        lines = [f"# {line}" if line.lstrip().startswith(("%", "!")) else line
                 for line in str(source).splitlines()]
        chunks.append("\n".join(lines).rstrip())
    return "\n\n".join(chunk for chunk in chunks if chunk) + "\n"
