"""The terminal progress bar: counts, failures, rate and ETA; silent when not a terminal."""

from __future__ import annotations

import io

from grader.batch.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_bar_shows_counts_failures_and_time_left(monkeypatch) -> None:
    import os
    import shutil

    # A wide terminal, whatever runs the tests: the line is cut to the terminal's width.
    monkeypatch.setattr(shutil, "get_terminal_size", lambda fallback: os.terminal_size((200, 24)))
    screen = Terminal()
    progress = Progress(4, stream=screen)
    progress.advance(student="ada")
    progress.advance(failed=True, student="bob\x1b[2J")
    line = progress.line()
    assert "] 2/4, 1 not graded  " in line and "ETA " in line and "/s" in line
    assert line.startswith("grading [" + "#" * 14 + "-" * 14 + "]")
    assert line.endswith("last: bob\\x1b[2J")  # who was graded last, its control characters escaped
    progress.advance()
    progress.advance()
    progress.phase("writing the reports")
    writing = screen.getvalue().rsplit("\r\x1b[2K", 1)[-1]
    assert writing.startswith("grading [" + "#" * 28 + "] 4/4, 1 not graded  elapsed ")
    assert writing.endswith("writing the reports ...")
    progress.finish()
    last = screen.getvalue().rsplit("\r\x1b[2K", 1)[-1]
    assert last.startswith("grading [" + "#" * 28 + "] 4/4, 1 not graded  ") and last.endswith("\n")
    assert "writing" not in last and "last:" not in last


def test_the_line_fits_the_terminal(monkeypatch) -> None:
    import os
    import shutil

    monkeypatch.setattr(shutil, "get_terminal_size", lambda fallback: os.terminal_size((50, 20)))
    screen = Terminal()
    progress = Progress(3, stream=screen)
    progress.advance(student="a-very-long-student-identifier@example.edu")
    drawn = screen.getvalue().rsplit("\r\x1b[2K", 1)[-1]
    assert len(drawn) == 49 and len(progress.line()) > 49


def test_nothing_is_drawn_when_not_a_terminal() -> None:
    log = io.StringIO()
    progress = Progress(3, stream=log)
    progress.advance()
    progress.finish()
    assert log.getvalue() == ""
