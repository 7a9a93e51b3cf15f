"""A public training case that fails on a tie shows the pair table at the first differing
merge, as a generated input does and as character BPE's cases do: counted from the case's
text, bytes written as Python bytes literals. The file is graded once."""

from __future__ import annotations

import pytest

from grader.families.byte_level.students import student_source
from grader.grading.audit import exercise_without_efficiency
from grader.grading.engine import grade_submission
from grader.report.details import evidence
from grader.spec import load_exercise

EXERCISE = load_exercise("byte-bpe")
TIE_CASE = "cases:tie-to-the-greater-pair"


@pytest.fixture(scope="module")
def checks(tmp_path_factory):
    path = tmp_path_factory.mktemp("ties") / "student.py"
    path.write_text(student_source(EXERCISE, "byte-ties-smaller"), encoding="utf-8")
    report = grade_submission(path, exercise_without_efficiency(EXERCISE), helper=False)
    train = next(m for m in report.milestones if m.id == "train")
    return {check.id: check for check in train.checks}


def test_a_public_tie_case_shows_the_pair_counts_of_its_text(checks):
    check = checks[TIE_CASE]
    assert not check.passed and check.visibility == "visible"
    table = evidence(check.details).step_table
    assert table is not None and table.step == 1
    rows = {row.pair: (row.count, set(row.roles)) for row in table.rows}
    # 'ab cd': the three pairs within pre-tokens, once each; the rule keeps the greatest
    assert rows == {"(b'c', b'd')": ("1", {"expected", "tied"}),
                    "(b'a', b'b')": ("1", {"tied"}),
                    "(b' ', b'c')": ("1", {"actual", "tied"})}
    assert "greatest pair of bytes" in table.rule_text
    fields = dict(evidence(check.details).fields)
    assert "First difference" not in fields  # the table, not a dump of its data
    assert fields["Your merges"] == "[(b' ', b'c')]"


def test_every_failing_public_training_case_carries_a_table(checks):
    failed = [c for c in checks.values()
              if c.id.startswith("cases:") and c.visibility == "visible" and not c.passed]
    assert len(failed) >= 2
    assert all(evidence(c.details).step_table is not None for c in failed)
