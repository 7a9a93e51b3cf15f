"""Benchmark of the test command: how long the suite takes and what it proves.

    python bench/suite.py                          # the README's test command, whole suite
    python bench/suite.py tests/mistakes -- -x     # a subset, with extra pytest options
    python bench/suite.py --save run.json          # keep the per-test figures
    python bench/suite.py --compare before.json    # and print where the assertions moved

Runs ``python -m pytest -q`` (the project's ``addopts``, so ``-n auto --dist loadgroup``)
with the census plug-in of ``tests/support/suite_census.py`` and prints:

- wall seconds, and CPU seconds (user + system) of every process the run waited for;
- the load average before and after, since the machine may be shared;
- tests passed, failed and skipped;
- assertions: how many ``assert`` statements passed at run time while a test ran (its
  fixtures included), added up over the workers; pytest's assertion rewriting runs with its
  pass hook enabled for this run only (``tests/support/suite_census.py`` says how they are
  counted cheaply); assertions passed while modules load are printed apart, since every
  worker loads them;
- the environments the platform tests ran commands in, with how many passing tests did.

With ``--compare`` it also prints, per test module, the assertion counts that changed.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
CENSUS = "tests.support.suite_census"


def run_suite(paths: list[str], extra: list[str]) -> dict:
    """Run the test command once; return the figures and the per-test census."""
    census_dir = tempfile.mkdtemp(prefix="suite-census-")
    argv = [sys.executable, "-m", "pytest", "-q", "-p", CENSUS,
            "-o", "enable_assertion_pass_hook=true", *extra, *paths]
    env = {**os.environ, "SUITE_CENSUS_DIR": census_dir}
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    returncode = subprocess.run(argv, cwd=REPOSITORY, env=env).returncode
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_after = Path("/proc/loadavg").read_text().split()[:3]
    tests: dict[str, dict] = {}
    outside = 0
    for path in sorted(Path(census_dir).glob("census-*.json")):
        part = json.loads(path.read_text())
        tests.update(part["tests"])
        outside += sum(part["asserts_outside_tests"].values())
    return {
        "argv": argv[1:],
        "returncode": returncode,
        "wall_s": round(wall, 1),
        "cpu_s": round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 1),
        "load_before": load_before,
        "load_after": load_after,
        "asserts_outside_tests": outside,
        "tests": tests,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{os.uname().nodename}, {os.cpu_count()} cores",
    }


def summary(run: dict) -> list[str]:
    tests = run["tests"]
    outcomes = collections.Counter(test["outcome"] for test in tests.values())
    asserts = sum(test["asserts"] for test in tests.values())
    environments = collections.Counter(
        env for test in tests.values() if test["outcome"] == "passed" for env in test["envs"])
    lines = [
        f"date          {run['date']} ({run['machine']})",
        f"wall          {run['wall_s']:.1f} s",
        f"CPU           {run['cpu_s']:.1f} s (user + system of the whole process tree)",
        f"load average  {' '.join(run['load_before'])} before, "
        f"{' '.join(run['load_after'])} after",
        f"tests         {outcomes['passed']} passed, {outcomes['failed']} failed, "
        f"{outcomes['skipped']} skipped ({len(tests)} in all)",
        f"assertions    {asserts} passed at run time in tests and their fixtures "
        f"(and {run['asserts_outside_tests']} while modules loaded, in every worker)",
        "environments  " + (", ".join(f"{env} ({count} tests)"
                                      for env, count in sorted(environments.items()))
                            or "none"),
    ]
    return lines


def by_module(run: dict) -> collections.Counter:
    counts: collections.Counter[str] = collections.Counter()
    for nodeid, test in run["tests"].items():
        counts[nodeid.split("::", 1)[0]] += test["asserts"]
    return counts


def compare(before: dict, after: dict) -> list[str]:
    old, new = by_module(before), by_module(after)
    lines = ["assertions by module, where they changed (before -> after):"]
    for module in sorted(set(old) | set(new)):
        if old[module] != new[module]:
            lines.append(f"  {module}: {old[module]} -> {new[module]} "
                         f"({new[module] - old[module]:+d})")
    old_envs = {env for t in before["tests"].values() if t["outcome"] == "passed"
                for env in t["envs"]}
    new_envs = {env for t in after["tests"].values() if t["outcome"] == "passed"
                for env in t["envs"]}
    lines.append(f"environments lost: {sorted(old_envs - new_envs) or 'none'}; "
                 f"gained: {sorted(new_envs - old_envs) or 'none'}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="test files or folders (default: the suite)")
    parser.add_argument("--save", type=Path, help="write the figures and the census as JSON")
    parser.add_argument("--compare", type=Path, help="a file written by --save to compare with")
    args, extra = parser.parse_known_args()
    extra = [arg for arg in extra if arg != "--"]
    run = run_suite(args.paths, extra)
    print("\n".join(summary(run)))
    if args.save:
        args.save.write_text(json.dumps(run, indent=1))
    if args.compare:
        print("\n".join(compare(json.loads(args.compare.read_text()), run)))
    return run["returncode"]


if __name__ == "__main__":
    sys.exit(main())
