"""``support.strays``: only what a run orphans while adopting is in force counts as its stray,
and the process adopts nothing once the block is left."""

from __future__ import annotations

import subprocess
import sys

import pytest

from support.strays import _children, _is_subreaper, adopting

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="child subreapers are Linux's")
# The shell exits at once: its sleep is orphaned.
ORPHAN = ["sh", "-c", "sleep 30 >/dev/null 2>&1 & echo $!"]


def orphan() -> int:
    return int(subprocess.run(ORPHAN, capture_output=True, text=True, check=True).stdout)


def test_a_child_from_before_is_no_stray_and_an_orphan_of_the_run_is_one():
    earlier = subprocess.Popen(["sleep", "30"])  # a daemon an earlier test left running
    try:
        with adopting() as adopted:
            assert _is_subreaper()
            pid = orphan()
            left = adopted.strays(patience=0.2)
            assert [line.split(":")[0] for line in left] == [str(pid)], left
            assert "sleep 30" in left[0]
            assert pid not in [child for child, _ in _children()], "killed and reaped"
            assert adopted.strays(patience=0) == []
        assert earlier.poll() is None, "the earlier child is left alone"
    finally:
        earlier.kill()
        earlier.wait()


def test_nothing_is_adopted_after_the_block():
    with adopting():
        pass
    assert not _is_subreaper()
    pid = orphan()
    try:
        assert pid not in [child for child, _ in _children()]
    finally:
        subprocess.run(["kill", str(pid)], check=False)
