"""A class graded on a real (single-node) Slurm cluster with the scripts in ``docs/slurm``: a
job array of ``grade batch --shard slurm`` tasks, then the dependent merge job, give the
grades one machine gives."""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.batch.sharding import Shard, ShardError
from support.slurm import slurm_cluster, slurm_unavailable

REPOSITORY = Path(__file__).resolve().parents[2]
SCRIPTS = REPOSITORY / "docs" / "slurm"
GRADE = str(Path(sys.executable).with_name("grade"))
EXAMPLES = REPOSITORY / "examples" / "bpe-train-encode"
SUBMISSIONS = REPOSITORY / "tests" / "submissions"
CLASS = {"ada": EXAMPLES / "student_correct.py", "bob": EXAMPLES / "student_wrong.py",
         "cy": SUBMISSIONS / "wrong_tie_first_seen.py", "di": SUBMISSIONS / "broken_syntax.py",
         "ed": SUBMISSIONS / "correct_heap.py"}
QUICK_SPEC = (REPOSITORY / "tests" / "specs" / "valid-minimal.yaml").read_text() + (
    "limits:\n  call_seconds: 1.0\n  memory_mib: 192\n  total_seconds: 10\n"
    "properties:\n  examples: 4\n")


def grades(folder: Path) -> dict[str, list[str]]:
    with (folder / "grades.csv").open(newline="") as handle:
        return {row[0]: row[1:] for row in csv.reader(handle)}


def test_a_job_array_then_a_merge_job_grade_the_class_as_one_machine_does(tmp_path):
    reason = slurm_unavailable()
    if reason:
        pytest.skip(reason)
    folder = tmp_path / "class"
    folder.mkdir()
    for student, source in CLASS.items():
        shutil.copyfile(source, folder / f"{student}.py")
    spec = tmp_path / "valid-minimal.yaml"
    spec.write_text(QUICK_SPEC)
    alone = subprocess.run([GRADE, "batch", str(folder), "-o", str(tmp_path / "alone"),
                            "--exercise", str(spec), "--no-progress"],
                           capture_output=True, text=True, timeout=300)
    assert alone.returncode == 0, alone.stderr[-2000:]

    with slurm_cluster(tmp_path / "slurm") as environ:
        environ = {**environ, "GRADE": GRADE}
        out = tmp_path / "out"
        done = subprocess.run(["sh", str(SCRIPTS / "submit.sh"), str(folder), str(out), "3",
                               "--exercise", str(spec)],
                              capture_output=True, text=True, timeout=60, env=environ)
        assert done.returncode == 0, done.stderr
        array, merge = done.stdout.split()
        deadline = time.monotonic() + 240
        while True:
            queued = subprocess.run(["squeue", "-h", "-o", "%i %T %r", "-j", f"{array},{merge}"],
                                    capture_output=True, text=True, env=environ).stdout
            if not queued.strip():
                break
            assert "DependencyNeverSatisfied" not in queued, _logs(out)
            assert time.monotonic() < deadline, (queued, _logs(out))
            time.sleep(0.5)

    shards = sorted(path.name for path in out.glob("shard-*"))
    assert shards == ["shard-1", "shard-2", "shard-3"], _logs(out)
    assert (out / "class" / "grades.csv").is_file(), _logs(out)
    merged, whole = grades(out / "class"), grades(tmp_path / "alone")
    assert merged == whole and set(merged) == {"student", *CLASS}
    assert (out / "class" / "class-report.html").is_file()


def _logs(out: Path) -> str:
    return "".join(f"--- {path.name}\n{path.read_text(errors='replace')[-1500:]}"
                   for path in sorted(out.glob("slurm-*.out")))


def test_the_shipped_scripts_refuse_a_call_without_its_arguments(tmp_path):
    done = subprocess.run(["sh", str(SCRIPTS / "submit.sh"), str(tmp_path)],
                          capture_output=True, text=True, timeout=30,
                          env={**os.environ, "PATH": "/usr/bin:/bin"})
    assert done.returncode == 2 and done.stderr.startswith("usage: sh submit.sh")


ARRAY = {"SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "4", "SLURM_ARRAY_TASK_COUNT": "4"}


@pytest.mark.parametrize("environ, shard", [
    ({**ARRAY, "SLURM_ARRAY_TASK_ID": "1"}, "1/4"),
    ({**ARRAY, "SLURM_ARRAY_TASK_ID": "4"}, "4/4"),
    ({"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "2",
      "SLURM_ARRAY_TASK_COUNT": "3"}, "1/3"),
    ({"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "7",
      "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "4"}, "3/4"),
])
def test_the_shard_is_read_from_the_array_task(environ, shard):
    assert str(Shard.parse("slurm", environ)) == shard


@pytest.mark.parametrize("environ, words", [
    ({}, "run it in a job array"),
    ({**ARRAY, "SLURM_ARRAY_TASK_ID": "x"}, "not numbers"),
    ({"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "7",
      "SLURM_ARRAY_TASK_COUNT": "3"}, "a list of task ids cannot be numbered"),
])
def test_outside_a_range_array_the_reason_is_given(environ, words):
    with pytest.raises(ShardError, match=words):
        Shard.parse("slurm", environ)


def test_the_command_line_says_so_outside_an_array(tmp_path):
    environ = {name: value for name, value in os.environ.items()
               if not name.startswith("SLURM_")}
    done = subprocess.run([GRADE, "batch", str(tmp_path), "-o", str(tmp_path / "out"),
                           "--shard", "slurm"], capture_output=True, text=True, timeout=60,
                          env=environ)
    assert done.returncode == 2
    assert "--shard slurm needs the variables of a Slurm job array" in done.stderr
    assert "Traceback" not in done.stderr
