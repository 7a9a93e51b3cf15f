"""The terminal progress bar: counts, failures, rate and ETA; silent when not a terminal."""

from __future__ import annotations

import io

from grader.batch.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_bar_shows_counts_failures_and_time_left() -> None:
    screen = Terminal()
    progress = Progress(4, stream=screen)
    progress.advance()
    progress.advance(failed=True)
    line = progress.line()
    assert "] 2/4, 1 not graded  " in line and "ETA " in line and "/s" in line
    assert line.startswith("[" + "#" * 14 + "-" * 14 + "]")
    progress.advance()
    progress.advance()
    progress.finish()
    last = screen.getvalue().rsplit("\r\x1b[2K", 1)[-1]
    assert last.startswith("[" + "#" * 28 + "] 4/4, 1 not graded  ") and last.endswith("\n")


def test_nothing_is_drawn_when_not_a_terminal() -> None:
    log = io.StringIO()
    progress = Progress(3, stream=log)
    progress.advance()
    progress.finish()
    assert log.getvalue() == ""
