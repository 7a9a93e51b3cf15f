"""A small seccomp filter for the sandbox worker (x86-64 Linux).

It refuses, with EPERM, system calls a BPE submission never needs but an escape attempt
would: tracing or reading other processes, mounting, new namespaces, kernel modules and
keyrings, BPF, perf, io_uring, userfaultfd and the like. Everything else is allowed; the
other layers (uid, namespaces, rlimits) do the rest. A call from another architecture's
system-call table (the 32-bit entry points) kills the process.
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct

PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000
RET_KILL_PROCESS = 0x80000000
RET_ALLOW = 0x7FFF0000
RET_EPERM = 0x00050000 | 1
RET_ENOSYS = 0x00050000 | 38
NAMESPACE_FLAGS = 0x7E020000  # every CLONE_NEW* flag

BPF_LD_W_ABS = 0x20
BPF_JEQ_K = 0x15
BPF_JGE_K = 0x35
BPF_JSET_K = 0x45
BPF_RET_K = 0x06

# x86-64 numbers.
DENIED = {
    "ptrace": 101, "syslog": 103, "personality": 135, "pivot_root": 155, "adjtimex": 159,
    "chroot": 161, "acct": 163, "settimeofday": 164, "mount": 165, "umount2": 166,
    "swapon": 167, "swapoff": 168, "reboot": 169, "iopl": 172, "ioperm": 173,
    "init_module": 175, "delete_module": 176, "quotactl": 179, "clock_settime": 227,
    "kexec_load": 246, "add_key": 248, "request_key": 249, "keyctl": 250, "unshare": 272,
    "perf_event_open": 298, "fanotify_init": 300, "name_to_handle_at": 303,
    "open_by_handle_at": 304, "clock_adjtime": 305, "setns": 308, "process_vm_readv": 310,
    "process_vm_writev": 311, "kcmp": 312, "finit_module": 313, "kexec_file_load": 320,
    "bpf": 321, "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426,
    "io_uring_register": 427, "open_tree": 428, "move_mount": 429, "fsopen": 430,
    "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
}
CLONE = 56
CLONE3 = 435  # its flags live in memory a filter cannot read: make libc fall back to clone


def supported() -> bool:
    return platform.system() == "Linux" and platform.machine() == "x86_64"


def build_program() -> list[tuple[int, int, int, int]]:
    """The filter as (code, jump-if-true, jump-if-false, k) instructions."""
    numbers = sorted(DENIED.values())
    program: list[tuple[int, int, int, int]] = [
        (BPF_LD_W_ABS, 0, 0, 4),  # architecture
        (BPF_JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
        (BPF_RET_K, 0, 0, RET_KILL_PROCESS),
        (BPF_LD_W_ABS, 0, 0, 0),  # system-call number
    ]
    # Then: x32 check, one test per denied number, clone3, clone (+ its flags), allow,
    # deny, enosys. Jumps are forward offsets from the next instruction.
    tests = len(numbers) + 3
    allow_at = len(program) + tests + 2
    deny_at, enosys_at = allow_at + 1, allow_at + 2

    def jump_to(target: int) -> int:
        return target - (len(program) + 1)

    program.append((BPF_JGE_K, jump_to(deny_at), 0, X32_SYSCALL_BIT))
    for number in numbers:
        program.append((BPF_JEQ_K, jump_to(deny_at), 0, number))
    program.append((BPF_JEQ_K, jump_to(enosys_at), 0, CLONE3))
    program.append((BPF_JEQ_K, 0, jump_to(allow_at), CLONE))
    program.append((BPF_LD_W_ABS, 0, 0, 16))  # low half of clone's first argument (flags)
    program.append((BPF_JSET_K, jump_to(deny_at), 0, NAMESPACE_FLAGS))
    assert len(program) == allow_at
    program += [(BPF_RET_K, 0, 0, RET_ALLOW), (BPF_RET_K, 0, 0, RET_EPERM),
                (BPF_RET_K, 0, 0, RET_ENOSYS)]
    return program


def install() -> None:
    """Install the filter on the calling process (needs no_new_privs or CAP_SYS_ADMIN)."""
    if not supported():
        raise OSError("seccomp filter is only built for x86-64 Linux")
    program = build_program()
    raw = b"".join(struct.pack("=HBBI", *instruction) for instruction in program)
    buffer = ctypes.create_string_buffer(raw, len(raw))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(program), ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"prctl(PR_SET_SECCOMP): {os.strerror(number)}")
