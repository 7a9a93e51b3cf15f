"""JUnit XML (the xunit2 flavour CI servers read): a testsuite per milestone, a testcase per check.

Testcase names never change with the score (CI servers such as GitLab track a test by its
name): a check's points are in the testcase's ``<properties>`` (``score``, ``max_score``) and
on the first line of a failure's body. A failed check carries a ``<failure>`` whose
``message`` is the first feedback line and whose body is the points and the whole feedback. Submission-level problems form an extra ``submission`` suite of ``<error>``
cases. The document is built with ``xml.etree`` (which escapes markup) from text that has
had XML-illegal characters removed, so it is well-formed whatever the student's code did.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from grader.report.feedback import check_feedback
from grader.report.options import ReportOptions
from grader.report.safety import safe_text
from grader.report.summary import points
from grader.result import CheckResult, GradeReport, MilestoneResult, display_error

BODY_LIMIT = 16_000
ATTRIBUTE_LIMIT = 500


def render_junit(report: GradeReport, options: ReportOptions) -> str:
    root = ET.Element("testsuites", {"name": attribute(report.exercise)})
    suites = [notes_suite(report)] if report.notes else []
    suites += [milestone_suite(report, milestone) for milestone in report.milestones]
    if report.errors:
        suites.append(errors_suite(report))
    root.extend(suites)
    for key in ("tests", "failures", "errors"):
        root.set(key, str(sum(int(suite.get(key, "0")) for suite in suites)))
    seconds = [check.seconds for check in report.checks if check.seconds is not None]
    if seconds:
        root.set("time", duration(sum(seconds)))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def attribute(text: str) -> str:
    return safe_text(text, ATTRIBUTE_LIMIT)


def duration(seconds: float) -> str:
    return f"{seconds:.3f}"


def milestone_suite(report: GradeReport, milestone: MilestoneResult) -> ET.Element:
    failures = sum(not check.passed for check in milestone.checks)
    suite = ET.Element(
        "testsuite",
        {
            "name": attribute(f"{milestone.title} [{milestone.id}]"),
            "tests": str(len(milestone.checks)),
            "failures": str(failures),
            "errors": "0",
            "skipped": "0",
        },
    )
    seconds = [check.seconds for check in milestone.checks if check.seconds is not None]
    if seconds:
        suite.set("time", duration(sum(seconds)))
    names = case_names(milestone)
    suite.extend(testcase(report, milestone, check, name) for check, name in zip(milestone.checks, names))
    return suite


def case_names(milestone: MilestoneResult) -> list[str]:
    """One stable name per check: its title (or id), numbered when a title repeats."""
    labels = []
    for check in milestone.checks:
        label = check.title or check.id
        labels.append(label + " (hidden)" if check.visibility == "hidden" else label)
    names, seen = [], {}
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        names.append(label if labels.count(label) == 1 else f"{label} #{seen[label]}")
    return names


def testcase(report: GradeReport, milestone: MilestoneResult, check: CheckResult,
             name: str) -> ET.Element:
    case = ET.Element(
        "testcase",
        {"classname": attribute(f"{report.exercise}.{milestone.id}"), "name": attribute(name)},
    )
    if check.seconds is not None:
        case.set("time", duration(check.seconds))
    properties = ET.SubElement(case, "properties")
    for key, value in (("score", check.score), ("max_score", check.max_score)):
        ET.SubElement(properties, "property", {"name": key, "value": points(value)})
    if not check.passed:
        lines = check_feedback(check, include_measurements=False) or ["Failed."]
        failure = ET.SubElement(
            case, "failure", {"message": attribute(lines[0]), "type": failure_type(check)}
        )
        body = [f"Points: {points(check.score)}/{points(check.max_score)}", *lines]
        failure.text = safe_text("\n".join(body), BODY_LIMIT)
    return case


def failure_type(check: CheckResult) -> str:
    if check.visibility == "hidden":
        return "hidden-check"
    return attribute(check.diagnosis.id) if check.diagnosis else "check-failed"


def notes_suite(report: GradeReport) -> ET.Element:
    """How the submission was read and run, first: a suite of no tests, the notes its output."""
    suite = ET.Element("testsuite", {"name": "About your submission", "tests": "0",
                                     "failures": "0", "errors": "0", "skipped": "0"})
    ET.SubElement(suite, "system-out").text = safe_text("\n".join(report.notes), BODY_LIMIT)
    return suite


def errors_suite(report: GradeReport) -> ET.Element:
    suite = ET.Element(
        "testsuite",
        {"name": "submission", "tests": str(len(report.errors)), "failures": "0",
         "errors": str(len(report.errors)), "skipped": "0"},
    )
    for number, error in enumerate(report.errors, 1):
        text = safe_text(display_error(error), BODY_LIMIT)
        case = ET.SubElement(
            suite,
            "testcase",
            {"classname": attribute(f"{report.exercise}.submission"), "name": f"problem {number}"},
        )
        first_line = text.splitlines()[0] if text else "Submission problem"
        error_element = ET.SubElement(case, "error", {"message": attribute(first_line), "type": "submission"})
        error_element.text = text
    return suite
