"""Doctest examples of a stub kept within the stub's line length.

An example's input (``>>> ...``) longer than :data:`WIDTH` characters is split after the
commas inside its brackets into ``...`` continuation lines, as a person would write it; a
``# doctest:`` directive ends the last line (doctest reads it on any line of the example). An
input with no such comma is left as it is.
"""

from __future__ import annotations

import io
import re
import tokenize

WIDTH = 100
_EXAMPLE = re.compile(r"^(?P<indent>\s*)>>> (?P<source>.*)$")
_OPEN, _CLOSE = "([{", ")]}"


def wrap_doctests(source: str) -> str:
    """``source`` with every long doctest input wrapped."""
    return "\n".join(_wrapped(line) for line in source.split("\n"))


def _wrapped(line: str) -> str:
    match = _EXAMPLE.match(line)
    if len(line) <= WIDTH or match is None:
        return line
    indent, text = match["indent"], match["source"]
    pieces, comment = _pieces(text)
    if pieces is None or len(pieces) < 2:
        return line
    if comment:  # a directive ends the example's last line
        pieces[-1] += "  " + comment
    first, rest = indent + ">>> ", indent + "...     "
    lines = [first + pieces[0]]
    for piece in pieces[1:]:
        if len(lines[-1]) + 1 + len(piece) <= WIDTH:
            lines[-1] += " " + piece
        else:
            lines.append(rest + piece)
    return "\n".join(lines)


def _pieces(text: str) -> tuple[list[str] | None, str]:
    """``text`` cut after each comma inside brackets (each piece stripped), and its trailing
    comment; None when it does not tokenize as one line of Python."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None, ""
    comment = ""
    cuts, depth = [], 0
    for token in tokens:
        if token.type == tokenize.COMMENT:
            comment = token.string
            end = token.start[1]
            break
        if token.type == tokenize.OP and token.string in _OPEN:
            depth += 1
        elif token.type == tokenize.OP and token.string in _CLOSE:
            depth -= 1
        elif token.type == tokenize.OP and token.string == "," and depth >= 1:
            cuts.append(token.end[1])
    else:
        end = len(text)
    code = text[:end].rstrip()
    bounds = [0, *cuts, len(code)]
    pieces = [code[a:b].strip() for a, b in zip(bounds, bounds[1:])]
    return [piece for piece in pieces if piece], comment
