"""The format registry: every format renders, deterministically, and never leaks a hidden check."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from format_fixtures import (
    empty_report,
    HIDDEN_SENTINELS,
    hostile_report,
    not_gradable_report,
    sample_report,
    with_durations,
)
from grader.report import FORMATS, HUMAN_FORMATS, ReportOptionsError, UnknownFormatError, render
from grader.report.redaction import public_view
from grader.package_data import templates_path

JSON_FORMATS = ("json", "gradescope", "prairielearn", "classroom")
MEASURED_KEYS = ("seconds", "execution_time")


def test_every_documented_format_is_registered():
    assert set(FORMATS) == {
        "text", "json", "gradescope", "prairielearn", "classroom", "junit", "markdown", "html",
    }
    assert set(HUMAN_FORMATS) < set(FORMATS)


def test_unknown_format_names_the_valid_ones():
    with pytest.raises(UnknownFormatError) as error:
        render(sample_report(), "pdf")
    assert "'pdf'" in str(error.value)
    for name in FORMATS:
        assert name in str(error.value)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("build", [sample_report, hostile_report, not_gradable_report, empty_report])
def test_rendering_twice_is_byte_identical(fmt, build):
    assert render(build(), fmt) == render(build(), fmt)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("build", [sample_report, hostile_report])
def test_hidden_checks_never_leak_their_case(fmt, build):
    report = build()
    careless = json.dumps(report.to_json())
    assert all(sentinel in careless for sentinel in HIDDEN_SENTINELS), "fixture must carry the sentinels"
    for options in (None, {"show_student_output": True, "hidden_visibility": "visible"}):
        rendered = render(report, fmt, exercise_options=options)
        leaked = [sentinel for sentinel in HIDDEN_SENTINELS if sentinel in rendered]
        assert not leaked, f"{fmt} shows {leaked}"


@pytest.mark.parametrize("fmt", FORMATS)
def test_hidden_checks_still_count_as_pass_or_fail(fmt):
    rendered = render(sample_report(), fmt)
    assert "hidden case 2" in rendered or fmt == "json"
    if fmt == "json":
        checks = json.loads(rendered)["milestones"][0]["checks"]
        hidden = [check for check in checks if check["visibility"] == "hidden"]
        assert [check["passed"] for check in hidden] == [True, False]
        assert all(check["details"] is None and check["diagnoses"] == [] for check in hidden)


def strip_measured(value):
    """The value without fields that hold measured durations (or the timing ratio)."""
    if isinstance(value, dict):
        timing = value.get("kind") == "timing"

        def measured(key: str) -> bool:
            return key in MEASURED_KEYS or key.endswith("_seconds") or (timing and key == "ratio")

        return {key: strip_measured(item) for key, item in value.items() if not measured(key)}
    if isinstance(value, list):
        return [strip_measured(item) for item in value]
    return value


@pytest.mark.parametrize("fmt", JSON_FORMATS)
def test_json_formats_differ_only_in_measured_fields(fmt):
    report, slower = sample_report(), with_durations(sample_report(), 3.7)
    assert report.to_json() != slower.to_json(), "the two gradings must really differ in their durations"
    first, second = json.loads(render(report, fmt)), json.loads(render(slower, fmt))
    assert strip_measured(first) == strip_measured(second)


def test_junit_differs_only_in_time_attributes():
    def without_times(document: str) -> str:
        root = ET.fromstring(document)
        for element in root.iter():
            element.attrib.pop("time", None)
        return ET.tostring(root, encoding="unicode")

    first = render(sample_report(), "junit")
    second = render(with_durations(sample_report(), 3.7), "junit")
    assert first != second
    assert without_times(first) == without_times(second)


@pytest.mark.parametrize("fmt", HUMAN_FORMATS)
def test_human_formats_differ_only_on_timing_lines(fmt):
    first = render(sample_report(), fmt).splitlines()
    second = render(with_durations(sample_report(), 3.7), fmt).splitlines()
    assert len(first) == len(second)
    changed = [(a, b) for a, b in zip(first, second) if a != b]
    assert changed, "the timing figures must be shown"
    assert all(("time" in a.lower() or "ratio" in a.lower()) for a, _ in changed), changed


def test_json_format_is_the_public_contract_in_contract_order():
    report = sample_report()
    rendered = render(report, "json")
    data = json.loads(rendered)
    assert data == public_view(report).to_json()
    # No "seconds": the grading's total time would include its hidden checks'.
    assert list(data) == [
        "exercise", "title", "score", "max_score", "milestones", "errors", "sandbox_layers",
    ]
    assert rendered.startswith('{\n  "exercise"')
    assert data["score"] == 40.0 and data["max_score"] == 100.0


def test_public_view_leaves_the_original_report_untouched():
    report = sample_report()
    public_view(report)
    assert "SENTINEL_HIDDEN_MESSAGE" in report.milestones[0].checks[2].message


@pytest.mark.parametrize(
    "options, fragment",
    [
        ({"hidden_visibility": "later"}, "hidden_visibility"),
        ({"visibility": 3}, "visibility"),
        ({"show_student_output": "yes"}, "show_student_output"),
        ({"student_output_limit": -1}, "student_output_limit"),
        ({"hidden_visibilty": "hidden"}, "unknown report option"),
        (["hidden"], "mapping"),
    ],
)
def test_bad_exercise_options_get_an_actionable_error(options, fragment):
    with pytest.raises(ReportOptionsError) as error:
        render(sample_report(), "gradescope", exercise_options=options)
    assert fragment in str(error.value)


def test_templates_are_found_from_the_checkout():
    folder = templates_path()
    assert (folder / "report.html.j2").is_file()
    assert (folder / "report.md.j2").is_file()
    assert (folder / "classroom" / "classroom.yml.j2").is_file()


def test_a_timing_shows_the_other_clock_beside_the_one_charged():
    from grader.report.details import evidence

    details = {"kind": "timing", "clock": "wall", "student_seconds": 0.5,
               "reference_seconds": 0.25, "student_cpu_seconds": 0.9,
               "reference_cpu_seconds": 0.24, "student_wall_seconds": 0.5,
               "reference_wall_seconds": 0.25, "limit_ratio": 4, "limit_seconds": 10}
    fields = dict(evidence(details).fields)
    assert fields["Your time"] == "0.500 s wall (0.900 s CPU)"
    assert fields["Reference time"] == "0.250 s wall (0.240 s CPU)"
    assert fields["Ratio"] == "2.0x the reference"
    without = dict(evidence({"kind": "timing", "student_seconds": 0.5,
                             "reference_seconds": 0.25}).fields)
    assert without["Your time"] == "0.500 s"
