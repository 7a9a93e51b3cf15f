"""Landlock on the trusted side: the kernel's ABI version, and a probe that restriction is
really enforced here.

Landlock (Linux 5.13+) lets an unprivileged process with no_new_privs restrict the files it
and its descendants may open, and on newer ABIs TCP, signals and abstract UNIX sockets. It
needs no namespace and Docker's default seccomp profile allows it, so it is the file-system
layer inside a default container. The rules themselves are built by the worker (standard
library only, see ``worker.py``); this module only answers whether they would hold.
"""

from __future__ import annotations

import ctypes
import functools
import os
import struct

SYS_CREATE_RULESET = 444  # the same number on every architecture
SYS_RESTRICT_SELF = 446
CREATE_RULESET_VERSION = 1
ACCESS_FS_READ_FILE = 1 << 2
PR_SET_NO_NEW_PRIVS = 38
PROBE_FILE = "/dev/null"  # present on the host and inside the private root


@functools.lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def abi() -> int:
    """The Landlock ABI version of this kernel, or 0 when there is none (or it is off)."""
    try:
        version = _libc().syscall(SYS_CREATE_RULESET, None, 0, CREATE_RULESET_VERSION)
    except (OSError, AttributeError):
        return 0
    return max(0, int(version))


def probe() -> bool:
    """In a throw-away process: restrict reading files, then check a readable file is refused.
    Changes the calling process for good; call it only in a probe child."""
    if abi() < 1 or not os.path.exists(PROBE_FILE):
        return False
    libc = _libc()
    attr = ctypes.create_string_buffer(struct.pack("=Q", ACCESS_FS_READ_FILE), 8)
    ruleset = libc.syscall(SYS_CREATE_RULESET, attr, 8, 0)
    if ruleset < 0:
        return False
    try:
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        if libc.syscall(SYS_RESTRICT_SELF, ruleset, 0) != 0:
            return False
    finally:
        os.close(ruleset)
    try:
        with open(PROBE_FILE, "rb"):
            return False
    except PermissionError:
        return True
    except OSError:
        return False
