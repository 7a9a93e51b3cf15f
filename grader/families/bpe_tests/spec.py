"""The spec of a test-writing exercise: students hand in tests of a BPE, not a BPE.

The student's file holds ``test_*`` functions that import ``train_bpe`` and ``encode`` from the
module the spec names (``tests.module``). Each milestone is graded by one check of the
family's own: ``valid`` (each test holds on the correct BPE, deterministically, and asserts
something) or ``catches`` (the share of the named groups' catalogued mistakes that the valid
tests catch, :mod:`grader.families.bpe_tests.groups`).
"""

from __future__ import annotations

from typing import Literal, Optional

from grader.families.api import ConfigDict, Exercise, Field, Milestone, SpecModel
from grader.families.bpe_tests.groups import GROUP_IDS


class TestSettings(SpecModel):
    """How the student's test file is read and run."""

    module: str = Field(default="bpe", pattern=r"^[a-z_][a-z0-9_]*$")
    """The module the tests import train_bpe and encode from (served by the grader)."""
    max_tests: int = Field(default=25, ge=1, le=100)
    """The most test functions of a file that are run; the others are not graded."""
    max_file_bytes: int = Field(default=65536, gt=0)
    """The largest test file graded, in bytes."""


class TestsMilestone(Milestone):
    """A graded step of a test file: its tests' validity, or the mistakes of some groups."""

    groups: list[Literal[GROUP_IDS]] = Field(default_factory=list)  # type: ignore[valid-type]
    """The groups of catalogued mistakes a catches check grades (ties, counting, ...)."""


class BpeTestsExercise(Exercise):
    """Students write tests of character BPE; graded by the known mistakes the tests catch."""

    model_config = ConfigDict(title="bpe_tests exercise (a test file for character BPE)")

    family: Literal["bpe_tests"] = "bpe_tests"
    """The family: bpe_tests (students hand in tests of train_bpe and encode)."""
    kind: Optional[Literal["tests"]] = None
    """Older name of this family: tests."""
    tests: TestSettings = TestSettings.model_construct()
    """How the test file is read and run."""
    milestones: list[TestsMilestone] = Field(min_length=1)  # type: ignore[assignment]
    """Graded steps: valid (the tests themselves) and catches (groups of mistakes)."""
