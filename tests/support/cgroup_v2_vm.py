"""Run a command on a cgroup-v2-only Linux kernel: a small virtual machine that sees this host.

Where the host binds pids and memory to cgroup v1 (as this suite's own machines do), no
cgroup2 mount can offer those controllers, so a delegated cgroup v2 subtree cannot be shown
at work by any simulation in the host's kernel. This boots Debian's kernel under QEMU
(software emulation, no KVM needed) with ``cgroup_no_v1=all``:

- an initramfs of busybox and the kernel's 9p and overlay modules mounts the host's root
  read-only over virtio-9p, with a tmpfs overlay on top, so the guest writes only in memory;
- it boots the kernel uncompressed, through its PVH entry (:func:`kernel_image`): under
  software emulation, unpacking the compressed kernel took most of the boot;
- it mounts cgroup2 with every controller, enables cpu, memory and pids for the groups below
  the root (as systemd does on a cgroup v2 host), runs the script given as root in the host's
  file system, prints its output and its exit status, and powers off.

    reason = vm_unavailable()
    if reason:
        pytest.skip(reason)
    status, output = run_in_vm(script_path)

The kernel comes from ``$BPE_TEST_VM_KERNEL`` (default :data:`KERNEL_DIR`): a folder with
``vmlinuz`` and a ``modules/`` folder of the ``.ko`` files :data:`MODULES` names, which
``python3 tests/support/cgroup_v2_vm.py fetch`` fills from Debian's kernel package (``.ci/run``
runs it); the first boot unpacks ``vmlinuz`` to ``vmlinux`` beside it. Standard library only.
"""

from __future__ import annotations

import atexit
import functools
import gzip
import lzma
import os
import platform
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

KERNEL_DIR = Path("/var/cache/bpe-autograder-test-vm")
QEMU = "qemu-system-x86_64"
# In load order: each module's dependencies come before it.
MODULES = ("virtio_ring", "virtio", "virtio_pci_legacy_dev", "virtio_pci_modern_dev", "virtio_pci",
           "netfs", "fscache", "9pnet", "9pnet_virtio", "9p", "overlay")
EXIT_MARK = "VM-EXIT-STATUS "
_TERMINAL_CODES = re.compile(r"\x1b(?:c|\[[0-9;?]*[A-Za-z])")  # the firmware clears the screen
BOOT_SECONDS = 120.0
XZ_MAGIC = bytes.fromhex("fd377a585a00")
PT_NOTE, XEN_ELFNOTE_PHYS32_ENTRY = 4, 18

INIT = """#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for module in {modules}; do insmod /lib/$module.ko || echo "vm: cannot load $module"; done
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=524288,cache=loose host /host \\
    || {{ echo "vm: the host's root cannot be mounted"; poweroff -f; }}
mount -t tmpfs -o size=1g tmpfs /rw; mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/host,upperdir=/rw/upper,workdir=/rw/work /root \\
    || {{ echo "vm: no overlay"; poweroff -f; }}
mount -t proc proc /root/proc; mount -t sysfs sys /root/sys; mount -t devtmpfs dev /root/dev
mkdir -p /root/dev/shm; mount -t tmpfs -o mode=1777 shm /root/dev/shm
mount -t cgroup2 cgroup2 /root/sys/fs/cgroup
echo "+cpu +memory +pids" > /root/sys/fs/cgroup/cgroup.subtree_control
script=$(sed -n 's/.*vmscript=\\([^ ]*\\).*/\\1/p' /proc/cmdline)
echo  # the firmware's last line has no end
chroot /root /bin/sh "$script" 2>&1
echo "{mark}$?"
poweroff -f
"""


def kernel_dir() -> Path:
    return Path(os.environ.get("BPE_TEST_VM_KERNEL") or KERNEL_DIR)


def _static(path: str) -> bool:
    """Whether the ELF file at ``path`` needs no dynamic loader (it can run alone in an
    initramfs)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    return head.startswith(b"\x7fELF") and b"/ld-linux" not in head and b"ld.so" not in head


def vm_unavailable() -> str | None:
    """Why no VM can run here, or None."""
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        return "the VM runs an x86-64 Linux kernel"
    if os.geteuid() != 0:
        return "the VM shares the host's root file system, which only root can read whole"
    if shutil.which(QEMU) is None:
        return f"{QEMU} is not installed (Debian: qemu-system-x86)"
    busybox = shutil.which("busybox")
    if busybox is None or not _static(os.path.realpath(busybox)):
        return "no static busybox for the VM's initramfs (Debian: busybox-static)"
    if shutil.which("cpio") is None:
        return "cpio is not installed"
    folder = kernel_dir()
    missing = [name for name in MODULES if not (folder / "modules" / f"{name}.ko").is_file()]
    if not (folder / "vmlinuz").is_file() or missing:
        return (f"no kernel for the VM in {folder} (python3 tests/support/cgroup_v2_vm.py fetch "
                "fetches Debian's)")
    return None


@functools.lru_cache(maxsize=1)
def initramfs() -> Path:
    """The initramfs, built once per test process."""
    work = Path(tempfile.mkdtemp(prefix="bpe-vm-initrd-"))
    tree = work / "tree"
    for folder in ("bin", "lib", "proc", "sys", "dev", "host", "rw", "root"):
        (tree / folder).mkdir(parents=True)
    shutil.copy(os.path.realpath(shutil.which("busybox") or "busybox"), tree / "bin" / "busybox")
    for name in MODULES:
        shutil.copy(kernel_dir() / "modules" / f"{name}.ko", tree / "lib")
    init = tree / "init"
    init.write_text(INIT.format(modules=" ".join(MODULES), mark=EXIT_MARK))
    init.chmod(0o755)
    names = sorted(str(path.relative_to(tree)) for path in tree.rglob("*"))
    archive = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=tree,
                             input=("\n".join([".", *names]) + "\n").encode(),
                             capture_output=True, check=True)
    image = work / "initrd.gz"
    image.write_bytes(gzip.compress(archive.stdout))
    return image


def has_pvh_entry(elf: bytes) -> bool:
    """Whether ``elf`` is a 64-bit ELF kernel with the PVH entry note, by which QEMU boots an
    uncompressed kernel directly."""
    if elf[:5] != b"\x7fELF\x02":
        return False
    (table,) = struct.unpack_from("<Q", elf, 0x20)
    entry_size, entries = struct.unpack_from("<HH", elf, 0x36)
    for index in range(entries):
        kind, _, offset, _, _, size = struct.unpack_from("<IIQQQQ", elf, table + index * entry_size)
        at, end = offset, offset + size
        while kind == PT_NOTE and at + 12 <= end:
            name_size, description_size, note = struct.unpack_from("<III", elf, at)
            name = elf[at + 12:at + 12 + name_size].rstrip(b"\0")
            if name == b"Xen" and note == XEN_ELFNOTE_PHYS32_ENTRY:
                return True
            at += 12 + -(-name_size // 4) * 4 + -(-description_size // 4) * 4
    return False


def uncompressed(vmlinuz: bytes) -> bytes | None:
    """The ELF kernel inside an xz-compressed ``vmlinuz``, if it has a PVH entry; else None."""
    start = vmlinuz.find(XZ_MAGIC)
    if start < 0:
        return None
    try:
        elf = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(vmlinuz[start:])
    except lzma.LZMAError:
        return None
    return elf if has_pvh_entry(elf) else None


@functools.lru_cache(maxsize=1)
def kernel_image() -> Path:
    """The kernel file the VM boots: ``vmlinux`` (uncompressed, PVH entry) beside ``vmlinuz``,
    written there from it the first time, or in a temporary file where that folder is
    read-only; ``vmlinuz`` itself when it holds no such kernel."""
    folder = kernel_dir()
    compressed, plain = folder / "vmlinuz", folder / "vmlinux"
    if plain.is_file() and plain.stat().st_mtime >= compressed.stat().st_mtime:
        return plain
    elf = uncompressed(compressed.read_bytes())
    if elf is None:
        return compressed
    try:
        handle, name = tempfile.mkstemp(prefix=".vmlinux-", dir=folder)
    except OSError:
        handle, name = tempfile.mkstemp(prefix="bpe-vm-vmlinux-")
        atexit.register(os.unlink, name)
        plain = Path(name)
    with os.fdopen(handle, "wb") as out:
        out.write(elf)
    os.chmod(name, 0o644)
    if Path(name) != plain:
        os.replace(name, plain)
    return plain


def run_in_vm(script: Path, *, timeout: float = 600.0) -> tuple[int | None, str]:
    """Boot the VM, run ``sh SCRIPT`` in it as root and return its exit status (None when the
    VM did not get that far) and everything the guest printed."""
    command = [
        QEMU, "-accel", "tcg", "-m", "2048", "-smp", "1", "-nographic", "-no-reboot",
        "-nic", "none", "-kernel", str(kernel_image()), "-initrd", str(initramfs()),
        "-append", f"console=ttyS0,115200 edd=off cgroup_no_v1=all panic=-1 loglevel=3 "
                   f"vmscript={script}",
        "-virtfs", "local,path=/,mount_tag=host,security_model=passthrough,readonly=on,"
                   "multidevs=remap",
    ]
    done = subprocess.run(command, capture_output=True, timeout=timeout + BOOT_SECONDS,
                          stdin=subprocess.DEVNULL)
    output = _TERMINAL_CODES.sub("", done.stdout.decode("utf-8", "replace").replace("\r", ""))
    status = None
    for line in output.splitlines():
        if line.startswith(EXIT_MARK) and line[len(EXIT_MARK):].strip().isdigit():
            status = int(line[len(EXIT_MARK):])
    return status, output


def fetch_kernel() -> str:
    """Fill :func:`kernel_dir` from Debian's kernel package (apt-get and dpkg, as root), unless
    it is full already; what was done, in a line."""
    folder = kernel_dir()
    if (folder / "vmlinuz").is_file() and all(
            (folder / "modules" / f"{name}.ko").is_file() for name in MODULES):
        return f"the VM's kernel is in {folder}"
    depends = subprocess.run(["apt-cache", "depends", "linux-image-amd64"], capture_output=True,
                             text=True, check=True).stdout
    package = re.search(r"Depends: (linux-image-\d\S*-amd64)\s*$", depends, re.MULTILINE)
    if package is None:
        raise SystemExit("cgroup_v2_vm: no linux-image package to fetch")
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(["apt-get", "download", package[1]], cwd=work, check=True,
                       capture_output=True)
        [deb] = Path(work).glob("*.deb")
        subprocess.run(["dpkg", "-x", str(deb), str(Path(work) / "root")], check=True)
        (folder / "modules").mkdir(parents=True, exist_ok=True)
        [kernel] = (Path(work) / "root" / "boot").glob("vmlinuz-*")
        shutil.copy(kernel, folder / "vmlinuz")
        for name in MODULES:
            found = next((Path(work) / "root" / "lib" / "modules").rglob(f"{name}.ko"), None)
            if found is None:
                raise SystemExit(f"cgroup_v2_vm: {package[1]} has no {name}.ko")
            shutil.copy(found, folder / "modules")
    return f"cgroup_v2_vm: {package[1]} in {folder}"


if __name__ == "__main__":
    if sys.argv[1:] != ["fetch"]:
        raise SystemExit("usage: python3 tests/support/cgroup_v2_vm.py fetch")
    print(fetch_kernel())
