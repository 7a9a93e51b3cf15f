"""The delegated cgroup v2 subtree at work on a cgroup-v2-only kernel (a VM, as on today's
Docker hosts): the container simulation's writable cgroup2 view, rooted at a group of its
own, offers pids and memory there, and the sandbox caps a call's processes and its memory in
total with them. On this suite's own hosts pids and memory stay on cgroup v1, so the same
call in ``test_sandbox_platforms.py`` skips; here it must hold. The VM boots its kernel
uncompressed: under software emulation, unpacking it took most of the boot."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from support.cgroup_v2_vm import has_pvh_entry, kernel_image, run_in_vm, vm_unavailable
from support.container import LAUNCHER
from support.delegated_caps import RUN_SPREAD, SPREAD, assert_caps_held, offers_pids_and_memory


def test_caps_hold_in_a_delegated_subtree_on_a_cgroup_v2_kernel():
    reason = vm_unavailable()
    if reason:
        pytest.skip(reason)
    place = Path(tempfile.mkdtemp(prefix="bpe-vm-test-"))
    try:
        report = _spread_in_vm(place)
    finally:
        shutil.rmtree(place, ignore_errors=True)
    assert offers_pids_and_memory(report), report
    assert_caps_held(report)


def test_the_vm_boots_its_kernel_uncompressed():
    reason = vm_unavailable()
    if reason:
        pytest.skip(reason)
    image = kernel_image()
    assert image.name != "vmlinuz", "the kernel holds no xz-compressed ELF with a PVH entry"
    with open(image, "rb") as handle:
        assert has_pvh_entry(handle.read())


def _spread_in_vm(place: Path) -> dict:
    """The JSON line ``RUN_SPREAD`` prints in the container launcher's cgroup v2 view, run in
    the VM."""
    (place / "spread.py").write_text(SPREAD)
    (place / "run_spread.py").write_text(RUN_SPREAD)
    script = place / "run.sh"
    script.write_text(
        f"cd {shlex.quote(str(place))} && {shlex.quote(sys.executable)} "
        f"{shlex.quote(str(LAUNCHER))} --cgroup-v2-only -- {shlex.quote(sys.executable)} "
        "run_spread.py spread.py\n")
    for path in place.iterdir():
        os.chmod(path, 0o644)
    status, output = run_in_vm(script)
    assert status == 0, output[-3000:]
    return json.loads([line for line in output.splitlines() if line.startswith("{")][-1])
