"""A sign of life on standard error for commands that take more than a couple of seconds.

:class:`Progress` is a context manager around a long call. When standard error is a terminal
and ``--quiet`` was not given, it writes one line after ``DELAY`` seconds (``grading
student.py ... 3 s``), updates it in place every half second, and erases it when the call ends;
otherwise it writes nothing, so logs and pipes stay clean.
"""

from __future__ import annotations

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
            line = f"{self.label} ... {time.monotonic() - self._started:.0f} s"
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
