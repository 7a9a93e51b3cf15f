"""The sandbox's technical wording of a failure, in words a student knows.

A call killed by ``SIGXFSZ`` wrote more than the file-size limit; ``SIGKILL`` outside a time
limit is the memory limit; ``SIGSEGV`` is a crash of the interpreter. The signal's name stays
in brackets for the course staff. A pattern using ``\\p{L}`` under ``re`` (often ``import re
as regex``) gets a hint that the classes are the ``regex`` module's.
"""

from __future__ import annotations

import re

SIGNALS = {
    "SIGXFSZ": "wrote more data to a file than the sandbox allows (the file-size limit)",
    "SIGKILL": "was stopped by the sandbox, usually for using more memory than allowed",
    "SIGSEGV": "crashed the Python interpreter (a segmentation fault)",
    "SIGABRT": "aborted the Python interpreter",
    "SIGBUS": "crashed the Python interpreter (a bus error)",
    "SIGFPE": "crashed the Python interpreter (an arithmetic fault)",
    "SIGPIPE": "wrote to a closed pipe",
    "SIGSYS": "made a system call the sandbox forbids (such as opening a network connection)",
}
_CRASHED = re.compile(r"crashed with (SIG[A-Z0-9]+)")


_UNICODE_CLASS = re.compile(r"bad escape \\[pP]\b")
UNICODE_CLASS_HINT = (
    " (re has no \\p{...} classes, the regex module has; 'import re as regex' is still re: "
    "import regex if allowed, else use [^\\W\\d_] for letters)")


def plain(error: str) -> str:
    """``error`` with ``crashed with SIGNAME`` replaced by what it means, and a hint when a
    pattern uses the ``\\p{...}`` classes ``re`` lacks."""
    def words(match: re.Match) -> str:
        name = match.group(1)
        return f"{SIGNALS[name]} [{name}]" if name in SIGNALS else match.group(0)

    text = _CRASHED.sub(words, error or "")
    if _UNICODE_CLASS.search(text) and UNICODE_CLASS_HINT not in text:
        text += UNICODE_CLASS_HINT
    return text


_SIGNAL_NOTE = re.compile(r"\[SIG[A-Z0-9]+\]")


def names_a_crash(message: str) -> bool:
    """Whether ``message`` reports a call killed by a signal, in either wording."""
    return bool(_CRASHED.search(message or "") or _SIGNAL_NOTE.search(message or ""))
