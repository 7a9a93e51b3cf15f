"""An exercise's Markdown instructions as HTML, for pages that do not render Markdown themselves.

PrairieLearn shows ``question.html`` as HTML after a Mustache pass, so the instructions are
converted when the question is built. Only the Markdown that exercise instructions use is
understood: paragraphs, ``#`` headings, ``-``/``*`` and ``1.`` lists (one level, with
continuation lines), fenced code blocks, inline code, ``**bold**`` and ``*emphasis*``.
Anything else stays as literal text. Every piece of text is HTML-escaped and its braces
written as character references, so neither the browser nor Mustache can take any of it
for markup.
"""

from __future__ import annotations

import re

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s{0,3}[-*+]\s+(.*)$")
_NUMBERED = re.compile(r"^\s{0,3}\d{1,9}[.)]\s+(.*)$")
_FENCE = re.compile(r"^\s{0,3}(```+|~~~+)")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*", re.DOTALL)
_EMPHASIS = re.compile(r"(?<![*\w])\*(?=\S)(.+?)(?<=\S)\*(?![*\w])", re.DOTALL)
_PLACEHOLDER = "\x00{}\x00"


def escape_text(text: str) -> str:
    """HTML-escaped text whose braces a Mustache pass cannot take for tags."""
    escaped = (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
               .replace('"', "&quot;").replace("'", "&#39;"))
    return escaped.replace("{", "&#123;").replace("}", "&#125;")


def inline_html(text: str) -> str:
    """Code spans, bold and emphasis of one block of text; the rest escaped."""
    spans: list[str] = []

    def keep(match: re.Match[str]) -> str:
        spans.append(f"<code>{escape_text(match.group(2).strip() or match.group(2))}</code>")
        return _PLACEHOLDER.format(len(spans) - 1)

    text = _CODE_SPAN.sub(keep, text.replace("\x00", ""))
    html = escape_text(text)
    html = _STRONG.sub(r"<strong>\1</strong>", html)
    html = _EMPHASIS.sub(r"<em>\1</em>", html)
    return re.sub("\x00(\\d+)\x00", lambda m: spans[int(m.group(1))], html)


def markdown_to_html(markdown: str) -> str:
    """``markdown`` (the subset in the module docstring) as an HTML fragment."""
    lines = markdown.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if not line.strip():
            index += 1
            continue
        fence = _FENCE.match(line)
        if fence:
            index = _code_block(lines, index, fence.group(1), blocks)
            continue
        heading = _HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            blocks.append(f"<h{level}>{inline_html(heading.group(2))}</h{level}>")
            index += 1
            continue
        if _BULLET.match(line) or _NUMBERED.match(line):
            index = _list(lines, index, blocks)
            continue
        paragraph = []
        while index < len(lines) and lines[index].strip() and not _starts_block(lines[index]):
            paragraph.append(lines[index].strip())
            index += 1
        blocks.append(f"<p>{inline_html(' '.join(paragraph))}</p>")
    return "\n".join(blocks)


def _starts_block(line: str) -> bool:
    return bool(_FENCE.match(line) or _HEADING.match(line) or _BULLET.match(line)
                or _NUMBERED.match(line))


def _code_block(lines: list[str], index: int, fence: str, blocks: list[str]) -> int:
    body = []
    index += 1
    while index < len(lines) and not lines[index].strip().startswith(fence):
        body.append(lines[index])
        index += 1
    blocks.append(f"<pre><code>{escape_text(chr(10).join(body))}</code></pre>")
    return index + 1


def _list(lines: list[str], index: int, blocks: list[str]) -> int:
    numbered = bool(_NUMBERED.match(lines[index])) and not _BULLET.match(lines[index])
    pattern = _NUMBERED if numbered else _BULLET
    items: list[list[str]] = []
    while index < len(lines):
        line = lines[index]
        item = pattern.match(line)
        if item:
            items.append([item.group(1).strip()])
        elif line.strip() and line[:1].isspace() and items:
            items[-1].append(line.strip())  # continuation of the current item
        elif not line.strip() and index + 1 < len(lines) and pattern.match(lines[index + 1]):
            pass  # a blank line between items
        else:
            break
        index += 1
    tag = "ol" if numbered else "ul"
    rendered = "".join(f"<li>{inline_html(' '.join(item))}</li>" for item in items)
    blocks.append(f"<{tag}>{rendered}</{tag}>")
    return index
