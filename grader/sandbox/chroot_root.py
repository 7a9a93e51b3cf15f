"""A private root without a mount namespace: a tree of the interpreter's own files, built once
per machine and interpreter, that a root grader ``chroot``s each worker into.

A default Docker container keeps ``CAP_SYS_CHROOT`` but has no ``CAP_SYS_ADMIN``, so there is
no mount namespace (the ``mount-isolation`` layer) to hide the host's files. Landlock already
refuses to *open* them, but it does not stop ``stat``, listing ``/proc`` or connecting to a
UNIX socket by its path. In this tree none of that is there to reach: it holds the
interpreter, its standard library (no installed packages, no test suite), the shared libraries
they load (found with ``ldd``), the four harmless devices, a sticky ``/dev/shm``, a read-only
``/tmp`` (a call's ``TMPDIR`` is its own directory) and ``/sandboxes``, where each open sandbox gets an unlistable directory of its own for its
worker, submission and scratch directory. There is no ``/proc``.

Files are hard-linked from the system where the file system allows it (no copy, no space),
copied otherwise; root owns all of it, and a sandbox can write only its own scratch
directory and, as its own uid (:mod:`grader.sandbox.uids`), files in ``/dev/shm``, the
semaphores of ``multiprocessing``. The tree is built beside its final place and renamed into
it, so a grader killed half-way leaves nothing another would use.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterable

from grader.sandbox.layers import SHARED_MEMORY
from grader.sandbox.leftovers import TEMP_PREFIX, remove_leftovers_in
from grader.sandbox.tree_removal import remove_tree

TREE_VERSION = "1"
CACHE_DIRECTORIES = ("/var/cache/bpe-autograder", "/var/tmp/bpe-autograder")
SANDBOXES = "/sandboxes"
# Parts of the standard library no submission needs; the test suite alone is half of it.
SKIPPED = frozenset({"site-packages", "dist-packages", "test", "idlelib", "turtledemo",
                     "tkinter", "ensurepip", "lib2to3", "pydoc_data", "__phello__"})
DEVICES = {"null": 3, "zero": 5, "random": 8, "urandom": 9}  # character devices, major 1
ASK_INTERPRETER = (
    "import json, sys, sysconfig; "
    "print(json.dumps({'stdlib': sysconfig.get_paths()['stdlib'], "
    "'platstdlib': sysconfig.get_paths()['platstdlib'], "
    "'dynload': sysconfig.get_config_var('DESTSHARED') or '', 'version': sys.version}))"
)
LDD_LINE = re.compile(r"(?:=>\s*)?(/\S+)\s+\(0x[0-9a-f]+\)")


class TreeUnavailable(OSError):
    """The tree cannot be built here (no ``ldd``, no root-only place to keep it...)."""


def tree_for(interpreter: str, natives: tuple[str, ...] = ()) -> str:
    """The tree for ``interpreter``, built now if this machine has none yet, holding also the
    shared libraries that ``natives`` (an exercise's allowed compiled modules) load."""
    tree = _tree_for(os.path.realpath(interpreter))
    if natives:
        _add_libraries(tree, tuple(sorted(natives)))
    return tree


@functools.lru_cache(maxsize=None)
def _add_libraries(tree: str, natives: tuple[str, ...]) -> None:
    for path in _shared_libraries(list(natives)):
        _place(tree, path)  # each file linked into place at once: safe beside running sandboxes


def open_directory(interpreter: str, imports: Iterable[tuple[str, str]]) -> tuple[str, str] | None:
    """(the tree, a fresh directory of one sandbox's in it), or None where no tree can be had.
    ``imports`` are the (host file, relative path) pairs of the exercise's allowed modules."""
    natives = tuple(host for host, _ in imports if ".so" in os.path.basename(host))
    try:
        tree = tree_for(interpreter, natives)
        return tree, sandbox_directory(tree)
    except (OSError, subprocess.SubprocessError):  # TreeUnavailable, an ldd that hangs...
        return None


def sandbox_directory(tree: str) -> str:
    """A fresh directory for one sandbox inside ``tree`` (its host path)."""
    place = tree + SANDBOXES
    remove_leftovers_once_in(place)
    return tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-", dir=place)


def inside(tree: str, host_path: str) -> str:
    """``host_path`` (under ``tree``) as the worker sees it once in the tree."""
    return host_path[len(tree):] or "/"


def remove_shared_memory_of(tree: str, uid: int) -> None:
    """Remove what ``uid`` left in the tree's ``/dev/shm`` (the call's semaphores, if killed)."""
    directory = tree + SHARED_MEMORY
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        path = os.path.join(directory, name)
        try:
            if os.lstat(path).st_uid == uid:
                remove_tree(path)
        except OSError:
            continue


@functools.lru_cache(maxsize=None)
def remove_leftovers_once_in(place: str) -> None:
    remove_leftovers_in(place)


@functools.lru_cache(maxsize=None)
def _tree_for(interpreter: str) -> str:
    facts = _interpreter_facts(interpreter)
    base = _cache_directory()
    info = os.stat(interpreter)
    key = hashlib.sha256(json.dumps(
        [TREE_VERSION, interpreter, info.st_size, info.st_mtime_ns, facts]).encode()).hexdigest()
    tree = os.path.join(base, f"root-{key[:16]}")
    if _trusted(tree):
        return tree
    building = tempfile.mkdtemp(prefix=f"building-{os.getpid()}-", dir=base)
    try:
        _build(building, interpreter, facts)
        os.chmod(building, 0o755)
        try:
            os.rename(building, tree)
        except OSError:  # another grader finished first: use its tree
            remove_tree(building)
    except BaseException:
        remove_tree(building)
        raise
    if not _trusted(tree):
        raise TreeUnavailable(f"the sandbox root {tree} is not root-owned and read-only")
    return tree


def _interpreter_facts(interpreter: str) -> dict:
    try:
        done = subprocess.run([interpreter, "-I", "-S", "-c", ASK_INTERPRETER],
                              capture_output=True, text=True, timeout=60)
        facts = json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError) as error:
        raise TreeUnavailable(f"cannot ask {interpreter} for its library: {error}") from None
    if not isinstance(facts, dict) or not os.path.isdir(str(facts.get("stdlib"))):
        raise TreeUnavailable(f"{interpreter} named no standard library")
    return facts


def _cache_directory() -> str:
    for directory in CACHE_DIRECTORIES:
        try:
            os.makedirs(directory, mode=0o755, exist_ok=True)
        except OSError:
            continue
        if _trusted(directory):
            return directory
    raise TreeUnavailable("no root-owned directory to keep the sandbox root in "
                          f"({', '.join(CACHE_DIRECTORIES)})")


def _trusted(path: str) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (stat.S_ISDIR(info.st_mode) and info.st_uid == 0
            and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def _build(tree: str, interpreter: str, facts: dict) -> None:
    # The top-level links of a merged /usr first, relative, so that building never follows
    # one out of the tree.
    for name in ("bin", "lib", "lib32", "lib64", "libx32", "sbin"):
        host = "/" + name
        if os.path.islink(host) and os.path.isdir(host):
            real = os.path.relpath(os.path.realpath(host), "/")
            os.makedirs(os.path.join(tree, real), mode=0o755, exist_ok=True)
            os.symlink(real, tree + host)
    libraries = {facts["stdlib"], facts["platstdlib"]}
    native = [interpreter]
    for library in sorted(libraries):
        for directory, names, files in os.walk(library):
            if directory == library:
                names[:] = [name for name in names if name not in SKIPPED]
            names[:] = [name for name in names if name not in ("site-packages", "dist-packages")]
            for name in files:
                path = os.path.join(directory, name)
                _place(tree, path)
                if name.endswith(".so"):
                    native.append(path)
    for path in _shared_libraries(native):
        _place(tree, path)
    for path in ("/usr/bin/python3", "/etc/ld.so.cache"):
        if os.path.exists(path):
            _place(tree, path)
    _place(tree, interpreter)
    for directory, _, _ in os.walk(tree):  # whatever the umask: every uid may look things up
        os.chmod(directory, 0o755)
    _make_devices(tree)
    for path, mode in ((SHARED_MEMORY, 0o1777), ("/tmp", 0o755), (SANDBOXES, 0o711)):
        os.makedirs(tree + path, exist_ok=True)
        os.chmod(tree + path, mode)


def _shared_libraries(binaries: list[str]) -> set[str]:
    """Every shared library the binaries load, by ``ldd`` (the loader itself included)."""
    ldd = shutil.which("ldd")
    if ldd is None:
        raise TreeUnavailable("ldd is not installed: cannot tell which libraries Python needs")
    found: set[str] = set()
    for start in range(0, len(binaries), 64):
        done = subprocess.run([ldd, *binaries[start:start + 64]], capture_output=True,
                              text=True, timeout=120)
        for line in done.stdout.splitlines():
            match = LDD_LINE.search(line)
            if match and os.path.isfile(match.group(1)):
                found.add(match.group(1))
    if not found:
        raise TreeUnavailable("ldd named no library for the interpreter")
    return found


def _place(tree: str, path: str, depth: int = 0) -> None:
    """Show host ``path`` at the same place in ``tree``: symbolic links as links (and what they
    point to), files hard-linked or copied, directories on the way made."""
    target = tree + path
    if os.path.lexists(target) or depth > 16:
        return
    if not os.path.realpath(os.path.dirname(target)).startswith(os.path.realpath(tree) + "/"):
        raise TreeUnavailable(f"{path} would be placed outside the sandbox root")
    os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
    try:
        _link(tree, path, target, depth)
    except FileExistsError:  # another grader placed it meanwhile
        return


def _link(tree: str, path: str, target: str, depth: int) -> None:
    if os.path.islink(path):
        link = os.readlink(path)
        os.symlink(link, target)
        _place(tree, os.path.normpath(os.path.join(os.path.dirname(path), link)), depth + 1)
        return
    real = os.path.realpath(path)
    if real != path:  # a directory on the way is a link: place the file where it really is
        _place(tree, real, depth + 1)
        if not os.path.lexists(target):
            os.symlink(real, target)
        return
    try:
        os.link(path, target)
    except FileExistsError:
        raise
    except OSError:  # another file system, or no right to link: a copy, made then renamed
        partial = f"{target}.{os.getpid()}.partial"
        shutil.copy2(path, partial)
        os.chown(partial, 0, 0)
        os.chmod(partial, os.stat(path).st_mode & 0o755)
        os.rename(partial, target)


def _make_devices(tree: str) -> None:
    os.makedirs(tree + "/dev", mode=0o755, exist_ok=True)
    for name, minor in DEVICES.items():
        try:
            os.mknod(f"{tree}/dev/{name}", 0o666 | stat.S_IFCHR, os.makedev(1, minor))
            os.chmod(f"{tree}/dev/{name}", 0o666)
        except OSError:
            continue  # no CAP_MKNOD: the call has no such device, which Python does not need
