"""Reading a student's answers file safely, in the trusted process: no code runs.

An answers file is YAML written by the student, so it is read with limits: at most the
exercise's ``max_file_bytes``, UTF-8, no anchors or aliases (no entity expansion), a bounded
nesting depth, and only strings, integers, lists and mappings. Every plain scalar but an
integer stays a string: ``no``, ``on``, ``null`` or ``1.5`` are tokens like any other, where a
stock YAML loader would turn them into booleans, None or floats. Integers are decimal whatever
their leading zeros (``08`` is 8) and at most ``MAX_DIGITS`` long; YAML's other types
(``!!binary``, ``!!set``, ``!!timestamp``, a tag of the writer's own) and lone surrogates are
refused with the line. A file that cannot be read
raises :class:`AnswerFileError` with a message saying what to fix.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

MAX_DEPTH = 6
_INTEGER = re.compile(r"^[-+]?[0-9]+$")


class AnswerFileError(ValueError):
    """The answers file cannot be read; the message says why."""


class _AnswerLoader(yaml.SafeLoader):
    """A safe loader with integers as the only implicit type, and no aliases."""

    def compose_node(self, parent: Any, index: Any) -> Any:  # type: ignore[override]
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise AnswerFileError(f"line {event.start_mark.line + 1}: YAML aliases (*name) are not "
                                  "allowed in an answers file; write the value out")
        event = self.peek_event()
        if getattr(event, "anchor", None):
            raise AnswerFileError(f"line {event.start_mark.line + 1}: YAML anchors (&name) are not "
                                  "allowed in an answers file")
        return super().compose_node(parent, index)


MAX_DIGITS = 30
"""Digits an integer may have: every count of a hand exercise is small."""

_PLAIN_TAGS = {"tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:map",
               "tag:yaml.org,2002:seq"}


def _line(node: Any) -> int:
    return node.start_mark.line + 1


def _integer(loader: Any, node: Any) -> int:
    """A whole number in decimal: a leading zero is a zero (``08`` is 8), never octal."""
    text = str(node.value).strip().replace("_", "")
    if not _INTEGER.match(text):
        raise AnswerFileError(f"line {_line(node)}: {str(node.value)[:40]!r} is not a whole "
                              "number; write counts and steps in digits, e.g. 5")
    if len(text.lstrip("+-")) > MAX_DIGITS:
        raise AnswerFileError(f"line {_line(node)}: a number of {len(text)} digits is far larger "
                              "than any count here; write the count you found")
    return int(text, 10)


def _text(loader: Any, node: Any) -> str:
    value = loader.construct_scalar(node)
    if any("\ud800" <= char <= "\udfff" for char in value):
        raise AnswerFileError(f"line {_line(node)}: the text holds a lone surrogate (an escape "
                              "such as \\ud800), which is no character; write the symbols as "
                              "they are")
    return value


def _refused(loader: Any, node: Any) -> Any:
    tag = str(node.tag).replace("tag:yaml.org,2002:", "!!")[:40]
    raise AnswerFileError(f"line {_line(node)}: the YAML tag {tag} is not allowed in an answers "
                          "file; write text in quotes, numbers in digits, lists in [...] and "
                          "pairs as \"a b\"")


_AnswerLoader.yaml_implicit_resolvers = {}
_AnswerLoader.add_implicit_resolver("tag:yaml.org,2002:int", _INTEGER, list("-+0123456789"))
_AnswerLoader.yaml_constructors = dict(_AnswerLoader.yaml_constructors)
_AnswerLoader.yaml_constructors["tag:yaml.org,2002:int"] = _integer
_AnswerLoader.yaml_constructors["tag:yaml.org,2002:str"] = _text
for _tag in list(_AnswerLoader.yaml_constructors):
    if _tag is not None and _tag not in _PLAIN_TAGS:
        _AnswerLoader.yaml_constructors[_tag] = _refused
_AnswerLoader.yaml_constructors[None] = _refused  # any tag of the student's own


def read_answer_file(path: Path, max_bytes: int) -> dict[str, Any]:
    """The mapping in the answers file at ``path``, or :class:`AnswerFileError`."""
    size = path.stat().st_size
    if size > max_bytes:
        raise AnswerFileError(f"{path.name} is {size} bytes; an answers file may have at most {max_bytes}")
    with path.open("rb") as handle:
        raw = handle.read(max_bytes + 1)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise AnswerFileError(f"{path.name} is not UTF-8 text (byte {error.start})") from None
    try:
        data = yaml.load(text, Loader=_AnswerLoader)  # noqa: S506 - a restricted SafeLoader
    except AnswerFileError:
        raise
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        if "'\\t'" in problem:
            problem += ("; YAML indents with spaces only: replace the tab at the start of that "
                        "line with spaces (two per level, as in the file grade stub writes)")
        elif "unhashable key" in problem:
            problem += ("; a key must be text, not a list: write a pair as a key in quotes, "
                        "\"a b\": count")
        raise AnswerFileError(f"{path.name} is not valid YAML: {where}{problem}") from None
    except RecursionError:
        raise AnswerFileError(f"{path.name} nests too deeply") from None
    if not isinstance(data, dict):
        raise AnswerFileError(f"{path.name} must be a YAML mapping of question: answer, as rendered "
                              "by grade stub")
    if _depth(data) > MAX_DEPTH:
        raise AnswerFileError(f"{path.name} nests deeper than {MAX_DEPTH} levels")
    return data


_CORPUS_HEADING = re.compile(r"^#\s*Your corpus\b")
_CORPUS_LINE = re.compile(r"^#\s+(\S+):\s*([0-9]+)\s*$")


def commented_corpus(path: Path, max_bytes: int) -> dict[str, int] | None:
    """The corpus listed in the comments ``grade stub`` writes at the top of an answers file
    ("# Your corpus ...", then "#   word: count" lines), or None when there is no such list."""
    with path.open("rb") as handle:
        text = handle.read(max_bytes).decode("utf-8", errors="replace")
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if _CORPUS_HEADING.match(line)), None)
    if start is None:
        return None
    corpus: dict[str, int] = {}
    for line in lines[start + 1:]:
        found = _CORPUS_LINE.match(line)
        if not found:
            break
        corpus[found.group(1)] = int(found.group(2))
    return corpus or None


def _depth(value: Any, level: int = 1) -> int:
    if level > MAX_DEPTH:
        return level
    if isinstance(value, dict):
        return max((_depth(item, level + 1) for item in value.values()), default=level)
    if isinstance(value, list):
        return max((_depth(item, level + 1) for item in value), default=level)
    return level
