"""What a grading depends on, as hashes: the submission, the exercise spec, the grader and the
grading settings. A gradebook row is reused only while all four are unchanged.

The grader's fingerprint is its package version plus a digest of the code that decides a
grade (``grader/`` without the report, bundle, batch and command layers, and ``reference/``),
so an edited checkout re-grades even without a new version; reports are rendered afresh from
the gradebook, so changing how they look re-grades nothing.
Grading settings (keyword arguments of ``grade_submission``, a course secret among them) are
stored only as a salted digest, never in clear.
"""

from __future__ import annotations

import functools
import hashlib
import json
from importlib import metadata
from pathlib import Path
from typing import Any, Mapping

from grader.spec import Exercise

_GRADER_DIR = Path(__file__).resolve().parent.parent
_REFERENCE_DIR = _GRADER_DIR.parent / "reference"
NOT_GRADING = {"batch", "bundles", "commands", "report", "__pycache__"}
SETTINGS_SALT = b"bpe-autograder grading settings\0"


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def spec_hash(exercise: Exercise) -> str:
    """A digest of everything the exercise says (its file's formatting and comments aside)."""
    canonical = json.dumps(exercise.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)
    return content_hash(canonical.encode("utf-8"))


def settings_hash(settings: Mapping[str, Any]) -> str:
    """A salted digest of the grading settings; equal settings give equal digests."""
    canonical = json.dumps(dict(settings), sort_keys=True, default=repr, ensure_ascii=False)
    return content_hash(SETTINGS_SALT + canonical.encode("utf-8"))


@functools.lru_cache(maxsize=1)
def grader_version() -> str:
    """``VERSION+src.DIGEST``: the installed version and a digest of the grading code."""
    try:
        version = metadata.version("bpe-autograder")
    except metadata.PackageNotFoundError:
        version = "0+unknown"
    digest = hashlib.sha256()
    roots = [_GRADER_DIR] + ([_REFERENCE_DIR] if _REFERENCE_DIR.is_dir() else [])
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            relative = path.relative_to(root)
            if root == _GRADER_DIR and NOT_GRADING.intersection(relative.parts[:1]):
                continue
            digest.update(relative.as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return f"{version}+src.{digest.hexdigest()[:12]}"
