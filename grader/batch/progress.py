"""A one-line progress bar on a terminal: done/total, failures, rate and time left.

Drawn on standard error, and only when it is a terminal; otherwise nothing is printed (a log
file gets the summary at the end, not a stream of carriage returns).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 28
MIN_REDRAW_SECONDS = 0.1


class Progress:
    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool | None = None):
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total = total
        self.done = 0
        self.failed = 0
        self.started = time.monotonic()
        self._drawn = 0.0

    def advance(self, failed: bool = False) -> None:
        self.done += 1
        self.failed += bool(failed)
        self.draw()

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        fraction = self.done / self.total if self.total else 1.0
        filled = int(WIDTH * fraction)
        bar = "#" * filled + "-" * (WIDTH - filled)
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else None
        eta = _clock(left) if left is not None else "--:--"
        problems = f", {self.failed} not graded" if self.failed else ""
        return (f"[{bar}] {self.done}/{self.total}{problems}  {rate:.1f}/s  "
                f"elapsed {_clock(elapsed)}  ETA {eta}")

    def draw(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and self.done < self.total and now - self._drawn < MIN_REDRAW_SECONDS:
            return
        self._drawn = now
        self.stream.write("\r\x1b[2K" + self.line())
        self.stream.flush()

    def finish(self) -> None:
        if self.enabled:
            self.draw(force=True)
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes:02d}:{seconds:02d}"
