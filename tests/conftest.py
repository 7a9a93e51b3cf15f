"""Shared pytest set-up: Hypothesis runs derandomized with no example database, so every run
of the suite explores the same examples and needs nothing from earlier runs; gradings use a
pinned seed secret (never the user's own), so generated inputs are the same on every run; the
cache of prepared work starts empty in every run."""

import os
import tempfile

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


def pytest_collection_modifyitems(session, config, items):
    """Tests behind the longest fixtures run first, so parallel workers do not end the run
    with one of them still working alone (the order is the same in every worker)."""
    items.sort(key=lambda item: not item.nodeid.startswith(LONGEST_FIRST))
