"""A delegated cgroup v2 subtree: one group per worker with ``pids.max``, ``memory.max`` and
``cpu.stat`` (``grader.sandbox.cgroups``).

The files are those the kernel shows in a delegated group, in a folder of the test's own:
what the grader writes and reads is checked here. Whether the kernel enforces the caps is
checked where a host delegates the controllers (``test_caps_hold_in_a_delegated_subtree`` in
``test_sandbox_platforms.py``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.sandbox import cgroups


@pytest.fixture
def subtree(tmp_path, monkeypatch):
    """A writable v2 group offering ``pids`` and ``memory``, with no v1 controller mounted."""
    (tmp_path / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (tmp_path / "cgroup.subtree_control").write_text("\n")
    (tmp_path / "cgroup.procs").write_text("")
    monkeypatch.setattr(cgroups, "_v1_mount", lambda controller: None)
    monkeypatch.setattr(cgroups, "_own_v2_parent", lambda: str(tmp_path))
    monkeypatch.setattr(cgroups, "_own_v2_path", lambda: "/")  # a container's own namespace
    return tmp_path


def test_one_group_caps_processes_and_memory_and_measures_cpu(subtree):
    groups = cgroups.CgroupSet.create(pids_max=32, memory_bytes=512 << 20)
    assert groups.unified and groups.pids == groups.memory == groups.cpuacct
    path = Path(groups.pids)
    assert path.parent == subtree and path.name.startswith(f"{cgroups.PREFIX}{os.getpid()}-")
    assert (subtree / "cgroup.subtree_control").read_text() == "+pids +memory"
    assert (path / "pids.max").read_text() == "32"
    assert (path / "memory.max").read_text() == str(512 << 20)
    assert (path / "memory.swap.max").read_text() == "0"
    assert groups.procs_files() == (str(path / "cgroup.procs"),)
    (path / "cpu.stat").write_text("usage_usec 1250000\nuser_usec 1000000\nsystem_usec 250000\n")
    (path / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    (path / "cgroup.procs").write_text("")
    assert groups.cpu_seconds() == 1.25
    assert groups.oom_kills() == 1
    assert groups.members() == set()
    for name in os.listdir(path):  # the kernel's files go with the group
        os.remove(path / name)
    groups.remove()
    assert not path.exists()


def test_controllers_already_delegated_are_used_as_they_are(subtree):
    (subtree / "cgroup.subtree_control").write_text("memory pids\n")
    groups = cgroups.CgroupSet.create(pids_max=8, memory_bytes=64 << 20)
    assert groups.pids and groups.memory
    assert (subtree / "cgroup.subtree_control").read_text() == "memory pids\n"  # not written


def test_a_group_with_processes_moves_them_to_a_leaf_before_delegating(subtree, monkeypatch):
    (subtree / "cgroup.procs").write_text("101\n102\n")
    tries = []

    def enable(control, controllers):  # the kernel refuses while the group holds processes
        tries.append(controllers)
        leaf = subtree / cgroups.LEAF / "cgroup.procs"
        return leaf.exists()

    monkeypatch.setattr(cgroups, "_enable", enable)
    groups = cgroups.CgroupSet.create(pids_max=8, memory_bytes=64 << 20)
    assert tries == [["pids", "memory"], ["pids", "memory"]]
    assert (subtree / cgroups.LEAF / "cgroup.procs").read_text() == "102"  # the last one moved
    assert groups.pids is not None


def test_only_the_controllers_offered_are_used(subtree):
    (subtree / "cgroup.controllers").write_text("cpu pids\n")
    groups = cgroups.CgroupSet.create(pids_max=8, memory_bytes=64 << 20)
    assert groups.pids and groups.memory is None and groups.cpuacct == groups.pids
    assert not (Path(groups.pids) / "memory.max").exists()


@pytest.mark.parametrize("controllers", ["cpu hugetlb\n", ""])
def test_without_pids_or_memory_to_offer_no_group_is_made(subtree, controllers):
    (subtree / "cgroup.controllers").write_text(controllers)
    groups = cgroups.CgroupSet.create(pids_max=8, memory_bytes=64 << 20)
    assert groups.directories == []
    assert sorted(os.listdir(subtree)) == ["cgroup.controllers", "cgroup.procs",
                                           "cgroup.subtree_control"]


def test_a_group_that_refuses_delegation_gives_no_caps(subtree, monkeypatch):
    monkeypatch.setattr(cgroups, "_enable", lambda control, controllers: False)
    (subtree / "cgroup.procs").write_text("101\n")
    assert cgroups.CgroupSet.create(pids_max=8, memory_bytes=64 << 20).directories == []


def test_a_stale_v2_group_of_a_dead_grader_is_found(subtree):
    stale = subtree / f"{cgroups.PREFIX}999999999-0"
    stale.mkdir()
    assert str(stale) in cgroups.stale_groups()


def test_a_group_a_manager_keeps_is_left_alone_unless_marked_delegated(subtree, monkeypatch):
    monkeypatch.setattr(cgroups, "_own_v2_path", lambda: "/user.slice/session-3.scope")
    assert cgroups.CgroupSet.create(pids_max=8, memory_bytes=64 << 20).directories == []
    assert (subtree / "cgroup.subtree_control").read_text() == "\n"

    def delegate_mark(path, name):  # what systemd sets on a Delegate=yes unit's group
        if name == "trusted.delegate":
            return b"1"
        raise OSError(61, "No data available")

    monkeypatch.setattr(cgroups.os, "getxattr", delegate_mark)
    assert cgroups.CgroupSet.create(pids_max=8, memory_bytes=64 << 20).pids is not None
