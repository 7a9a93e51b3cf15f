"""Shared pytest set-up: Hypothesis runs derandomized with no example database, so every run
of the suite explores the same examples and needs nothing from earlier runs; gradings use a
pinned seed secret (never the user's own), so generated inputs are the same on every run; the
cache of prepared work starts empty in every run. The grader's modules are compiled once, before
the workers start, so the hundreds of processes the tests run read their bytecode instead of
each compiling them again (where ``PYTHONDONTWRITEBYTECODE`` is set, no process writes it); for
the same reason the workers keep pytest's rewritten test modules, as pytest does by default,
even there, so the next run's workers read them instead of rewriting every module."""

import compileall
import os
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from support.gradescope_root import gradescope_root  # noqa: F401 - one per test process

TEST_SEED_SECRET = "bpe-autograder test suite"
os.environ["GRADE_SEED_SECRET"] = TEST_SEED_SECRET
os.environ.pop("GRADE_SEED_SECRET_FILE", None)
# Prepared work is cached for this run only (shared by its workers and the commands it runs),
# never in the user's own cache; tests of the cache choose their own folder.
os.environ.setdefault("GRADE_CACHE_DIR", tempfile.mkdtemp(prefix="grade-cache-"))

settings.register_profile(
    "deterministic",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("deterministic")


# The units of work (an xdist group, or one test) that take longest, longest first (as measured
# by ``--durations`` on a loaded 2-core machine): ``--dist loadgroup --no-loadscope-reorder``
# hands units to the workers in collection order, so these start first and the run does not
# end with one of them still working alone while the other worker idles. Each entry is a group
# name or the start of a node id.
LONGEST_FIRST = (
    "tests/bundles/test_bundle_hosts.py",  # bundles set up in a container
    # every hostile case graded by one process per environment (test_sandbox_platforms.py)
    "platforms-in-sequence-container-cgroup-v2",
    "platforms-in-sequence-container",
    "platforms-in-sequence-host-nobody",
    "audit-byte-bpe",  # one audit per exercise (support/audits.py) and the tests reading it
    "tests/bundles/test_bundle_classroom.py",
    "audit-unigram-lm",
    "audit-lesson97-bpe",
    "tests/bundles/test_bundle_gradescope.py",
    "tests/report/test_report_side_channels.py",
    "tests/commands/test_cli_authoring.py::test_works_from_a_non_editable_install",
    "tests/families/byte_level/test_byte_exercise.py",
    "audit-bpe-steps",
    "tests/batch/test_batch_similarity.py::test_three_files_at_the_size_cap",
    "audit-bpe-train-encode",
    "tests/sandbox/test_sandbox_platforms.py::test_a_process_pool_trainer",
    "vocab-tradeoff-audit",
    "tests/batch/test_batch_cli.py::test_an_interrupted_batch",
    "audit-wordpiece",
    "tests/batch/test_batch_slurm.py",
    "tests/sandbox/test_sandbox_cgroup_v2_vm.py",  # boots a VM
    "tests/families/bpe/test_merging.py::test_each_merge_mistake",
)


# Modules whose module fixtures take seconds (a bundle set up in a container, a grading of
# megabytes of answers): each runs in one test process (--dist loadgroup), so its fixtures
# are set up once rather than once per process.
ONE_PROCESS = (
    "tests/report/test_report_side_channels.py",
    "tests/bundles/test_bundle_hosts.py",
    "tests/bundles/test_bundle_classroom.py",
    "tests/bundles/test_bundle_gradescope.py",
    "tests/families/byte_level/test_byte_exercise.py",
    "tests/notebook/test_check_in_kernel.py",
    "tests/report/test_step_view_browser.py",
)
# Module fixtures that grade (or build) something, by module: the tests using them run in one
# test process, so each is set up once; the module's other tests still spread over processes.
SHARED_FIXTURES = {
    "tests/batch/test_batch_regrade.py": ("graded", "regraded"),
    "tests/batch/test_batch_run.py": ("graded_class",),
    "tests/bundles/test_bundle_prairielearn.py": ("question",),
    "tests/commands/test_cli_submit.py": ("correct_json",),
    "tests/families/bpe/test_efficiency.py": ("counter_result",),
    "tests/families/bpe/test_truth_check.py": ("reports",),
    "tests/families/bpe_tests/test_bpe_tests_exercise.py": ("audit",),
    "tests/families/byte_level/test_byte_case_pair_table.py": ("checks",),
    "tests/families/byte_level/test_byte_tie_order.py": ("report",),
    "tests/families/byte_level/test_byte_truth_check.py": ("reports",),
    "tests/families/unigram/test_unigram_real_code.py": ("exp_underflow_report",),
    "tests/families/unigram/test_unigram_signals.py": ("report",),
    "tests/families/wordpiece/test_wordpiece_near_ties.py": ("reports",),
    "tests/grading/test_crash_never_beats_an_answer.py": ("unknown_characters",),
    "tests/grading/test_grading_engine.py": ("noisy_report",),
    "tests/grading/test_grading_feedback.py": ("tie_report", "tie_report_all_public"),
    "tests/grading/test_milestone_naming.py": ("follow_through_report",),
    "tests/reference/test_byte_level_reference.py": ("trained",),
    "tests/report/test_withheld_points.py": ("report",),
    "tests/spec/test_notebook_stub.py": ("written",),
}


REPOSITORY = Path(__file__).resolve().parents[1]
COMPILED_ONCE = ("grader", "reference", "tests/support")
_DONT_WRITE_BYTECODE = pytest.StashKey[bool]()


def pytest_configure(config):
    if hasattr(config, "workerinput"):
        # An xdist worker: the controller has compiled them. Pytest writes the test modules it
        # rewrites only when bytecode may be written: allowed while this worker collects.
        config.stash[_DONT_WRITE_BYTECODE] = sys.dont_write_bytecode
        sys.dont_write_bytecode = False
        return
    for folder in COMPILED_ONCE:
        compileall.compile_dir(REPOSITORY / folder, quiet=2)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(session, config, items):
    """The tests of each ``ONE_PROCESS`` module form one group, and so do the tests of a
    module using one of its ``SHARED_FIXTURES``; units in ``LONGEST_FIRST`` come first, in its
    order (the order is the same in every worker)."""
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        if item.get_closest_marker("xdist_group") is not None:
            continue
        if module in ONE_PROCESS or any(
                name in item.fixturenames for name in SHARED_FIXTURES.get(module, ())):
            item.add_marker(pytest.mark.xdist_group(module))
    items.sort(key=_rank)


def pytest_collection_finish(session):
    if _DONT_WRITE_BYTECODE in session.config.stash:
        sys.dont_write_bytecode = session.config.stash[_DONT_WRITE_BYTECODE]


def _group(item) -> str:
    marker = item.get_closest_marker("xdist_group")
    if marker is None:
        return ""
    return marker.args[0] if marker.args else marker.kwargs.get("name", "")


def _rank(item) -> int:
    group = _group(item)
    for rank, unit in enumerate(LONGEST_FIRST):
        if group == unit or item.nodeid.startswith(unit):
            return rank
    return len(LONGEST_FIRST)
