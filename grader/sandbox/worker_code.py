"""The worker file a sandbox places: ``worker.py`` as bytecode of the interpreter that runs it.

A worker compiles its script every time it starts (``python -I -S -B worker.py``: a script is
never read from ``__pycache__``), some 1,650 lines, about 11 ms of CPU per start. CPython runs
a script file whose first bytes are its own magic number as compiled code, whatever the file is
called, so the sandbox places, under the same name, the bytes of a ``.pyc`` that interpreter
made from ``worker.py`` (:func:`place`). They are made once, by running that interpreter (its
magic number is its own), and kept in the grader's cache folder (:mod:`grader.spec.disk_cache`,
a folder no other account can write) in a file named by a hash of the source, the interpreter's
path, size and modification time and the file name the code gives itself (the worker's path
inside a private root, as a traceback shows it); a process keeps what it read. Without a cache
folder it can write, or when compiling fails, the source itself is placed.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path
from typing import Optional

from grader.spec import disk_cache

COMPILE_SECONDS = 30.0
FOLDER = "workers"
"""The subfolder of the cache folder holding compiled workers."""
COMPILE = (
    "import importlib.util, marshal, sys\n"
    "source = sys.stdin.buffer.read()\n"
    "code = compile(source, sys.argv[1], 'exec', dont_inherit=True)\n"
    "sys.stdout.buffer.write(importlib.util.MAGIC_NUMBER + bytes(12) + marshal.dumps(code))\n"
)
"""Run by the worker's interpreter: a .pyc file's bytes (magic number, flags, and the source's
time and size, which running a .pyc as a script does not read, left zero) of stdin's source,
its file name the first argument."""

_KEPT: dict[str, Optional[bytes]] = {}


def place(source: Path, interpreter: str, destination: str, filename: str) -> None:
    """Write the worker at ``destination``: ``source`` compiled by ``interpreter`` when that
    is at hand (its code naming ``filename`` as its file, as a traceback shows it), else
    ``source`` itself."""
    text = source.read_bytes()
    compiled = compiled_worker(text, interpreter, filename)
    with open(destination, "wb") as placed:
        placed.write(compiled if compiled is not None else text)


def compiled_worker(source: bytes, interpreter: str, filename: str) -> Optional[bytes]:
    """``source`` compiled by ``interpreter`` as ``filename``, as a .pyc file's bytes, or None."""
    path = _kept_file(source, interpreter, filename)
    if path is None:
        return None
    key = str(path)
    if key not in _KEPT:
        kept = disk_cache.load(path)
        if not isinstance(kept, bytes):
            # Compiled only where it can be kept: a process placing one worker would spend
            # more starting the compiler than the worker saves.
            kept = _compile(source, interpreter, filename) if _can_keep(path) else None
            if kept is not None:
                disk_cache.store(path, kept)
        _KEPT[key] = kept
    return _KEPT[key]


def _can_keep(path: Path) -> bool:
    try:
        for folder in (path.parent.parent, path.parent):
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(folder, 0o700)
    except OSError:
        return False
    return os.access(path.parent, os.W_OK)


def _kept_file(source: bytes, interpreter: str, filename: str) -> Optional[Path]:
    root = disk_cache.cache_directory()
    if root is None:
        return None
    try:
        status = os.stat(interpreter)
    except OSError:
        return None
    digest = hashlib.sha256(source)
    identity = f"{os.path.realpath(interpreter)} {status.st_size} {status.st_mtime_ns} {filename}"
    digest.update(b"\0" + identity.encode())
    return root / FOLDER / f"worker-{digest.hexdigest()[:32]}.pickle"


def _compile(source: bytes, interpreter: str, filename: str) -> Optional[bytes]:
    try:
        done = subprocess.run([interpreter, "-I", "-S", "-B", "-c", COMPILE, filename],
                              input=source,
                              capture_output=True, timeout=COMPILE_SECONDS, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0 or len(done.stdout) <= 16:
        return None
    return done.stdout
