"""A call's memory as a whole where no memory cgroup caps it: the trusted side adds up the
resident memory of every process of the sandbox's own uid while it waits for the reply, and
stops the call once the sum passes the cap.

RLIMIT_AS caps each process, not their sum: 32 processes may each use the whole allowance. A
uid leased to one sandbox (:mod:`grader.sandbox.uids`) names exactly the call's processes and
its fork server, so their sum is the call's footprint. The watch looks every
:data:`INTERVAL_SECONDS` once a call has run that long (most calls end sooner and are never
looked at), so the sum can pass the cap only by what the call allocates in one interval.
"""

from __future__ import annotations

import time

from grader.sandbox.uids import processes_of

INTERVAL_SECONDS = 0.1


class MemoryWatch:
    """Call it while waiting: True once the uid's processes hold more than ``limit_bytes``."""

    def __init__(self, uid: int, limit_bytes: int) -> None:
        self.uid = uid
        self.limit_bytes = limit_bytes
        self.next_look = time.monotonic() + INTERVAL_SECONDS

    def restart(self) -> None:
        """A new call begins: the first look comes one interval later."""
        self.next_look = time.monotonic() + INTERVAL_SECONDS

    def __call__(self) -> bool:
        now = time.monotonic()
        if now < self.next_look:
            return False
        self.next_look = now + INTERVAL_SECONDS
        return resident_bytes_of(self.uid) > self.limit_bytes


def resident_bytes_of(uid: int) -> int:
    """The resident memory of every process whose real uid is ``uid`` (threads counted once:
    ``/proc`` lists processes)."""
    total = 0
    for _, fields in processes_of(uid):
        try:
            total += int(fields.get("VmRSS", "0 kB").split()[0]) << 10
        except (ValueError, IndexError):
            continue
    return total
