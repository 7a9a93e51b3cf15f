"""Shared pytest set-up: Hypothesis runs derandomized with no example database, so every run
of the suite explores the same examples and needs nothing from earlier runs; gradings use a
pinned seed secret (never the user's own), so generated inputs are the same on every run."""

import os

from hypothesis import HealthCheck, settings

TEST_SEED_SECRET = "bpe-autograder test suite"
os.environ["GRADE_SEED_SECRET"] = TEST_SEED_SECRET
os.environ.pop("GRADE_SEED_SECRET_FILE", None)

settings.register_profile(
    "deterministic",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("deterministic")
