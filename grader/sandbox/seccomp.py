"""A small seccomp filter for the sandbox worker (x86-64 Linux).

It refuses, with EPERM, system calls a BPE submission never needs but an escape attempt
would: tracing or reading other processes, mounting, new namespaces, kernel modules and
keyrings, BPF, perf, io_uring, userfaultfd, System V and POSIX message IPC (state a call could
leave for the next one) and the like; and sockets of every family but AF_UNIX (no network,
no netlink, no vsock), which holds without a network namespace. Calls that change another
process's limits or priority by pid (``prlimit64``, ``setpriority``, ``sched_set*``,
``ioprio_set``) are allowed on the caller only: without a PID namespace a sandbox sees its
neighbours' pids. Everything else is allowed;
the other layers (uid, namespaces, Landlock, rlimits) do the rest. A call from another
architecture's system-call table (the 32-bit entry points) kills the process.
"""

from __future__ import annotations

import ctypes
import os
import platform
import socket
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
    "shmget": 29, "shmat": 30, "shmctl": 31, "semget": 64, "semop": 65, "semctl": 66,
    "shmdt": 67, "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71, "semtimedop": 220,
    "mq_open": 240, "mq_unlink": 241, "mq_timedsend": 242, "mq_timedreceive": 243,
    "mq_notify": 244, "mq_getsetattr": 245,
}
# Calls that act on another process by pid: allowed on the caller itself (pid 0) only. Without
# a PID namespace every sandbox of a batch can see its neighbours' pids, and these would let
# one cap or deprioritise a classmate's grading (RLIMIT_NPROC 0, nice 19).
SELF_ONLY = {"prlimit64": 302, "sched_setaffinity": 203, "sched_setscheduler": 144,
             "sched_setparam": 142, "sched_setattr": 314}
SETPRIORITY = 141  # (which, who, prio): PRIO_PROCESS of who 0 only (PRIO_USER is every sandbox)
IOPRIO_SET = 251  # (which, who, prio): IOPRIO_WHO_PROCESS of who 0 only
PRIO_PROCESS = 0
IOPRIO_WHO_PROCESS = 1
SOCKET = 41
SOCKETPAIR = 53
AF_UNIX = 1
CLONE = 56
CLONE3 = 435  # its flags live in memory a filter cannot read: make libc fall back to clone


def supported() -> bool:
    return platform.system() == "Linux" and platform.machine() == "x86_64"


def build_program() -> list[tuple[int, int, int, int]]:
    """The filter as (code, jump-if-true, jump-if-false, k) instructions."""
    # Written with symbolic targets ("allow", "deny", ...), resolved to forward offsets below.
    code: list[tuple[int, object, object, int]] = [
        (BPF_LD_W_ABS, 0, 0, 4),  # architecture
        (BPF_JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
        (BPF_RET_K, 0, 0, RET_KILL_PROCESS),
        (BPF_LD_W_ABS, 0, 0, 0),  # system-call number
        (BPF_JGE_K, "deny", 0, X32_SYSCALL_BIT),
    ]
    code += [(BPF_JEQ_K, "deny", 0, number) for number in sorted(DENIED.values())]
    code += [(BPF_JEQ_K, "self-pid", 0, number) for number in sorted(SELF_ONLY.values())]
    code += [
        (BPF_JEQ_K, "setpriority", 0, SETPRIORITY),
        (BPF_JEQ_K, "ioprio", 0, IOPRIO_SET),
        (BPF_JEQ_K, "enosys", 0, CLONE3),
        (BPF_JEQ_K, "socket", 0, SOCKET),
        (BPF_JEQ_K, "socket", 0, SOCKETPAIR),
        (BPF_JEQ_K, 0, "allow", CLONE),
        (BPF_LD_W_ABS, 0, 0, 16),  # low half of clone's first argument (flags)
        (BPF_JSET_K, "deny", "allow", NAMESPACE_FLAGS),
        ("socket", None, None, 0),
        (BPF_LD_W_ABS, 0, 0, 16),  # low half of the first argument: the address family
        (BPF_JEQ_K, "allow", "deny", AF_UNIX),
        ("self-pid", None, None, 0),  # the first argument, a pid, must be 0 (both halves)
        (BPF_LD_W_ABS, 0, 0, 16),
        (BPF_JEQ_K, 0, "deny", 0),
        (BPF_LD_W_ABS, 0, 0, 20),
        (BPF_JEQ_K, "allow", "deny", 0),
        ("setpriority", None, None, 0),
        (BPF_LD_W_ABS, 0, 0, 16),  # which
        (BPF_JEQ_K, "who-is-self", "deny", PRIO_PROCESS),
        ("ioprio", None, None, 0),
        (BPF_LD_W_ABS, 0, 0, 16),  # which
        (BPF_JEQ_K, "who-is-self", "deny", IOPRIO_WHO_PROCESS),
        ("who-is-self", None, None, 0),  # the second argument, who, must be 0 (both halves)
        (BPF_LD_W_ABS, 0, 0, 24),
        (BPF_JEQ_K, 0, "deny", 0),
        (BPF_LD_W_ABS, 0, 0, 28),
        (BPF_JEQ_K, "allow", "deny", 0),
        ("allow", None, None, 0), (BPF_RET_K, 0, 0, RET_ALLOW),
        ("deny", None, None, 0), (BPF_RET_K, 0, 0, RET_EPERM),
        ("enosys", None, None, 0), (BPF_RET_K, 0, 0, RET_ENOSYS),
    ]
    labels: dict[str, int] = {}
    program: list[tuple[int, object, object, int]] = []
    for instruction in code:
        if isinstance(instruction[0], str):
            labels[instruction[0]] = len(program)
        else:
            program.append(instruction)

    def offset(target: object, at: int) -> int:
        return labels[target] - (at + 1) if isinstance(target, str) else int(target)

    return [(op, offset(jt, at), offset(jf, at), k) for at, (op, jt, jf, k) in enumerate(program)]


def sockets_refused() -> bool:
    """After :func:`install`: an internet socket is refused and a UNIX one is not."""
    try:
        socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
        return False
    except PermissionError:
        pass
    try:
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close()
    except OSError:
        return False
    return True


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
