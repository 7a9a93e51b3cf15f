"""``--format json``: the contract in docs/architecture.md ("The JSON result"), in contract key order, indented."""

from __future__ import annotations

import json

from grader.report.options import ReportOptions
from grader.result import GradeReport


def render_json(report: GradeReport, options: ReportOptions) -> str:
    return json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n"
