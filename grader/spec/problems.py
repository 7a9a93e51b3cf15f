"""What is wrong with a spec: problems located as ``file:line: field: message``, the lines
they are located by, and the error that carries every one of them at once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

Loc = tuple[Union[str, int], ...]


class Document:
    """Plain data from a YAML document plus the line of every mapping key and list item."""

    def __init__(self) -> None:
        self.lines: dict[Loc, int] = {}
        self.duplicates: list[tuple[Loc, int, int]] = []

    def line_of(self, loc: Loc) -> Optional[int]:
        """The line of ``loc`` or of its nearest ancestor that the document has."""
        for end in range(len(loc), -1, -1):
            line = self.lines.get(tuple(loc[:end]))
            if line is not None:
                return line
        return None


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a spec, located as precisely as the YAML allows."""

    file: str
    line: Optional[int]
    field: str
    message: str

    def __str__(self) -> str:
        if not self.file:  # about no file (an exercise that is not found)
            return self.message
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


class SpecError(Exception):
    """A spec could not be loaded; ``problems`` lists everything found, in file order."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        self.exercise: object = None
        """The exercise when it is valid in shape and only its meaning is wrong, else None."""
        super().__init__("\n".join(str(p) for p in problems))


class FamilyUnusable(SpecError):
    """The spec names a family that cannot be used (unknown, failing to import, or with an
    incomplete record): a problem of the course's files, not of the grader."""


class ExerciseNotFound(SpecError):
    """No shipped exercise has the requested id and no such file exists; ``suggestion`` is
    the closest id, when one is near enough to name."""

    def __init__(self, problems: list[Problem], suggestion: Optional[str] = None) -> None:
        super().__init__(problems)
        self.suggestion = suggestion


class SpecUnreadable(SpecError):
    """The file cannot be read, or is not YAML holding a mapping: an input error (exit 2), where
    a readable spec with problems is a verdict (``grade check`` exits 3)."""


def in_file_order(problems: list[Problem]) -> list[Problem]:
    return sorted(problems, key=lambda p: p.line or 0)


def format_loc(loc: Loc) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


# --------------------------------------------------------------------------- pydantic messages


class NewSpecError(ValueError):
    """``grade new`` cannot write the spec as asked; the message says why."""
