"""The methods ``@dataclass`` writes for the grader's records, compiled once and kept on disk.

A ``grade`` command's process defines about ninety dataclasses while it loads the grader, and
for each one the standard library writes ``__init__``, ``__repr__``, ``__eq__`` (and for a
frozen one ``__hash__``, ``__setattr__``, ``__delattr__``) as Python source and compiles it:
some 460 small compilations, a quarter of the CPU a grading spends in the grader's own process.
:func:`keep` makes ``dataclasses`` run the code objects compiled from the very same source text
by an earlier process instead, kept in the grader's cache folder
(:mod:`grader.spec.disk_cache`: a file only this account can have written, named by the
fingerprint of the grader's code and of Python's version). A text is looked up whole, so a
class gets exactly the methods the standard library would have compiled for it; a text not
kept yet is compiled as usual and added to the file when the process ends.

Only a process run as the ``grade`` command keeps methods (a test runner or a notebook calling
the command keeps its own ``dataclasses`` untouched); with the cache folder off or not the
grader's own, nothing changes.
"""

from __future__ import annotations

import atexit
import dataclasses
import marshal
import os
from pathlib import Path
from types import CodeType
from typing import Any, Optional

from grader.spec import disk_cache

SOURCE_NAME = "<string>"
"""The file name ``exec`` gives code compiled from a string, kept so tracebacks read the same."""


class KeptMethods:
    """The code objects compiled from method sources, and which of them are new to the file."""

    def __init__(self, path: Optional[Path]) -> None:
        self.path = path
        kept = disk_cache.load(path)
        try:
            codes = marshal.loads(kept) if isinstance(kept, bytes) else {}
        except (EOFError, ValueError, TypeError):
            codes = {}
        self.codes: dict[str, Any] = codes if isinstance(codes, dict) else {}
        self.added = 0
        self.owner = os.getpid()

    def exec(self, source: Any, globals: Any = None, locals: Any = None) -> None:  # noqa: A002
        """``exec(source, globals, locals)``, with the code compiled from ``source`` before."""
        if type(source) is not str:
            exec(source, globals, locals)  # noqa: S102 - as dataclasses would
            return
        code = self.codes.get(source)
        if type(code) is not CodeType:  # not kept yet (or not code: compiled again)
            code = compile(source, SOURCE_NAME, "exec")
            self.codes[source] = code
            self.added += 1
        exec(code, globals, locals)  # noqa: S102 - the code of dataclasses' own source text

    def store(self) -> None:
        """Write the file again when this process compiled methods it did not hold (a forked
        process leaves that to the one that installed it; a folder this account cannot write
        is left alone)."""
        if not self.added or os.getpid() != self.owner or self.path is None:
            return
        if self.path.parent.is_dir() and not os.access(self.path.parent, os.W_OK):
            return  # another account's folder (this one may read it): no file to write
        disk_cache.store(self.path, marshal.dumps(self.codes))


def file_for() -> Optional[Path]:
    """The file keeping the compiled methods of this grader and Python, or None (cache off)."""
    directory = disk_cache.cache_directory()
    if directory is None:
        return None
    return directory / f"methods-{disk_cache.code_fingerprint()[:32]}.pickle"


_KEPT: list[KeptMethods] = []
"""The methods this process keeps, once :func:`keep` was called."""


def keep() -> None:
    """From now on, make ``dataclasses`` run kept code for the methods it writes (once per
    process; nothing when the cache folder is off)."""
    if _KEPT:
        return
    path = file_for()
    if path is None:
        return
    kept = KeptMethods(path)
    _KEPT.append(kept)
    dataclasses.exec = kept.exec  # type: ignore[attr-defined]  # shadows the builtin there only
    atexit.register(kept.store)
