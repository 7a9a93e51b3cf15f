"""Process pools in the sandbox: ``/dev/shm`` for their semaphores, private to each sandbox
(a private root's own, or the chroot-root tree's under a uid of its own), emptied after each
call, and a plain reason where no such place can be given."""

from __future__ import annotations

import os
import textwrap

import pytest

from grader.sandbox import chroot_root
from grader.sandbox.api import Sandbox, SandboxLimits, probe_layers

LAYERS = probe_layers()
SOURCE = textwrap.dedent('''
    import multiprocessing, os
    from multiprocessing import shared_memory

    def square(x):
        return x * x

    def pooled():
        with multiprocessing.Pool(2) as pool:
            return pool.map(square, range(6))

    def leave_a_block():
        block = shared_memory.SharedMemory(name="left-behind", create=True, size=4096)
        block.close()  # never unlinked: it stays in /dev/shm
        return "left"

    def find_the_block():
        try:
            shared_memory.SharedMemory(name="left-behind").close()
            return "found"
        except FileNotFoundError:
            return "gone"
''')
LIMITS = SandboxLimits(call_seconds=10.0, memory_mib=256, total_seconds=60)


@pytest.fixture
def submission(tmp_path):
    path = tmp_path / "student.py"
    path.write_text(SOURCE)
    os.chmod(tmp_path, 0o755)
    os.chmod(path, 0o644)
    return path


def _only(box: Sandbox, root: str) -> None:
    """Use ``root`` ("mount-isolation" or "chroot-root") as the file-system view, or neither."""
    box.layers["mount-isolation"] = root == "mount-isolation" and LAYERS["mount-isolation"]
    box.layers["chroot-root"] = root == "chroot-root"


@pytest.mark.skipif(not (LAYERS.get("mount-isolation") or LAYERS.get("chroot-root")),
                    reason="no private root on this host")
def test_a_pool_runs_and_a_call_leaves_nothing_in_shared_memory(submission):
    with Sandbox(submission, limits=LIMITS) as box:
        assert box.call("pooled").value == [0, 1, 4, 9, 16, 25]
        assert box.call("leave_a_block").value == "left"
        assert box.call("find_the_block").value == "gone"


@pytest.mark.skipif(not LAYERS.get("uid-drop"), reason="the tree is for a root grader")
def test_in_the_chroot_tree_a_pool_runs_and_the_uid_leaves_nothing_behind(submission):
    with Sandbox(submission, limits=LIMITS) as box:
        _only(box, "chroot-root")
        assert box.call("pooled").value == [0, 1, 4, 9, 16, 25]
        assert box.layers["chroot-root"], "the tree could not be built here"
        assert box.call("leave_a_block").value == "left"
        assert box.call("find_the_block").value == "gone"
        tree, uid = box._tree, box.uid
    left = [name for name in os.listdir(tree + chroot_root.SHARED_MEMORY)
            if os.lstat(os.path.join(tree + chroot_root.SHARED_MEMORY, name)).st_uid == uid]
    assert left == []
    assert not any(name.startswith(f"bpe-sandbox-{os.getpid()}-")
                   for name in os.listdir(tree + chroot_root.SANDBOXES))


@pytest.mark.skipif(not LAYERS.get("landlock"), reason="without Landlock /dev/shm is open")
def test_without_a_private_place_for_semaphores_the_reason_is_plain(submission):
    with Sandbox(submission, limits=LIMITS) as box:
        _only(box, "neither")
        outcome = box.call("pooled")
    assert not outcome.ok
    assert "Process pools need shared memory (/dev/shm), which this grader cannot provide " \
           "here" in outcome.error
