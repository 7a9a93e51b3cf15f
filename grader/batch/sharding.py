"""Splitting a class across machines: ``--shard K/N`` keeps the students whose id hashes to
shard K of N. The split depends only on the student id, so every machine given the same
folder (or a folder with students added) agrees on who is whose, and the N shards together
hold every student exactly once.

``--shard slurm`` takes K and N from the Slurm job array the command runs in
(``SLURM_ARRAY_TASK_ID``, ``_MIN``, ``_MAX``, ``_STEP``, ``_COUNT``): task MIN is shard 1, and
the array must be a range (``--array=0-7``, ``--array=1-15:2``, with or without ``%LIMIT``).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")
FROM_SLURM = "slurm"
SLURM_ARRAY = ("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX",
               "SLURM_ARRAY_TASK_COUNT")


class ShardError(ValueError):
    """A ``K/N`` that does not name a shard."""


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    @classmethod
    def parse(cls, text: str, environ: Mapping[str, str] | None = None) -> "Shard":
        """``K/N``, or ``slurm`` for the shard of the Slurm array task this runs in."""
        if (text or "").strip().lower() == FROM_SLURM:
            return cls.from_slurm(os.environ if environ is None else environ)
        match = SHARD.match(text or "")
        if not match:
            raise ShardError(f"shard {text!r} is not K/N (for example 1/3)")
        index, count = int(match.group(1)), int(match.group(2))
        if count < 1 or not 1 <= index <= count:
            raise ShardError(f"shard {text!r}: K must be between 1 and N, and N at least 1")
        return cls(index, count)

    @classmethod
    def from_slurm(cls, environ: Mapping[str, str]) -> "Shard":
        missing = [name for name in SLURM_ARRAY if not environ.get(name, "").strip()]
        if missing:
            raise ShardError(f"--shard slurm needs the variables of a Slurm job array, and "
                             f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not "
                             "set: run it in a job array (sbatch --array=1-N ...), or give K/N")
        try:
            task, low, high, count = (int(environ[name]) for name in SLURM_ARRAY)
            step = int(environ.get("SLURM_ARRAY_TASK_STEP", "1") or 1)
        except ValueError:
            raise ShardError("--shard slurm: the SLURM_ARRAY_TASK_* variables are not "
                             "numbers") from None
        if step < 1 or (high - low) % step or (high - low) // step + 1 != count \
                or (task - low) % step or not low <= task <= high:
            raise ShardError(f"--shard slurm: the job array must be a range such as "
                             f"--array=1-{count} (task {task} of {low}-{high}:{step}, "
                             f"{count} tasks); a list of task ids cannot be numbered as shards")
        return cls((task - low) // step + 1, count)

    def holds(self, key: str) -> bool:
        digest = hashlib.sha256(key.encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index - 1

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"
