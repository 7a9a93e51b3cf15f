"""The container simulation is real: inside it, what Docker's defaults forbid fails and what
they allow works; outside it, the same probe sees the host's freedom."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys

import pytest

from . import container_launch
from .container import (
    PROFILE,
    container_available,
    container_command,
    remove_leftover_cgroups,
    run_in_container,
)
from .fixtures import platform_env  # noqa: F401 - the fixture under test

PROBE = os.path.join(os.path.dirname(__file__), "container_probe.py")
CAP_SYS_ADMIN = 21
DOCKER_DEFAULT_CAPS = 0x00000000A80425FB  # CapEff of a default container, as Docker reports


@functools.lru_cache(maxsize=None)
def probe(variant: str) -> dict:
    argv = [sys.executable, "-I", PROBE]
    if variant == "host":
        command = argv
    else:
        reason = container_available(cgroup_v2_only=variant == "v2")
        if reason:
            pytest.skip(reason)
        command = container_command(argv, cgroup_v2_only=variant == "v2")
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    remove_leftover_cgroups()
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def profile() -> dict:
    with open(PROFILE) as handle:
        return json.load(handle)


def rules_for(name: str, caps) -> list[dict]:
    rules = container_launch.profile_rules(profile(), caps, kernel=(6, 1))
    return [rule for rule in rules if name in rule["names"]]


# ---------------------------------------------------------------------------------------------
# the profile as Docker reads it (no privileges needed)


def test_default_caps_refuse_namespaces_and_mounts():
    caps = container_launch.DEFAULT_CAPS
    for name in ("mount", "umount2", "unshare", "setns", "bpf", "open_by_handle_at"):
        assert rules_for(name, caps) == [], name
    [clone] = rules_for("clone", caps)
    assert clone["conditions"] == [(0, container_launch.COMPARE_OPS["SCMP_CMP_MASKED_EQ"],
                                    0x7E020000, 0)]
    [clone3] = rules_for("clone3", caps)
    assert clone3["action"] == 0x00050000 | 38  # ENOSYS, so libc falls back to clone
    families = sorted((op, value) for rule in rules_for("socket", caps)
                      for _, op, value, _ in rule["conditions"])
    assert families == [(2, 38), (4, 39), (6, 40)]  # < 38, == 39, > 40: never 38 or 40 (vsock)
    assert container_launch.default_action(profile()) == 0x00050000 | 1  # EPERM


def test_cap_sys_admin_would_allow_what_docker_refuses():
    caps = container_launch.DEFAULT_CAPS + ("CAP_SYS_ADMIN",)
    assert rules_for("mount", caps) and rules_for("unshare", caps)
    assert [rule["conditions"] for rule in rules_for("clone", caps)] == [[]]
    assert rules_for("clone3", caps)[0]["action"] == container_launch.SCMP_ACT_ALLOW


def test_min_kernel_and_arches():
    assert rules_for("ptrace", container_launch.DEFAULT_CAPS)  # minKernel 4.8
    old = container_launch.profile_rules(profile(), kernel=(4, 4))
    assert not any("ptrace" in rule["names"] for rule in old)
    assert rules_for("arch_prctl", container_launch.DEFAULT_CAPS)  # amd64 only
    assert not rules_for("s390_runtime_instr", container_launch.DEFAULT_CAPS)


# ---------------------------------------------------------------------------------------------
# inside the simulation


@pytest.mark.parametrize("variant", ["container", "v2"])
def test_forbidden_inside(variant):
    facts = probe(variant)
    assert facts["uid"] == 0
    for mask in ("CapEff", "CapBnd", "CapPrm"):
        assert int(facts["status"][mask], 16) == DOCKER_DEFAULT_CAPS, mask
    assert not int(facts["status"]["CapAmb"], 16)
    assert not facts["cap_sys_admin_effective"] and not facts["cap_sys_admin_bounding"]
    assert facts["status"]["Seccomp"] == "2" and facts["status"]["NoNewPrivs"] == "0"
    for key in ("unshare_user", "unshare_mount", "unshare_net", "unshare_pid_ipc_uts",
                "unshare_cgroup", "socket_vsock", "mount_tmpfs"):
        assert facts[key] == "EPERM", key
    assert facts["clone3"] == "ENOSYS"


@pytest.mark.parametrize("variant", ["container", "v2"])
def test_allowed_inside(variant):
    facts = probe(variant)
    for key in ("fork", "socket_inet", "setresuid_nobody", "no_new_privs", "seccomp_by_child"):
        assert facts[key] == "ok", key


def test_cgroup_v2_only_view():
    facts = probe("v2")
    assert facts["cgroup_mounts"][0].startswith("cgroup2 /sys/fs/cgroup ")
    assert [line for line in facts["cgroup_mounts"] if line.startswith("cgroup ")] == []
    assert len(facts["cgroup_mounts"]) == 1
    assert facts["cgroup_v2"]["own_cgroup"] == "0::/"  # a private cgroup namespace
    assert facts["cgroup_v1_pids"] is None


def test_container_variant_keeps_the_host_cgroups():
    assert any(line.startswith("cgroup ") for line in probe("container")["cgroup_mounts"])


def test_read_only_cgroup_mount():
    if reason := container_available(cgroup_v2_only=True):
        pytest.skip(reason)
    done = run_in_container(
        [sys.executable, "-I", "-c", "import os; os.mkdir('/sys/fs/cgroup/x')"],
        cgroup_v2_only=True, cgroup_readonly=True, capture_output=True, text=True, timeout=60)
    remove_leftover_cgroups()
    assert done.returncode == 1 and "Read-only file system" in done.stderr


def test_the_host_is_not_restricted():
    """The probe is not blind: run directly as root, it sees what the simulation removes."""
    if os.geteuid() != 0:
        pytest.skip("the host comparison needs a root test run")
    facts = probe("host")
    assert facts["cap_sys_admin_effective"] and facts["status"]["Seccomp"] == "0"
    assert facts["unshare_user"] == "ok" and facts["mount_tmpfs"] == "ok"


def test_ordinary_program_runs_and_its_status_comes_back():
    if reason := container_available():
        pytest.skip(reason)
    code = ("import json, subprocess, sys, tempfile, threading\n"
            "t = threading.Thread(target=print, args=('thread',)); t.start(); t.join()\n"
            "out = subprocess.run(['/bin/echo', 'child'], capture_output=True, text=True).stdout\n"
            "with tempfile.TemporaryFile() as f: f.write(b'x')\n"
            "print(json.dumps(sorted({'b': 2, 'a': 1})), out.strip())\n"
            "sys.exit(3)\n")
    done = run_in_container([sys.executable, "-I", "-c", code], capture_output=True, text=True,
                            timeout=60)
    assert done.returncode == 3, done.stderr
    assert done.stdout.splitlines() == ["thread", '["a", "b"] child']


def test_refuses_without_root():
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or not setpriv or not os.access("/usr/bin/python3", os.X_OK):
        pytest.skip("needs root, setpriv and /usr/bin/python3")
    launcher = str(container_launch.__file__)
    done = subprocess.run(
        [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--",
         "/usr/bin/python3", "-I", launcher, "--", "true"],
        capture_output=True, text=True, timeout=60, cwd="/")
    if "Permission denied" in done.stderr and "can't open file" in done.stderr:
        pytest.skip("the launcher is not readable by nobody here")
    assert done.returncode == container_launch.SETUP_FAILED
    assert "needs root" in done.stderr


def test_platform_env_fixture(platform_env):  # noqa: F811 - the imported fixture
    done = subprocess.run(
        platform_env([sys.executable, "-I", "-c",
                      "import os; print(os.getuid(), [l.split()[1] for l in "
                      "open('/proc/self/status') if l.startswith('CapEff')][0])"]),
        capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    uid, cap_eff = done.stdout.split()
    if platform_env.name.startswith("container"):
        assert (uid, int(cap_eff, 16)) == ("0", DOCKER_DEFAULT_CAPS)
    elif platform_env.name == "host-nobody":
        assert (uid, int(cap_eff, 16)) == ("65534", 0)
    else:
        assert uid == "0" and int(cap_eff, 16) >> CAP_SYS_ADMIN & 1
