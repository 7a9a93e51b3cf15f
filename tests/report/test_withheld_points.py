"""When a milestone's passed checks earn nothing (no evidence of work), the line that sums them
up says why in every human format, without ``--verbose``."""

from __future__ import annotations

import re

import pytest

from grader.grading.engine import grade_submission
from grader.report import render

DO_NOTHING = '''# exercise: bpe-train-encode
def train_bpe(corpus, num_merges):
    return []


def encode(word, merges):
    return list(word) + ["</w>"]
'''


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    path = tmp_path_factory.mktemp("nothing") / "student.py"
    path.write_text(DO_NOTHING)
    return grade_submission(path, "bpe-train-encode", seed_secret="withheld")


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_passed_checks_that_earn_nothing_say_why(report, fmt):
    lines = [re.sub(r"\s{2,}[\d.]+(/[\d.]+)?$", "", line)  # the points at the right margin
             for line in render(report, fmt).replace("\\_", "_").splitlines()]
    shown = re.sub(r"\s+", " ", " ".join(lines))
    assert re.search(r"\d+ checks passed( \(\d+ hidden\))?; no points until train_bpe\(\) gets "
                     r"right a case or generated input whose right merges are not an empty list",
                     shown)
    assert re.search(r"\d+ checks passed( \(\d+ hidden\))?; no points until encode\(\) gets right",
                     shown)


def test_the_text_summary_line_keeps_its_points_on_the_first_line(report):
    lines = render(report, "text").splitlines()
    first = next(line for line in lines if "checks passed" in line and "no points" in line)
    assert first.rstrip().endswith(" 0") and len(first) <= 72
