"""The sandbox's technical wording of a failure, in words a student knows.

A call killed by ``SIGXFSZ`` wrote more than the file-size limit; ``SIGKILL`` outside a time
limit is the memory limit; ``SIGSEGV`` is a crash of the interpreter. The signal's name stays
in brackets for the course staff.
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


def plain(error: str) -> str:
    """``error`` with ``crashed with SIGNAME`` replaced by what it means."""
    def words(match: re.Match) -> str:
        name = match.group(1)
        return f"{SIGNALS[name]} [{name}]" if name in SIGNALS else match.group(0)

    return _CRASHED.sub(words, error or "")


_SIGNAL_NOTE = re.compile(r"\[SIG[A-Z0-9]+\]")


def names_a_crash(message: str) -> bool:
    """Whether ``message`` reports a call killed by a signal, in either wording."""
    return bool(_CRASHED.search(message or "") or _SIGNAL_NOTE.search(message or ""))
