"""A pytest plug-in that counts what a run of the suite proved: per test, its outcome, how many
``assert`` statements passed while it ran (its fixtures' included) and which environments it
ran commands in (host as root or as ``nobody``, the simulated container, the cgroup-v2-only
container, the cgroup-v2-only VM). ``bench/suite.py`` loads it only when it measures:

    python -m pytest -p tests.support.suite_census -o enable_assertion_pass_hook=true

Each test process (every xdist worker) writes ``census-<worker>.json`` into the folder named
by ``SUITE_CENSUS_DIR``; the bench script adds them up.

Assertions are counted where pytest's assertion rewriting, with the pass hook enabled
(``enable_assertion_pass_hook``), asks whether anyone listens to a passed assertion: that
question is asked once per ``assert`` that passed, so answering it also counts it. The answer
is no, so pytest does not format an explanation of every passing assertion for a
``pytest_assertion_pass`` hook (which tripled the CPU time of assertion-heavy tests). Only
the suite's own assertions count: those of rewritten modules under ``tests/`` (the test
modules, conftest files and, registered here, ``tests/support``); pytest also rewrites the
plug-ins it loads, Hypothesis among them, whose internal assertions pass by the million. Modules rewritten with the hook are cached apart from the ordinary
rewritten ones, since pytest does not tell the two kinds of cached module apart.
"""

from __future__ import annotations

import collections
import json
import os
import sys
from pathlib import Path

import pytest
from _pytest.assertion import rewrite

CENSUS_DIR = os.environ.get("SUITE_CENSUS_DIR")
HOOK_PYCACHE = Path(os.environ.get("SUITE_CENSUS_PYCACHE") or "/tmp/suite-census-pycache")

PASSED: collections.Counter[str] = collections.Counter()
"""Passed assertions per test node id (or ``OUTSIDE``)."""
OUTSIDE = "<outside any test>"
_current = [OUTSIDE]


TESTS = str(Path(__file__).resolve().parents[1]) + os.sep


def _count_a_passed_assertion() -> bool:
    if sys._getframe(1).f_code.co_filename.startswith(TESTS):
        PASSED[_current[0]] += 1
    return False  # no explanation to format: nobody reads it


if CENSUS_DIR:
    pytest.register_assert_rewrite("support")

    def _hook_cache_dir(file_path: Path) -> Path:
        return HOOK_PYCACHE / Path(*file_path.parts[1:-1])

    rewrite.get_cache_dir = _hook_cache_dir
    rewrite._check_if_assertion_pass_impl = _count_a_passed_assertion


class Census:
    """What this process saw, test by test."""

    def __init__(self) -> None:
        self.envs: dict[str, set[str]] = collections.defaultdict(set)
        self.outcomes: dict[str, str] = {}
        self.ran = False

    # hooks
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item):
        self.ran = True
        _current[0] = item.nodeid
        callspec = getattr(item, "callspec", None)
        if callspec is not None and "platform_env" in callspec.params:
            self.envs[item.nodeid].add(str(callspec.params["platform_env"]))
        yield
        _current[0] = OUTSIDE

    def pytest_runtest_logreport(self, report) -> None:
        if not self.ran:
            return
        before = self.outcomes.get(report.nodeid, "passed")
        if report.failed or before == "failed":
            self.outcomes[report.nodeid] = "failed"
        elif report.skipped:
            self.outcomes[report.nodeid] = "skipped"
        else:
            self.outcomes[report.nodeid] = before

    def pytest_sessionfinish(self, session) -> None:
        if not self.ran or not CENSUS_DIR:
            return
        worker = getattr(session.config, "workerinput", {}).get("workerid", "main")
        tests = {nodeid: {"outcome": outcome, "asserts": PASSED.get(nodeid, 0),
                          "envs": sorted(self.envs.get(nodeid, ()))}
                 for nodeid, outcome in self.outcomes.items()}
        extra = {key: value for key, value in PASSED.items() if key not in tests}
        Path(CENSUS_DIR, f"census-{worker}.json").write_text(
            json.dumps({"tests": tests, "asserts_outside_tests": extra}))

    # environments
    def environment_used(self, name: str) -> None:
        self.envs[_current[0]].add(name)


def _record(census: Census, module, name: str, environment) -> None:
    """Wrap ``module.name`` so each call records the environment it runs a command in."""
    original = getattr(module, name)

    def recorded(*args, **kwargs):
        census.environment_used(environment(*args, **kwargs))
        return original(*args, **kwargs)

    recorded.__wrapped__ = original
    setattr(module, name, recorded)


def pytest_configure(config) -> None:
    census = Census()
    config.pluginmanager.register(census, "suite-census")
    try:  # the support package is importable once the tests' conftest is loaded
        import support.cgroup_v2_vm as vm
        import support.container as container
    except ImportError:
        return
    in_container = lambda *a, cgroup_v2_only=False, **k: (  # noqa: E731
        "container-cgroup-v2" if cgroup_v2_only else "container")
    _record(census, container, "container_command", in_container)
    _record(census, container, "run_in_container", in_container)
    _record(census, vm, "run_in_vm", lambda *a, **k: "vm-cgroup-v2")
