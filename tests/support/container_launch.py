"""Run a command as a default Docker container would run it, without Docker.

    python container_launch.py [--cgroup-v2-only [--cgroup-readonly]] [--profile FILE] -- ARGV...

Must start as root holding CAP_SYS_ADMIN (an ordinary root shell). In order, like runc does
for a container without ``--security-opt no-new-privileges``:

1. with ``--cgroup-v2-only``: a private mount namespace in which every mount at or under
   ``/sys/fs/cgroup`` (the cgroup v1 hierarchies, a hybrid host's ``unified`` cgroup2) is
   unmounted and a cgroup2 file system is mounted at ``/sys/fs/cgroup`` instead. As with
   Docker's ``--cgroupns=private`` (its default on cgroup v2 hosts) the process first moves
   to a fresh child cgroup ``bpe-container-<pid>`` and enters a new cgroup namespace, so the
   mount's root is that cgroup and ``/proc/self/cgroup`` says ``0::/``. ``--cgroup-readonly``
   mounts it read-only, as Docker does for unprivileged containers;
2. the seccomp filter of the JSON profile, interpreted for Docker's default capability set
   on x86-64 (rules whose ``includes.caps`` names a capability not held are skipped, rules
   whose ``excludes.caps`` names a held one are skipped, ``includes.minKernel`` compared
   with the running kernel, argument conditions kept), loaded with libseccomp while the
   process still holds CAP_SYS_ADMIN, so no_new_privs stays unset;
3. every capability outside Docker's default set dropped from the bounding, effective,
   permitted, inheritable and ambient sets;
4. ``execvp(ARGV)``: root executing keeps exactly the bounding set, as in a container.

Standard library only (libseccomp is reached with ctypes), so any Python 3.8+ can run it.
Exit status 125 means the simulation could not be set up; the reason is the last line on
standard error. ``--sweep`` only removes empty ``bpe-container-*`` cgroups left behind.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import platform
import sys

SETUP_FAILED = 125
CGROUP_ROOT = "/sys/fs/cgroup"
CGROUP_PREFIX = "bpe-container-"
DEFAULT_PROFILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "docker",
                               "seccomp-default.json")

# Docker's default capability set (moby oci/caps/defaults.go).
DEFAULT_CAPS = (
    "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW",
    "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE",
    "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE",
)
CAP_NUMBERS = {name: number for number, name in enumerate((
    "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
    "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
    "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW",
    "CAP_IPC_LOCK", "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT",
    "CAP_SYS_PTRACE", "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
    "CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE",
    "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN",
    "CAP_SYSLOG", "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON",
    "CAP_BPF", "CAP_CHECKPOINT_RESTORE",
))}
CAP_SYS_ADMIN = CAP_NUMBERS["CAP_SYS_ADMIN"]
DOCKER_ARCH = "amd64"  # Go's name for x86-64, the one the profile's "arches" use
SECCOMP_ARCHES = ("x86_64", "x86", "x32")  # the profile's archMap entry for SCMP_ARCH_X86_64

# x86-64 numbers of calls the profile allows that an older libseccomp (bookworm's 2.5.4)
# cannot name; a current Docker allows them, so the filter does too.
NEWER_SYSCALLS = {
    "statmount": 457, "listmount": 458, "lsm_get_self_attr": 459, "lsm_set_self_attr": 460,
    "lsm_list_modules": 461, "mseal": 462, "setxattrat": 463, "getxattrat": 464,
    "listxattrat": 465, "removexattrat": 466, "uretprobe": 467,
}

# libseccomp
SCMP_ACT_KILL_PROCESS = 0x80000000
SCMP_ACT_KILL = 0x00000000
SCMP_ACT_TRAP = 0x00030000
SCMP_ACT_LOG = 0x7FFC0000
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_FLTATR_CTL_NNP = 3
COMPARE_OPS = {"SCMP_CMP_NE": 1, "SCMP_CMP_LT": 2, "SCMP_CMP_LE": 3, "SCMP_CMP_EQ": 4,
               "SCMP_CMP_GE": 5, "SCMP_CMP_GT": 6, "SCMP_CMP_MASKED_EQ": 7}
EPERM = 1

# Linux
CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
MS_RELATIME, MS_REC, MS_PRIVATE = 0x200000, 0x4000, 0x40000
MNT_DETACH = 2
PR_CAPBSET_READ, PR_CAPBSET_DROP = 23, 24
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
LINUX_CAPABILITY_VERSION_3 = 0x20080522


class SetupError(Exception):
    """The simulation cannot be set up here; the message says why."""


# ---------------------------------------------------------------------------------------------
# the profile, interpreted for one capability set (pure: no system calls)


def kernel_version(release: str | None = None) -> tuple[int, ...]:
    parts = []
    for piece in (release or platform.release()).split("-")[0].split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def profile_rules(profile: dict, caps=DEFAULT_CAPS, arch: str = DOCKER_ARCH,
                  kernel: tuple[int, ...] | None = None) -> list[dict]:
    """The profile's rules that apply, as moby selects them: each as ``{"names", "action"
    (a libseccomp action value), "conditions": [(index, op, datum_a, datum_b), ...]}``."""
    held = set(caps)
    kernel = kernel if kernel is not None else kernel_version()
    rules = []
    for rule in profile.get("syscalls") or []:
        includes = rule.get("includes") or {}
        excludes = rule.get("excludes") or {}
        if arch in (excludes.get("arches") or []):
            continue
        if any(cap in held for cap in excludes.get("caps") or []):
            continue
        if excludes.get("minKernel") and kernel >= kernel_version(excludes["minKernel"]):
            continue
        if includes.get("arches") and arch not in includes["arches"]:
            continue
        if any(cap not in held for cap in includes.get("caps") or []):
            continue
        if includes.get("minKernel") and kernel < kernel_version(includes["minKernel"]):
            continue
        action = seccomp_action(rule["action"], rule.get("errnoRet"))
        conditions = [(arg["index"], COMPARE_OPS[arg["op"]], arg["value"], arg.get("valueTwo", 0))
                      for arg in rule.get("args") or []]
        rules.append({"names": list(rule["names"]), "action": action, "conditions": conditions})
    return rules


def seccomp_action(name: str, errno_ret: int | None = None) -> int:
    if name == "SCMP_ACT_ALLOW":
        return SCMP_ACT_ALLOW
    if name == "SCMP_ACT_ERRNO":
        return 0x00050000 | ((errno_ret if errno_ret is not None else EPERM) & 0xFFFF)
    if name == "SCMP_ACT_TRACE":
        return 0x7FF00000 | ((errno_ret if errno_ret is not None else EPERM) & 0xFFFF)
    simple = {"SCMP_ACT_KILL": SCMP_ACT_KILL, "SCMP_ACT_KILL_THREAD": SCMP_ACT_KILL,
              "SCMP_ACT_KILL_PROCESS": SCMP_ACT_KILL_PROCESS, "SCMP_ACT_TRAP": SCMP_ACT_TRAP,
              "SCMP_ACT_LOG": SCMP_ACT_LOG}
    if name not in simple:
        raise SetupError(f"unknown seccomp action {name} in the profile")
    return simple[name]


def default_action(profile: dict) -> int:
    return seccomp_action(profile["defaultAction"], profile.get("defaultErrnoRet"))


# ---------------------------------------------------------------------------------------------
# libc and libseccomp


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        number = ctypes.get_errno()
        raise SetupError(f"{what}: {os.strerror(number)}")


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int),
                ("datum_a", ctypes.c_uint64), ("datum_b", ctypes.c_uint64)]


def _libseccomp() -> ctypes.CDLL:
    names = ["libseccomp.so.2", ctypes.util.find_library("seccomp")]
    for name in names:
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        lib.seccomp_init.restype = ctypes.c_void_p
        lib.seccomp_init.argtypes = [ctypes.c_uint32]
        lib.seccomp_release.argtypes = [ctypes.c_void_p]
        lib.seccomp_arch_resolve_name.restype = ctypes.c_uint32
        lib.seccomp_arch_resolve_name.argtypes = [ctypes.c_char_p]
        lib.seccomp_arch_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
        lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
        lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                               ctypes.c_uint, ctypes.POINTER(_ArgCmp)]
        lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
        lib.seccomp_load.argtypes = [ctypes.c_void_p]
        return lib
    raise SetupError("libseccomp.so.2 is not installed (Debian: apt-get install libseccomp2)")


def load_seccomp(profile: dict, caps=DEFAULT_CAPS) -> None:
    """Build the profile's filter for ``caps`` and load it on this process, leaving
    no_new_privs unset (the caller must still hold CAP_SYS_ADMIN)."""
    lib = _libseccomp()
    ctx = lib.seccomp_init(default_action(profile))
    if not ctx:
        raise SetupError("seccomp_init failed")
    try:
        rules = [(rule["action"], conditions, rule["names"])
                 for rule in profile_rules(profile, caps)
                 for conditions in _condition_groups(rule["conditions"])]
        # Calls libseccomp cannot name go in by number while the filter has only x86-64 (a
        # filter with several architectures refuses bare numbers), the rest once the profile's
        # other two architectures are in.
        for action, conditions, names in rules:
            for name in names:
                if name in NEWER_SYSCALLS and lib.seccomp_syscall_resolve_name(name.encode()) == -1:
                    _add_rule(lib, ctx, action, NEWER_SYSCALLS[name], conditions, name)
        for arch in SECCOMP_ARCHES[1:]:
            token = lib.seccomp_arch_resolve_name(arch.encode())
            if token == 0:
                raise SetupError(f"libseccomp does not know the {arch} architecture")
            result = lib.seccomp_arch_add(ctx, token)
            if result not in (0, -17):  # -EEXIST: already there
                raise SetupError(f"seccomp_arch_add({arch}): {os.strerror(-result)}")
        for action, conditions, names in rules:
            for name in names:
                number = lib.seccomp_syscall_resolve_name(name.encode())
                if number != -1:  # -1: a name libseccomp does not know (handled above)
                    _add_rule(lib, ctx, action, number, conditions, name)
        _check_negative(lib.seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0),
                        "seccomp_attr_set(CTL_NNP)")
        _check_negative(lib.seccomp_load(ctx), "seccomp_load")
    finally:
        lib.seccomp_release(ctx)


def _add_rule(lib, ctx, action: int, number: int, conditions: list, name: str) -> None:
    array = (_ArgCmp * max(1, len(conditions)))(
        *[_ArgCmp(index, op, a, b) for index, op, a, b in conditions])
    _check_negative(lib.seccomp_rule_add_array(ctx, action, number, len(conditions), array),
                    f"seccomp rule for {name}")


def _condition_groups(conditions: list) -> list[list]:
    """One rule per group: conditions on distinct arguments are ANDed in one rule; several
    on the same argument become separate rules (what runc does)."""
    if len({index for index, *_ in conditions}) == len(conditions):
        return [conditions]
    return [[condition] for condition in conditions]


def _check_negative(result: int, what: str) -> None:
    if result < 0:
        raise SetupError(f"{what}: {os.strerror(-result)}")


# ---------------------------------------------------------------------------------------------
# capabilities


def _status_mask(field: str) -> int:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1], 16)
    raise SetupError(f"/proc/self/status has no {field}")


def check_preconditions() -> None:
    if not sys.platform.startswith("linux") or platform.machine() != "x86_64":
        raise SetupError(f"needs x86-64 Linux, this is {sys.platform} {platform.machine()}")
    if os.geteuid() != 0:
        raise SetupError("needs root (to drop to Docker's capability set)")
    effective = _status_mask("CapEff")
    bounding = _status_mask("CapBnd")
    if not effective >> CAP_SYS_ADMIN & 1:
        raise SetupError("needs CAP_SYS_ADMIN to set up (is this already a container?)")
    missing = [cap for cap in DEFAULT_CAPS
               if not (bounding >> CAP_NUMBERS[cap] & 1 and effective >> CAP_NUMBERS[cap] & 1)]
    if missing:
        raise SetupError("this host does not grant Docker's default capabilities "
                         + ", ".join(missing))


def drop_capabilities(keep=DEFAULT_CAPS) -> None:
    libc = _libc()
    keep_mask = 0
    for cap in keep:
        keep_mask |= 1 << CAP_NUMBERS[cap]
    try:
        with open("/proc/sys/kernel/cap_last_cap") as handle:
            last = int(handle.read())
    except OSError:
        last = max(CAP_NUMBERS.values())
    for number in range(last + 1):
        if not keep_mask >> number & 1 and libc.prctl(PR_CAPBSET_READ, number, 0, 0, 0) == 1:
            _check(libc.prctl(PR_CAPBSET_DROP, number, 0, 0, 0), f"dropping capability {number}")
    _check(libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clearing ambient caps")

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    data = (Data * 2)()
    for word in range(2):
        part = keep_mask >> (32 * word) & 0xFFFFFFFF
        data[word].effective = data[word].permitted = part
        data[word].inheritable = 0
    header = Header(LINUX_CAPABILITY_VERSION_3, 0)
    _check(libc.capset(ctypes.byref(header), data), "capset")


# ---------------------------------------------------------------------------------------------
# cgroup v2 only


def _mounts() -> list[tuple[str, str, str]]:
    """(mount point, root, file system type) of every mount, in mount order."""
    found = []
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            before, _, after = line.partition(" - ")
            fields = before.split()
            found.append((_unescape(fields[4]), _unescape(fields[3]), after.split()[0]))
    return found


def _unescape(text: str) -> str:
    return text.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n") \
        .replace("\\134", "\\")


def _mount(source, target, fstype, flags, data=None) -> None:
    libc = _libc()
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong,
                           ctypes.c_char_p]
    _check(libc.mount(source and source.encode(), target.encode(), fstype and fstype.encode(),
                      flags, data and data.encode()), f"mount {target}")


def _unmount_cgroup_tree() -> None:
    libc = _libc()
    inside = [point for point, _, _ in _mounts()
              if point == CGROUP_ROOT or point.startswith(CGROUP_ROOT + "/")]
    for point in sorted(set(inside), key=lambda p: (-p.count("/"), p)):
        while any(p == point for p, _, _ in _mounts()):  # stacked mounts: all of them
            _check(libc.umount2(point.encode(), MNT_DETACH), f"umount {point}")


def _own_v2_cgroup() -> str:
    with open("/proc/self/cgroup") as handle:
        for line in handle:
            hierarchy, _, path = line.rstrip("\n").split(":", 2)
            if hierarchy == "0":
                return path
    raise SetupError("this kernel shows no cgroup v2 membership in /proc/self/cgroup")


def sweep(parent: str) -> None:
    """Remove empty cgroups a finished launch left in ``parent`` (busy ones stay). A launch
    whose process still exists keeps its cgroup: it may have made it and not yet joined it."""
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for name in names:
        suffix = name[len(CGROUP_PREFIX):]
        if name.startswith(CGROUP_PREFIX) and not (suffix.isdigit() and _alive(int(suffix))):
            top = os.path.join(parent, name)
            # the groups the run made inside its own (a grader's leaf and sandboxes) go first
            for folder, _, _ in sorted(os.walk(top), key=lambda entry: -len(entry[0])):
                try:
                    os.rmdir(folder)
                except OSError:
                    pass


def enter_cgroup_v2_only(readonly: bool) -> None:
    libc = _libc()
    if not os.path.isdir(CGROUP_ROOT):
        raise SetupError(f"{CGROUP_ROOT} does not exist")
    _check(libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _unmount_cgroup_tree()
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RELATIME
    _mount("cgroup2", CGROUP_ROOT, "cgroup2", flags)
    # The container's own cgroup, then a cgroup namespace rooted there.
    parent = os.path.normpath(CGROUP_ROOT + _own_v2_cgroup())
    sweep(parent)
    own = os.path.join(parent, f"{CGROUP_PREFIX}{os.getpid()}")
    try:
        os.mkdir(own)
        with open(os.path.join(own, "cgroup.procs"), "w") as handle:
            handle.write(str(os.getpid()))
    except OSError as error:
        raise SetupError(f"cannot create the container's cgroup {own}: {error.strerror}")
    _check(libc.unshare(CLONE_NEWCGROUP), "unshare(CLONE_NEWCGROUP)")
    _check(libc.umount2(CGROUP_ROOT.encode(), MNT_DETACH), f"umount {CGROUP_ROOT}")
    _mount("cgroup2", CGROUP_ROOT, "cgroup2", flags | (MS_RDONLY if readonly else 0))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def sweep_host() -> None:
    """From the host's mount namespace: sweep next to this process's own v2 cgroup."""
    try:
        own = _own_v2_cgroup()
    except (OSError, SetupError):
        return
    for point, root, fstype in _mounts():
        if fstype == "cgroup2" and root == "/":
            sweep(os.path.normpath(point + own))
            return


# ---------------------------------------------------------------------------------------------


def main(args: list[str]) -> int:
    cgroup_v2_only = readonly = False
    profile_path = DEFAULT_PROFILE
    while args and args[0] != "--":
        option = args.pop(0)
        if option == "--cgroup-v2-only":
            cgroup_v2_only = True
        elif option == "--cgroup-readonly":
            readonly = True
        elif option == "--profile" and args:
            profile_path = args.pop(0)
        elif option == "--sweep":
            sweep_host()
            return 0
        else:
            print(f"container-launch: unknown option {option}", file=sys.stderr)
            return 2
    argv = args[1:]
    if not argv:
        print("container-launch: usage: container_launch.py [options] -- ARGV...",
              file=sys.stderr)
        return 2
    try:
        check_preconditions()
        with open(profile_path) as handle:
            profile = json.load(handle)
        if cgroup_v2_only:
            enter_cgroup_v2_only(readonly)
        load_seccomp(profile)
        drop_capabilities()
    except (SetupError, OSError, ValueError, KeyError) as error:
        print(f"container-launch: cannot simulate a container: {error}", file=sys.stderr)
        return SETUP_FAILED
    try:
        os.execvp(argv[0], argv)
    except OSError as error:
        print(f"container-launch: cannot run {argv[0]}: {error.strerror}", file=sys.stderr)
        return 127 if isinstance(error, FileNotFoundError) else 126


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
