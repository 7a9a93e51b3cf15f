"""A spec's text as students may read it: every hidden case cut out, the rest as written.

``grade show`` prints this view unless asked for the hidden cases; the lines of each hidden
case are found from the YAML document's own node positions, so comments and layout stay.
"""

from __future__ import annotations

import yaml

HIDDEN = "hidden"


def without_hidden_cases(text: str) -> tuple[str, int]:
    """``text`` with its hidden cases removed, and how many there were."""
    try:
        document = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return text, 0
    if not isinstance(document, yaml.MappingNode):
        return text, 0
    spans = []
    for key, value in document.value:
        if key.value == "cases" and isinstance(value, yaml.SequenceNode):
            lines = text.splitlines(keepends=True)
            spans = [(item.start_mark.line, _end_line(item, lines)) for item in value.value
                     if _is_hidden(item)]
    if not spans:
        return text, 0
    dropped = set()
    for start, end in spans:
        dropped.update(range(start, end))
    first = spans[0][0]
    indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
    note = (f"{indent}# {len(spans)} hidden case{'' if len(spans) == 1 else 's'} not shown "
            "(grade show --hidden prints them)\n")
    kept = [line for number, line in enumerate(lines) if number not in dropped or number == first]
    index = sum(1 for number in range(first) if number not in dropped)
    kept[index] = note
    return "".join(kept), len(spans)


def _is_hidden(item: yaml.Node) -> bool:
    if not isinstance(item, yaml.MappingNode):
        return False
    return any(key.value == "visibility" and getattr(value, "value", None) == HIDDEN
               for key, value in item.value)


def _end_line(item: yaml.Node, lines: list[str]) -> int:
    """The first line after ``item``: a block item ends where the next token begins, which
    may be the next item's ``-`` on its own line."""
    end = item.end_mark
    if end.line >= len(lines):
        return len(lines)
    before = lines[end.line][: end.column].strip()
    return end.line if before in ("", "-") else end.line + 1
