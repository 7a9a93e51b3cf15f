"""Shared pytest set-up: Hypothesis runs derandomized with no example database, so every run
of the suite explores the same examples and needs nothing from earlier runs."""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "deterministic",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("deterministic")
