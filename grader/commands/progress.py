"""A sign of life on standard error for commands that take more than a couple of seconds.

:class:`Progress` is a context manager around a long call. When standard error is a terminal
and ``--quiet`` was not given, it writes one line after ``DELAY`` seconds (``grading
student.py ... 3 s``), updates it in place every half second, and erases it when the call ends;
otherwise it writes nothing, so logs and pipes stay clean. A call that says how far it is
(:meth:`Progress.step`, e.g. the grading engine before each check) shows that too:
``grading student.py: check 7/19 (train: differential) ... 12 s``, and the engine adds the
student's calls that timed out so far, first, so a narrow terminal still shows them
(``check 2/7 (time-outs: train_bpe 2 (rest skipped); train: cases) ... 5 s``). A line too wide for the terminal is cut before the time.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from typing import Any, Optional, TextIO

DELAY = 2.0
INTERVAL = 0.5


class Progress:
    """``with Progress("grading student.py"): ...`` (see the module docstring)."""

    def __init__(self, label: str, *, quiet: bool = False, stream: Optional[TextIO] = None,
                 delay: float = DELAY) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = not quiet and bool(getattr(self.stream, "isatty", lambda: False)())
        self.delay = delay
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._written = 0
        self._step = ""

    def step(self, done: int, total: int, what: str) -> None:
        """How far the call is: ``done`` of ``total`` steps finished, ``what`` comes next."""
        self._step = f": check {min(done + 1, total)}/{total} ({what})"

    def __enter__(self) -> "Progress":
        if self.enabled:
            self._started = time.monotonic()
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        if self._stop.wait(self.delay):
            return
        while not self._stop.is_set():
            line = f"{self.label}{self._step}"
            elapsed = f" ... {time.monotonic() - self._started:.0f} s"
            width = shutil.get_terminal_size((100, 24)).columns - 1
            if len(line) + len(elapsed) > width:  # a wrapped line could not be redrawn in place
                line = line[: max(0, width - len(elapsed) - 1)] + "…"
            line = (line + elapsed)[:width]
            self.stream.write("\r" + line.ljust(self._written))
            self.stream.flush()
            self._written = len(line)
            self._stop.wait(INTERVAL)

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            if self._written:
                self.stream.write("\r" + " " * self._written + "\r")
                self.stream.flush()
