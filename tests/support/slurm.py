"""A single-node Slurm cluster on localhost for the tests: ``munged`` (reused if one runs),
``slurmctld`` and ``slurmd`` with a configuration of their own (private ports, state and
spool directories, no cgroups, no accounting; the node's CPUs may run up to four jobs each, so
a job array's tasks all start at once on a small machine), gone when the context ends.

    with slurm_cluster(tmp_path) as environ:   # environ: os.environ plus SLURM_CONF
        subprocess.run(["sbatch", ...], env=environ)

:func:`slurm_unavailable` says why a test must skip (not root, Debian's ``slurm-wlm`` and
``munge`` not installed); ``.ci/run`` installs them.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Iterator

DAEMONS = ("slurmctld", "slurmd", "munged", "sbatch", "sinfo", "runuser")
CONFIG = """\
ClusterName=bpe-test
SlurmctldHost={host}(127.0.0.1)
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SlurmUser=root
SlurmdUser=root
StateSaveLocation={place}/state
SlurmdSpoolDir={place}/spool
SlurmctldPidFile={place}/slurmctld.pid
SlurmdPidFile={place}/slurmd.pid
SlurmctldLogFile={place}/slurmctld.log
SlurmdLogFile={place}/slurmd.log
SlurmctldPort={controller_port}
SlurmdPort={node_port}
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
"""


def slurm_unavailable() -> str | None:
    """None when a cluster can be started here, else the reason to skip."""
    if os.geteuid() != 0:
        return "a Slurm cluster needs a root test run"
    missing = [name for name in DAEMONS if not _which(name)]
    if missing:
        return (f"Slurm is not installed ({', '.join(missing)} missing): apt-get install "
                "slurm-wlm munge")
    return None


@contextlib.contextmanager
def slurm_cluster(place: Path) -> Iterator[dict[str, str]]:
    """Start the cluster in ``place`` (a fresh directory); yield the environment to use it."""
    for name in ("state", "spool"):
        (place / name).mkdir(parents=True, exist_ok=True)
    host = socket.gethostname().split(".")[0]
    conf = place / "slurm.conf"
    conf.write_text(CONFIG.format(host=host, place=place, controller_port=_free_port(),
                                  node_port=_free_port(), cpus=os.cpu_count() or 1))
    environ = {**os.environ, "SLURM_CONF": str(conf)}
    _ensure_munge()
    daemons = [subprocess.Popen([_which(name), "-D", "-f", str(conf)], env=environ,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
               for name in ("slurmctld", "slurmd")]
    try:
        _wait_for_idle_node(environ, place)
        yield environ
    finally:
        for daemon in daemons:
            daemon.terminate()
        for daemon in daemons:
            try:
                daemon.wait(timeout=10)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait()


def _which(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _ensure_munge() -> None:
    """munged running as the munge user with Debian's key; started if it is not."""
    if subprocess.run(["munge", "-n"], capture_output=True).returncode == 0:
        return
    for directory in ("/run/munge", "/var/log/munge", "/var/lib/munge"):
        os.makedirs(directory, exist_ok=True)
        shutil.chown(directory, "munge", "munge")
    subprocess.run([_which("runuser"), "-u", "munge", "--", _which("munged")], check=True,
                   capture_output=True, timeout=30)
    deadline = time.monotonic() + 10
    while subprocess.run(["munge", "-n"], capture_output=True).returncode != 0:
        if time.monotonic() > deadline:
            raise RuntimeError("munged did not start")
        time.sleep(0.1)


def _wait_for_idle_node(environ: dict[str, str], place: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True,
                              env=environ)
        if done.returncode == 0 and done.stdout.strip() == "idle":
            return
        time.sleep(0.2)
    logs = "".join(path.read_text(errors="replace")[-1500:]
                   for path in place.glob("*.log"))
    raise RuntimeError(f"the Slurm node did not come up: {logs}")
