"""Making untrusted text safe to show: control characters out, length capped with a marker.

Student code decides much of what a report shows (its printed output, the values it
returned, its exception messages), so every renderer passes such text through here before
it reaches a terminal, an XML document or a size-limited platform file.
"""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL and C1 controls: they can rewrite a terminal
# (ANSI escapes) or make XML ill-formed. Carriage returns become newlines first.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Lone surrogates can arrive through JSON ("\ud800") and are not encodable characters;
# U+FFFE/U+FFFF are not XML characters either.
_NOT_TEXT = re.compile("[\ud800-\udfff\ufffe\uffff]")


def clean_text(text: str) -> str:
    """``text`` without control characters or unencodable code points (tab and newline kept)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _NOT_TEXT.sub("\ufffd", _CONTROL.sub("", text))


def terminal_text(text: str) -> str:
    """``text`` for a terminal: every control character but newline and tab written as an
    escape (``\\x1b``), so nothing a student named or printed can move the cursor, set the
    window title or colour the instructor's terminal; lone surrogates as ``\\udXXX``."""
    escaped = _CONTROL.sub(lambda found: f"\\x{ord(found.group()):02x}", text)
    return _NOT_TEXT.sub(lambda found: f"\\u{ord(found.group()):04x}", escaped)


def truncation_marker(omitted: int) -> str:
    return f"\n[... {omitted} more characters not shown ...]"


def truncate(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters plus a marker saying how much was cut."""
    if len(text) <= limit:
        return text
    return text[:limit] + truncation_marker(len(text) - limit)


def safe_text(text: str, limit: int | None = None) -> str:
    """Cleaned and, when ``limit`` is given, truncated."""
    cleaned = clean_text(text)
    return cleaned if limit is None else truncate(cleaned, limit)


def longest_backtick_run(text: str) -> int:
    runs = re.findall("`+", text)
    return max((len(run) for run in runs), default=0)


def fenced_block(text: str, info: str = "text") -> str:
    """A Markdown fenced code block that ``text`` cannot close early."""
    fence = "`" * max(3, longest_backtick_run(text) + 1)
    return f"{fence}{info}\n{text}\n{fence}"


# Characters that start markup anywhere in a line, and constructs that only count at its start
# (headings, list items, thematic breaks, ordered-list numbers).
_MARKDOWN_INLINE = re.compile(r"([\\`*_\[\]<>|~&])")
_MARKDOWN_LINE_START = re.compile(r"^([#+\-=]|\d+(?=[.)]))")


def markdown_inline(text: str, limit: int | None = None) -> str:
    """``text`` on one line as literal Markdown: every character that could start markup escaped."""
    one_line = " ".join(safe_text(text, limit).split())
    escaped = _MARKDOWN_INLINE.sub(r"\\\1", one_line)
    return _MARKDOWN_LINE_START.sub(lambda match: _escape_line_start(match.group(1)), escaped)


def _escape_line_start(prefix: str) -> str:
    # "1." is escaped as "1\." so the number stays readable.
    return prefix + "\\" if prefix[0].isdigit() else "\\" + prefix
