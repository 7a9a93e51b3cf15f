"""The fingerprint of the grader's code (``grader.spec.disk_cache.code_fingerprint``) that names
every kept file: any edit, new or removed source file is another fingerprint."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from pathlib import Path

import pytest

from grader.spec import disk_cache


SELF = ("grader", "spec", "disk_cache.py")
DEEP = ("grader", "a", "b", "deep.py")
NEW = ("grader", "a", "b", "new.py")
NOTES = ("grader", "a", "notes.txt")
FAST = ("reference", "fast.py")


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A checkout of a few source files, ``disk_cache`` placed in it."""
    for parts in (SELF, ("grader", "__init__.py"), DEEP, NOTES, ("grader", "a-b.py"), FAST):
        (tmp_path.joinpath(*parts)).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path.joinpath(*parts)).write_text(f"# {parts}\n")
    monkeypatch.setattr(disk_cache, "__file__", str(tmp_path.joinpath(*SELF)))
    disk_cache.code_fingerprint.cache_clear()
    yield tmp_path
    disk_cache.code_fingerprint.cache_clear()


def fingerprint() -> str:
    disk_cache.code_fingerprint.cache_clear()
    return disk_cache.code_fingerprint()


def listed_one_by_one(here: Path) -> str:
    """The fingerprint as its definition says: every source file by its path, in path order."""
    digest = hashlib.sha256(f"{disk_cache.FORMAT} {sys.version}".encode())
    sources = [(here, path) for package in ("grader", "reference")
               for path in sorted((here / package).rglob("*.py"))]
    generator = importlib.util.find_spec("hypothesis")
    if generator is None or not generator.submodule_search_locations:
        digest.update(b"no hypothesis")
    else:
        folder = Path(next(iter(generator.submodule_search_locations)))
        sources += [(folder.parent, folder / name) for name in ("__init__.py", "version.py")]
    for root, path in sources:
        status = path.stat()
        digest.update(f"{path.relative_to(root)} {status.st_size} {status.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def test_the_fingerprint_covers_every_source_file_by_path_size_and_time(checkout):
    first = fingerprint()
    assert first == listed_one_by_one(checkout)
    checkout.joinpath(*NOTES).write_text("not code: no change")
    assert fingerprint() == first
    checkout.joinpath(*DEEP).write_text("# edited, longer\n")
    edited = fingerprint()
    assert edited != first and edited == listed_one_by_one(checkout)
    os.utime(checkout.joinpath(*FAST), ns=(1, 1))
    touched = fingerprint()
    assert touched != edited
    checkout.joinpath(*NEW).write_text("")
    added = fingerprint()
    assert added != touched and added == listed_one_by_one(checkout)
    checkout.joinpath(*NEW).unlink()
    assert fingerprint() == touched


def test_the_shipped_grader_has_its_fingerprint_as_defined():
    assert fingerprint() == listed_one_by_one(Path(disk_cache.__file__).resolve().parents[2])
