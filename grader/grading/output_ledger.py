"""Which of the student's printed output may be shown: only what calls on visible inputs printed.

A submission sees every input it is called with and can print it. Output printed while it
handled a hidden case, a generated input or the efficiency corpus would hand those inputs
to the student (and, across submissions, let a table of them be built), so it is withheld;
the report says only that output from hidden checks was withheld. What the submission
printed while loading (before any input) and while handling public cases is kept.

The sandbox captures one stream per run; the ledger snapshots it around each call on the
trusted side and keeps the part a visible call added. When the capture is full (its text is
no longer a growing prefix) a visible call's output cannot be told apart and is withheld too.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Optional

WITHHELD_NOTE = "[output from hidden checks withheld]"


class OutputLedger:
    """Collects the visible part of a sandbox's captured output, call by call."""

    def __init__(self, box: Any) -> None:
        self.box = box
        self.parts: list[str] = []
        self.withheld = False
        self._seen = ""
        self._visible_depth = 0

    def _current(self) -> str:
        output = getattr(self.box, "output", "")
        return output if isinstance(output, str) else ""

    def loaded(self) -> None:
        """Keep what the submission printed while loading: it had seen no input yet."""
        self._seen = self._current()
        if self._seen:
            self.parts.append(self._seen)

    @contextmanager
    def visible_inputs(self) -> Iterator[None]:
        """Calls made inside are on inputs the student may see (public cases)."""
        self._visible_depth += 1
        try:
            yield
        finally:
            self._visible_depth -= 1

    def visible_now(self) -> bool:
        """Whether calls made now are on inputs the student may see."""
        return self._visible_depth > 0

    @contextmanager
    def call(self, visible: Optional[bool] = None) -> Iterator[None]:
        """Around one call of student code: keep or withhold what it printed."""
        if visible is None:
            visible = self._visible_depth > 0
        before = self._current()
        try:
            yield
        finally:
            after = self._current()
            self._seen = after
            if after != before:
                if visible and after.startswith(before):
                    self.parts.append(after[len(before):])
                else:
                    self.withheld = True

    def text(self) -> str:
        """The output a report may show, with a note when some was withheld."""
        shown = "".join(self.parts)
        if not self.withheld:
            return shown
        return f"{shown}\n{WITHHELD_NOTE}\n" if shown else WITHHELD_NOTE + "\n"
