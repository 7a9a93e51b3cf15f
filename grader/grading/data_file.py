"""The second built-in submission kind: a data file (YAML answers), read safely, no code run.

Students of some exercises hand in a YAML file of answers rather than code. It is read in the
trusted process with limits: at most the exercise's byte limit, UTF-8, no anchors or aliases
(no entity expansion), a bounded nesting depth, and only strings, integers, lists and
mappings. Every plain scalar but an integer stays a string: ``no``, ``on``, ``null`` or ``1.5``
are tokens like any other, where a stock YAML loader would turn them into booleans, None or
floats. Integers are decimal whatever their leading zeros (``08`` is 8) and at most
``MAX_DIGITS`` long; YAML's other types (``!!binary``, ``!!set``, ``!!timestamp``, a tag of the
writer's own) and lone surrogates are refused with the line.

Each student's file is graded on that student's own variant: when the platform (or
``grade batch``) says who handed the file in, that id decides, whatever the file's own
``student:`` line says, and a mismatch is reported, so a classmate's file does not score under
another name. A door that names no one it can use (a group submission, an id that is no
student id, such as a folder named "Jane Doe") gets no variant credit and the reason: anyone
can write any id on the ``student:`` line, so that line decides only where there is no door at
all (``grade submit`` run by the student for feedback, with no ``--student``).

A family whose students hand in such a file makes one :class:`DataFile` with its ``sheet``
function: from the file read and the student it identifies, what its own check kind grades
(raising :class:`NotGradable` when the file cannot be graded, with the reason).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from functools import lru_cache
from typing import Any, Optional

from grader.grading.secrets import SeedSecretError
from grader.grading.student_ids import STUDENT_PATTERN, VariantError, course_secret
from grader.grading.submissions import GradingSetupError
from grader.spec.hooks import NoSubmitter, Opened, Submitter
from grader.spec.models import Exercise

MAX_DEPTH = 6
_INTEGER = re.compile(r"^[-+]?[0-9]+$")


class DataFileError(ValueError):
    """The data file cannot be read; the message says why."""


class NotGradable(ValueError):
    """The file was read but cannot be graded (made for another student, say); the message
    says why and what to do."""


@dataclass(frozen=True)
class HandedFile:
    """A data file as read: its name, text and data, the student it is graded as (its
    submitter's id as the door names them, else, with no door, its own ``student:`` line), and
    the notices about that (a file handed in by another student than its line says)."""

    name: str
    text: str
    data: dict[str, Any]
    student: Any
    secret: str
    notices: list[str] = field(default_factory=list)


class DataFile:
    """A YAML data file (``student_file`` ends in ``.yaml`` or ``.yml``); ``sheet(exercise,
    handed)`` makes what the family's check kind grades; ``draws`` names what the student id
    draws, in messages ("corpus"); ``max_bytes(exercise)`` is the file's size limit."""

    suffixes = (".yaml", ".yml")
    noun = "a YAML answers file"

    def __init__(self, sheet: Callable[[Any, HandedFile], Any], *, draws: str,
                 max_bytes: Callable[[Any], int]) -> None:
        self.sheet = sheet
        self.draws = draws
        self.max_bytes = max_bytes

    def file_name_problem(self, name: str) -> Optional[str]:
        stem = next((name[: -len(s)] for s in self.suffixes if name.endswith(s)), None)
        if stem is None or "/" in name or "\\" in name or not stem.isidentifier():
            return f"{name!r} must be a plain YAML file name such as answers.yaml"
        return None

    def open(self, stack: contextlib.ExitStack, path: Path, exercise: Exercise, *,
             seed_secret: Optional[str], strict_sandbox: bool, helper: bool,
             submitter: Submitter = None, content: Optional[bytes] = None) -> Opened:
        limit = self.max_bytes(exercise)
        try:
            raw = content if content is not None else read_limited(path, limit)
            data = parse_data_file(path.name, raw, limit)
            student, notices = handed_in_by(path.name, data.get("student"), submitter, self.draws)
            handed = HandedFile(path.name, raw.decode("utf-8"), data, student,
                                course_secret(seed_secret), notices)
            calls = self.sheet(exercise, handed)
        except SeedSecretError as error:
            raise GradingSetupError(str(error)) from None
        except (DataFileError, VariantError) as error:
            return not_graded(f"{path.name} could not be graded: {error}")
        except NotGradable as error:
            return not_graded(str(error))
        return Opened(calls=calls, notices=notices)


def yaml_quoted(text: str) -> str:
    """``text`` as a double-quoted YAML scalar (JSON strings are valid YAML), for the files a
    family renders for its students."""
    return json.dumps(text, ensure_ascii=False)


def read_limited(path: Path, max_bytes: int) -> bytes:
    """The file's bytes, at most one more than ``max_bytes`` (so a longer file is known)."""
    with path.open("rb") as handle:
        return handle.read(max_bytes + 1)


def parse_data_file(name: str, raw: bytes, max_bytes: int) -> dict[str, Any]:
    """The mapping in the data file ``name`` whose bytes are ``raw``, or :class:`DataFileError`."""
    if len(raw) > max_bytes:
        raise DataFileError(f"{name} is over {max_bytes} bytes; an answers file may have at "
                            f"most {max_bytes}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise DataFileError(f"{name} is not UTF-8 text (byte {error.start})") from None
    import yaml  # only where a data file is read: code gradings never need it

    try:
        data = yaml.load(text, Loader=_restricted_loader())  # noqa: S506 - a restricted SafeLoader
    except DataFileError:
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
        raise DataFileError(f"{name} is not valid YAML: {where}{problem}") from None
    except RecursionError:
        raise DataFileError(f"{name} nests too deeply") from None
    if not isinstance(data, dict):
        raise DataFileError(f"{name} must be a YAML mapping of question: answer, as rendered "
                              "by grade stub")
    if _depth(data) > MAX_DEPTH:
        raise DataFileError(f"{name} nests deeper than {MAX_DEPTH} levels")
    return data


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
        raise DataFileError(f"line {_line(node)}: {str(node.value)[:40]!r} is not a whole "
                              "number; write counts and steps in digits, e.g. 5")
    if len(text.lstrip("+-")) > MAX_DIGITS:
        raise DataFileError(f"line {_line(node)}: a number of {len(text)} digits is far larger "
                              "than any count here; write the count you found")
    return int(text, 10)


def _text(loader: Any, node: Any) -> str:
    value = loader.construct_scalar(node)
    if any("\ud800" <= char <= "\udfff" for char in value):
        raise DataFileError(f"line {_line(node)}: the text holds a lone surrogate (an escape "
                              "such as \\ud800), which is no character; write the symbols as "
                              "they are")
    return value


def _refused(loader: Any, node: Any) -> Any:
    tag = str(node.tag).replace("tag:yaml.org,2002:", "!!")[:40]
    raise DataFileError(f"line {_line(node)}: the YAML tag {tag} is not allowed in an answers "
                          "file; write text in quotes, numbers in digits, lists in [...] and "
                          "pairs as \"a b\"")


@lru_cache(maxsize=1)
def _restricted_loader() -> type:
    """A safe loader with integers as the only implicit type, and no aliases."""
    import yaml

    class _AnswerLoader(yaml.SafeLoader):

        def compose_node(self, parent: Any, index: Any) -> Any:  # type: ignore[override]
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                raise DataFileError(f"line {event.start_mark.line + 1}: YAML aliases (*name) are not "
                                      "allowed in an answers file; write the value out")
            event = self.peek_event()
            if getattr(event, "anchor", None):
                raise DataFileError(f"line {event.start_mark.line + 1}: YAML anchors (&name) are not "
                                      "allowed in an answers file")
            return super().compose_node(parent, index)

    _AnswerLoader.yaml_implicit_resolvers = {}
    _AnswerLoader.add_implicit_resolver("tag:yaml.org,2002:int", _INTEGER, list("-+0123456789"))
    _AnswerLoader.yaml_constructors = dict(_AnswerLoader.yaml_constructors)
    _AnswerLoader.yaml_constructors["tag:yaml.org,2002:int"] = _integer
    _AnswerLoader.yaml_constructors["tag:yaml.org,2002:str"] = _text
    for _tag in list(_AnswerLoader.yaml_constructors):
        if _tag is not None and _tag not in _PLAIN_TAGS:
            _AnswerLoader.yaml_constructors[_tag] = _refused
    _AnswerLoader.yaml_constructors[None] = _refused  # any tag of the student's own
    return _AnswerLoader


def _depth(value: Any, level: int = 1) -> int:
    if level > MAX_DEPTH:
        return level
    if isinstance(value, dict):
        return max((_depth(item, level + 1) for item in value.values()), default=level)
    if isinstance(value, list):
        return max((_depth(item, level + 1) for item in value), default=level)
    return level


def not_graded(reason: str) -> Opened:
    """A file that cannot be graded: the reason once, each milestone pointing at it."""
    return Opened(not_gradable=[reason],
                  blocked=lambda milestone: "not graded: see the problem with the submission above")


def handed_in_by(file_name: str, student: Any, submitter: Submitter,
                 what: str) -> tuple[Any, list[str]]:
    """Whose variant a file is graded on, and the notice when that is not its own line's.

    Who handed the file in (the platform's or the batch's ``submitter``) decides, never the
    file's own ``student:`` line, which decides only where there is no door (``submitter`` is
    None); ``what`` names what the id draws ("corpus", "sheet"). A door that names no one it
    can use raises :class:`NotGradable` with the reason: the file earns no variant credit."""
    if submitter is None:
        return student, []
    if isinstance(submitter, NoSubmitter):
        raise NotGradable(_unidentified(file_name, submitter.reason, what))
    problem = _invalid(submitter)
    if problem is not None:
        raise NotGradable(_unidentified(
            file_name, f"who handed it in is named {str(submitter)[:70]!r}, which is not a "
                       f"student id ({problem})", what))
    if student == submitter:
        return student, []
    said = (f"says student: {str(student)[:70]!r}" if student is not None
            else "has no student: line")
    return submitter, [
        f"{file_name} {said}, but it was handed in by {submitter!r}: it is graded on "
        f"{submitter!r}'s {what}. Put your own id on the student: line of the file your "
        "course made for you."]


def _unidentified(file_name: str, reason: str, what: str) -> str:
    """The one sentence a file graded without a usable submitter gets."""
    return (f"{file_name} earns no credit: {reason}, so the grader cannot tell whose {what} "
            f"it is graded on (it never takes the file's own student: line for that, as anyone "
            f"can write any id there): hand it in alone, under your own account, or ask your "
            f"course staff to grade it under your id.")


def _invalid(submitter: str) -> Optional[str]:
    """Why the door's id cannot pick a variant (a folder named "Jane Doe" cannot), or None."""
    if not isinstance(submitter, str) or not STUDENT_PATTERN.match(submitter):
        return "an id is 1-64 letters, digits or ._@+- starting with a letter or digit"
    return None
