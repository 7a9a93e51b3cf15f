"""A sandbox's limits for one submission, and the two errors opening or using one raises."""

from __future__ import annotations

from dataclasses import dataclass


class SandboxError(ValueError):
    """A usage error: bad limits, a missing submission, a value that cannot be sent."""


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot run here: a layer strict mode demands is missing, or the worker
    process could not be started at all."""


@dataclass(frozen=True)
class SandboxLimits:
    """Limits for one submission; the exercise spec may override any of them."""

    call_seconds: float = 2.0
    memory_mib: int = 512
    total_seconds: float = 120.0
    max_answer_bytes: int = 8 << 20
    max_output_bytes: int = 64 << 10
    max_processes: int = 32
    max_file_bytes: int = 16 << 20
    max_open_files: int = 64

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise SandboxError(f"sandbox limit {name} must be a positive number, got {value!r}")
