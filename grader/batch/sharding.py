"""Splitting a class across machines: ``--shard K/N`` keeps the students whose id hashes to
shard K of N. The split depends only on the student id, so every machine given the same
folder (or a folder with students added) agrees on who is whose, and the N shards together
hold every student exactly once.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


class ShardError(ValueError):
    """A ``K/N`` that does not name a shard."""


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    @classmethod
    def parse(cls, text: str) -> "Shard":
        match = SHARD.match(text or "")
        if not match:
            raise ShardError(f"shard {text!r} is not K/N (for example 1/3)")
        index, count = int(match.group(1)), int(match.group(2))
        if count < 1 or not 1 <= index <= count:
            raise ShardError(f"shard {text!r}: K must be between 1 and N, and N at least 1")
        return cls(index, count)

    def holds(self, key: str) -> bool:
        digest = hashlib.sha256(key.encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index - 1

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"
