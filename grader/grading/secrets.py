"""The seed secret: what makes generated inputs and the efficiency corpus unpredictable.

Generated inputs and the timed corpus are reproducible (the same secret gives the same
inputs, so the same submission gets the same report), but derived from a secret students do
not have, so a submission cannot carry a table of every input it will be asked.

Where the secret comes from, first found wins:

1. the ``--seed-secret`` option (``grade_submission(..., seed_secret=...)``);
2. the ``GRADE_SEED_SECRET`` environment variable (the secret itself);
3. the file named by ``GRADE_SEED_SECRET_FILE`` (an LMS bundle writes a random secret there
   at build time, readable only by root on the grading host); the file must exist;
4. the per-user secret ``$XDG_CONFIG_HOME/bpe-autograder/secret`` (default
   ``~/.config/bpe-autograder/secret``), created with mode 0600 on first use.

Each use gets its own seed, derived from the secret with HMAC-SHA256, so knowing one (say,
the corpus a trainer was handed) says nothing about another.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets as _random
from pathlib import Path
from typing import Optional

SECRET_ENV = "GRADE_SEED_SECRET"
SECRET_FILE_ENV = "GRADE_SEED_SECRET_FILE"
CONFIG_DIR_NAME = "bpe-autograder"
SECRET_FILE_NAME = "secret"
SECRET_BYTES = 32
MAX_SECRET_CHARS = 4096


class SeedSecretError(Exception):
    """The seed secret named by the settings cannot be read; the message says how to fix it."""


def new_secret() -> str:
    """A fresh random secret, as text."""
    return _random.token_hex(SECRET_BYTES)


def user_secret_path() -> Path:
    """Where a local ``grade submit`` keeps its per-user secret."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / CONFIG_DIR_NAME / SECRET_FILE_NAME


def write_secret_file(path: Path, secret: Optional[str] = None) -> str:
    """Write ``secret`` (default: a new one) to ``path``, readable by its owner only."""
    secret = secret or new_secret()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(secret + "\n")
    os.chmod(path, 0o600)
    return secret


def _read_secret(path: Path, origin: str) -> str:
    try:
        text = path.read_text(encoding="utf-8").strip()
    except OSError as error:
        raise SeedSecretError(
            f"cannot read the seed secret file {path} ({origin}): {error.strerror}; create it "
            f"with a random line of text or unset {SECRET_FILE_ENV}"
        ) from None
    except UnicodeDecodeError:
        raise SeedSecretError(f"the seed secret file {path} ({origin}) is not UTF-8 text") from None
    if not text:
        raise SeedSecretError(f"the seed secret file {path} ({origin}) is empty; write a random "
                              "line of text into it")
    return text[:MAX_SECRET_CHARS]


def environment_secret() -> Optional[str]:
    """The course's secret from the environment (``GRADE_SEED_SECRET``, or the file
    ``GRADE_SEED_SECRET_FILE`` names, as bundles set it), or None."""
    from_env = os.environ.get(SECRET_ENV)
    if from_env:
        return from_env
    named = os.environ.get(SECRET_FILE_ENV)
    if named:
        return _read_secret(Path(named), SECRET_FILE_ENV)
    return None


def resolve_secret(explicit: Optional[str] = None) -> str:
    """The secret to grade with: ``explicit``, else the environment's, else the user's own."""
    if explicit:
        return explicit
    from_env = environment_secret()
    if from_env:
        return from_env
    path = user_secret_path()
    if path.is_file():
        return _read_secret(path, "the per-user secret")
    try:
        return write_secret_file(path)
    except OSError as error:
        raise SeedSecretError(
            f"cannot create the per-user seed secret {path}: {error.strerror}; set "
            f"{SECRET_ENV} or pass --seed-secret"
        ) from None


def derive_seed(secret: str, purpose: str, *parts: object) -> int:
    """A 64-bit seed for ``purpose`` (and ``parts``), derived from ``secret``."""
    message = "\x00".join([purpose, *(str(part) for part in parts)]).encode("utf-8", "surrogatepass")
    digest = hmac.new(secret.encode("utf-8", "surrogatepass"), message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


def inputs_seed(secret: str, exercise_id: str) -> int:
    """The seed of the generated inputs of one exercise."""
    return derive_seed(secret, "generated-inputs", exercise_id)


def corpus_seed(secret: str, exercise_id: str, settings_seed: int) -> int:
    """The seed of the efficiency corpus (the spec's ``efficiency.seed`` mixed with the secret)."""
    return derive_seed(secret, "efficiency-corpus", exercise_id, settings_seed)
