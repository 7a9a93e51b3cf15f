"""The student stub as a Jupyter notebook: ``grade stub ID --notebook``.

Made from the ``.py`` stub (:func:`grader.spec.stubs.render_stub`), so both say the same: its
docstring becomes the Markdown instructions; the first code cell holds the ``# exercise: ID``
line, the import of ``check`` and the stub's imports (and any other top-level statement
but the functions); then, per function, a Markdown cell with
its milestones and public examples, one code cell with the function as the stub writes it, and
one ``check("MILESTONE")`` cell per milestone of that function.
"""

from __future__ import annotations

import ast

from grader.spec.models import Exercise
from grader.spec.stubs import render_stub, stub_functions

CHECK_IMPORT = "from grader.notebook import check"


def render_notebook_stub(exercise: Exercise) -> str:
    """The notebook stub as the text of an ``.ipynb`` file (nbformat 4)."""
    import nbformat

    source = render_stub(exercise, notebook=True)
    lines = source.splitlines()
    tree = ast.parse(source)
    docstring = ast.get_docstring(tree, clean=True) or ""
    written = {function.name for function in stub_functions(exercise)}
    functions = {node.name: node for node in tree.body
                 if isinstance(node, ast.FunctionDef) and node.name in written}
    setup = [f"# exercise: {exercise.id}", CHECK_IMPORT]
    for node in tree.body[1:]:  # after the docstring: imports and anything else but the functions
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        if not (isinstance(node, ast.FunctionDef) and node.name in written):
            setup.append("\n".join(lines[node.lineno - 1:node.end_lineno]))
    title, _, body = docstring.partition("\n")
    cells = [nbformat.v4.new_markdown_cell(f"# {title.strip()}\n{body}"),
             nbformat.v4.new_code_cell("\n".join(setup))]
    for function in stub_functions(exercise):
        node = functions[function.name]
        first = (node.decorator_list[0].lineno if node.decorator_list else node.lineno) - 1
        milestones = [f"- **{todo['title']}** ({todo['points']} points): `check(\"{todo['id']}\")`"
                      for todo in function.todos]
        words = [f"## `{function.name}`", "", *milestones]
        if function.examples:
            words += ["", "Public examples (the doctests in its docstring):", "", "```python",
                      *function.examples, "```"]
        cells.append(nbformat.v4.new_markdown_cell("\n".join(words)))
        cells.append(nbformat.v4.new_code_cell("\n".join(lines[first:node.end_lineno])))
        cells += [nbformat.v4.new_code_cell(f'check("{todo["id"]}")') for todo in function.todos]
    cells.append(nbformat.v4.new_markdown_cell("## All milestones"))
    cells.append(nbformat.v4.new_code_cell("check()"))
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    notebook.metadata["language_info"] = {"name": "python"}
    nbformat.validate(notebook)
    return nbformat.writes(notebook)
