"""What ``grade check`` verifies of a Unigram spec: the segmentations and log-likelihoods an
author wrote, against :mod:`reference.unigram` (the log-likelihood within the tolerance).

Every other expected value (the EM step's model, the pieces pruning keeps) is computed.
"""

from __future__ import annotations

from typing import Any

from grader.families.unigram.expected import LIKELIHOOD, SEGMENT, close, expected, tolerance
from grader.families.unigram.judges import case_inputs, serves
from grader.families.api import Verification, in_file_order


def verify(exercise: Any) -> Verification:
    report = Verification()
    for index, case in enumerate(exercise.cases):
        for role in exercise.roles():
            if not serves(role)(case):
                continue
            written = {SEGMENT: case.segmentation, LIKELIHOOD: case.log_likelihood}.get(role)
            if written is None:
                report.computed += 1
                continue
            report.verified += 1
            right = expected(role, case_inputs(role, case))
            if role == SEGMENT and written != right:
                report.problems.append(exercise.problem(("cases", index, "segmentation"), (
                    f"the Viterbi segmentation of {case.text!r} is {right!r}, not {written!r}")))
            if role == LIKELIHOOD and not close(written, right, tolerance(exercise)):
                report.problems.append(exercise.problem(("cases", index, "log_likelihood"), (
                    f"the log-likelihood of {case.text!r} is {right!r}, not {written!r}")))
    report.problems = in_file_order(report.problems)
    return report
