"""A one-line progress bar on a terminal: what is being done, done/total, failures, rate,
elapsed time, time left, and the student graded last.

Drawn on standard error, and only when it is a terminal; otherwise nothing is printed (a log
file gets the summary at the end, not a stream of carriage returns). The line is cut to the
terminal's width, so redrawing it in place never leaves wrapped pieces behind.
"""

from __future__ import annotations

import shutil
import sys
import time
from typing import TextIO

from grader.report.safety import terminal_text

WIDTH = 28
MIN_REDRAW_SECONDS = 0.1
MAX_NAME = 40


class Progress:
    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool | None = None,
                 label: str = "grading"):
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total = total
        self.label = label
        self.done = 0
        self.failed = 0
        self.last = ""
        self.doing = ""  # a phase after the gradings (writing the outputs)
        self.started = time.monotonic()
        self._drawn = 0.0

    def advance(self, failed: bool = False, student: str = "") -> None:
        self.done += 1
        self.failed += bool(failed)
        if student:
            self.last = terminal_text(" ".join(student.split()))[:MAX_NAME]
        self.draw()

    def phase(self, doing: str) -> None:
        """Say what comes after the gradings (the counts stay on the line)."""
        self.doing = doing
        self.draw(force=True)

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        fraction = self.done / self.total if self.total else 1.0
        filled = int(WIDTH * fraction)
        bar = "#" * filled + "-" * (WIDTH - filled)
        problems = f", {self.failed} not graded" if self.failed else ""
        counts = f"{self.label} [{bar}] {self.done}/{self.total}{problems}"
        if self.doing:
            return f"{counts}  elapsed {_clock(elapsed)}  {self.doing} ..."
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else None
        eta = _clock(left) if left is not None else "--:--"
        last = f"  last: {self.last}" if self.last and self.done < self.total else ""
        return f"{counts}  {rate:.1f}/s  elapsed {_clock(elapsed)}  ETA {eta}{last}"

    def draw(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and self.done < self.total and now - self._drawn < MIN_REDRAW_SECONDS:
            return
        self._drawn = now
        columns = shutil.get_terminal_size((100, 24)).columns
        self.stream.write("\r\x1b[2K" + self.line()[: max(20, columns - 1)])
        self.stream.flush()

    def finish(self) -> None:
        if self.enabled:
            self.doing = ""
            self.draw(force=True)
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes:02d}:{seconds:02d}"
