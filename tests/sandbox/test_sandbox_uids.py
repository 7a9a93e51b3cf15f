"""Every open sandbox runs student code as a uid of its own (``grader.sandbox.uids``)."""

from __future__ import annotations

import os
import textwrap

import pytest

from grader.sandbox.api import Sandbox, SandboxLimits, probe_layers
from grader.sandbox import uids

LAYERS = probe_layers()
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
SOURCE = textwrap.dedent('''
    import os

    def whoami():
        return os.getuid()

    def poke(pid):
        try:
            os.kill(pid, 0)
        except PermissionError:
            return "refused"
        except ProcessLookupError:
            return "not seen"
        return "reached"
''')
QUICK = SandboxLimits(call_seconds=5.0, memory_mib=256, total_seconds=30)
# Layers that would hide the neighbour before its uid is even asked about.
HIDING = ("pid-namespace", "mount-isolation", "landlock", "seccomp")


@pytest.fixture
def submission(tmp_path):
    path = tmp_path / "student.py"
    path.write_text(SOURCE)
    os.chmod(tmp_path, 0o755)
    os.chmod(path, 0o644)
    return path


def test_the_pool_lies_below_nobody_and_skips_accounts(monkeypatch):
    monkeypatch.delenv(uids.RANGE_VARIABLE, raising=False)
    pool = uids.pool()
    assert 0 < len(pool) <= uids.POOL_SIZE and uids.NOBODY not in pool
    assert all(uids.NOBODY - uids.POOL_SIZE <= uid < uids.NOBODY for uid in pool)
    assert not any(uids._has_account(uid) for uid in pool)
    monkeypatch.setenv(uids.RANGE_VARIABLE, "70010-70000")
    assert uids.pool() == list(range(70010, 69999, -1))


def test_a_pinned_uid_is_used_as_is(monkeypatch):
    monkeypatch.setenv(uids.PINNED_VARIABLE, "4242")
    held = uids.lease()
    assert (held.uid, held.own) == (4242, False)


@pytest.mark.skipif(not ROOT, reason="leases are taken only by a root grader")
def test_leases_are_exclusive_and_released(monkeypatch, tmp_path):
    monkeypatch.delenv(uids.PINNED_VARIABLE, raising=False)
    locks = tmp_path / "locks"
    monkeypatch.setattr(uids, "LOCK_DIRECTORIES", (str(locks),))
    monkeypatch.setenv(uids.RANGE_VARIABLE, "70000-70001")
    first, second = uids.lease(), uids.lease()
    assert first.own and second.own and first.uid != second.uid
    third = uids.lease(wait_seconds=0.1)  # none left: shares nobody
    assert (third.uid, third.own) == (uids.NOBODY, False)
    first.release()
    again = uids.lease(wait_seconds=0.1)
    assert again.own and again.uid == first.uid
    second.release()
    again.release()


@pytest.mark.skipif(not ROOT, reason="leases are taken only by a root grader")
def test_a_directory_others_may_write_is_not_trusted_with_the_locks(monkeypatch, tmp_path):
    monkeypatch.delenv(uids.PINNED_VARIABLE, raising=False)
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    monkeypatch.setattr(uids, "LOCK_DIRECTORIES", (str(shared),))
    held = uids.lease(wait_seconds=0.1)
    assert (held.uid, held.own) == (uids.NOBODY, False)


@pytest.mark.skipif(not LAYERS.get("uid-drop"), reason="needs a root grader that drops its uid")
def test_two_open_sandboxes_run_as_different_uids_and_cannot_signal_each_other(submission):
    with Sandbox(submission, limits=QUICK) as first, Sandbox(submission, limits=QUICK) as second:
        # Without the layers that hide processes, only the uids keep the two apart.
        first.layers = {name: on and name not in HIDING for name, on in first.layers.items()}
        mine, theirs = first.call("whoami").value, second.call("whoami").value
        assert mine != theirs and {mine, theirs} <= set(uids.pool())
        assert second.worker_pid is not None
        assert first.call("poke", [second.worker_pid]).value == "refused"
        os.kill(second.worker_pid, 0)  # still alive
    with Sandbox(submission, limits=QUICK) as later:
        assert later.call("whoami").value in {mine, theirs}  # released on close


@pytest.mark.skipif(not LAYERS.get("uid-drop"), reason="needs a root grader that drops its uid")
def test_sandboxes_pinned_to_one_uid_do_reach_each_other(submission, monkeypatch):
    # What the leases prevent: with one uid for both, the neighbour's worker is reachable.
    monkeypatch.setenv(uids.PINNED_VARIABLE, str(uids.NOBODY))
    with Sandbox(submission, limits=QUICK) as first, Sandbox(submission, limits=QUICK) as second:
        first.layers = {name: on and name not in HIDING for name, on in first.layers.items()}
        assert first.call("whoami").value == second.call("whoami").value == uids.NOBODY
        assert first.call("poke", [second.worker_pid]).value == "reached"
