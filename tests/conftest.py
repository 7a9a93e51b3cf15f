"""Shared pytest set-up: Hypothesis runs derandomized with no example database, so every run
of the suite explores the same examples and needs nothing from earlier runs; gradings use a
pinned seed secret (never the user's own), so generated inputs are the same on every run; the
cache of prepared work starts empty in every run."""

import os
import tempfile

import pytest
from hypothesis import HealthCheck, settings

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


LONGEST_FIRST = (
    "tests/mistakes/test_mistaken_students.py",  # one module fixture audits every exercise
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


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(session, config, items):
    """Tests behind the longest fixtures run first, so parallel workers do not end the run
    with one of them still working alone (the order is the same in every worker); the tests
    of each ``ONE_PROCESS`` module form one group."""
    items.sort(key=lambda item: not item.nodeid.startswith(LONGEST_FIRST))
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        if module in ONE_PROCESS and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(module))
