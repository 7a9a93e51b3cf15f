"""Long inputs summarised, never dumped: a message's long quoted strings cut to the part that matters.

A check's message may quote what the student's function was given and returned (a 600-character
sentence, twice). Every human report shows messages through :func:`summarised`: each quoted
string longer than :data:`LONG` characters becomes its length and a window of it, the same
window for all of them, where the first two long ones first differ (else their start), e.g.
``'…the cat sat on the m…' (600 characters, from character 212)``. Short strings and the
JSON report are left as they are.
"""

from __future__ import annotations

import re

LONG = 120
"""Characters a quoted string may have before it is summarised."""
WINDOW = 60
BEFORE = 20

# A literal starts and ends at a quote with no letter or digit outside it (not "student's").
_QUOTED = re.compile(r"(?<!\w)(?:'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")(?!\w)")


def summarised(text: str) -> str:
    """``text`` with each quoted string over :data:`LONG` characters summarised."""
    long = [match for match in _QUOTED.finditer(text) if len(match.group(0)) - 2 > LONG]
    if not long:
        return text
    bodies = [match.group(0)[1:-1] for match in long]
    start = 0
    if len(bodies) >= 2:
        first, second = bodies[0], bodies[1]
        same = next((i for i, (a, b) in enumerate(zip(first, second)) if a != b),
                    min(len(first), len(second)))
        start = max(0, same - BEFORE)
    pieces, end = [], 0
    for match, body in zip(long, bodies):
        quote = match.group(0)[0]
        window = body[start:start + WINDOW]
        head = "…" if start > 0 else ""
        tail = "…" if start + WINDOW < len(body) else ""
        where = f", from character {start + 1}" if start > 0 else ""
        pieces.append(text[end:match.start()])
        pieces.append(f"{quote}{head}{window}{tail}{quote} ({len(body)} characters{where})")
        end = match.end()
    pieces.append(text[end:])
    return "".join(pieces)
