"""The class report for a synthetic class whose mistakes, failures and crashes are known;
checked on the parsed HTML, and rendered by headless Chromium when it is installed."""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from grader.report.class_report import ClassEntry, UnusableEntry, class_view, render_class_report
from grader.result import CheckResult, Diagnosis, GradeReport, MilestoneResult

TIES = Diagnosis("ties-first-seen", "Ties broken by the pair met first", "pick the smallest")
NO_MARKER = Diagnosis("no-end-of-word", "No end-of-word marker", "add </w>")
LONGEST = Diagnosis("encode-longest-match", "Encoded by greedy longest match", "apply merges")


def check(check_id: str, passed: bool, points: float, *, hidden: bool = False,
          diagnoses=(), message: str = "", details=None) -> CheckResult:
    return CheckResult(check_id, check_id, passed, points if passed else 0.0, points,
                       "hidden" if hidden else "visible", message or ("passed" if passed else "failed"),
                       list(diagnoses), details)


def student(train_ok: bool = True, encode_ok: bool = True, train_mistakes=(), encode_mistakes=(),
            hidden_ok: bool = False, ratio: float | None = 2.0, crash: str = "",
            not_gradable: bool = False) -> GradeReport:
    report = GradeReport("bpe-train-encode", "Byte-Pair Encoding")
    train = MilestoneResult("train", "Train the merges", max_score=50.0)
    train.checks = [
        check("cases:rank-order", train_ok, 20.0, diagnoses=train_mistakes,
              message=crash or ("passed" if train_ok else "merge 4 differs")),
        check("differential", train_ok, 20.0, diagnoses=train_mistakes),
        check("cases:hidden-1", hidden_ok, 10.0, hidden=True),
    ]
    encode = MilestoneResult("encode", "Encode", max_score=40.0)
    encode.checks = [check("cases:lower", encode_ok, 40.0, diagnoses=encode_mistakes)]
    efficiency = MilestoneResult("efficiency", "Efficiency", max_score=10.0)
    timing = {"kind": "timing", "student_seconds": None if ratio is None else ratio * 0.05,
              "reference_seconds": 0.05, "limit_ratio": 30.0}
    efficiency.checks = [check("efficiency", ratio is not None and ratio <= 30, 10.0,
                               details=timing)]
    report.milestones = [train, encode, efficiency]
    if not_gradable:
        report.mark_not_gradable("student.py could not be loaded: SyntaxError at line 3")
    return report


def missing_encode() -> GradeReport:
    """A student without encode(): the encode milestone ran nothing, under another check id."""
    report = student()
    message = "student.py does not define encode(); write def encode(word, merges):"
    report.errors.append(message)
    blocked = MilestoneResult("encode", "Encode", max_score=40.0)
    blocked.checks = [check("cases", False, 40.0, message=message)]
    report.milestones[1] = blocked
    return report


def synthetic_class() -> tuple[list[ClassEntry], list[UnusableEntry]]:
    entries = [
        ClassEntry("ann", student()),
        ClassEntry("ben", student(train_ok=False, train_mistakes=[TIES])),
        ClassEntry("cat", student(train_ok=False, train_mistakes=[TIES], encode_ok=False,
                                  encode_mistakes=[LONGEST], ratio=45.0)),
        ClassEntry("dan", student(train_ok=False, train_mistakes=[TIES, NO_MARKER])),
        ClassEntry("eve", student(train_ok=False, crash="train_bpe crashed with SIGSEGV",
                                  encode_ok=False, ratio=None)),
        ClassEntry("fay", student(train_ok=False, encode_ok=False, ratio=None,
                                  crash="train_bpe timed out after 2.0 s")),
        ClassEntry("gus", student(train_ok=False, encode_ok=False, ratio=None, not_gradable=True)),
        ClassEntry("hal", None, error="the grading process was killed by SIGKILL before reporting"),
        ClassEntry("ida", missing_encode()),
    ]
    unusable = [UnusableEntry("notes.txt", "not a Python file or notebook (.txt)"),
                UnusableEntry("ivy", "an empty folder: no .py or .ipynb file in it", "ivy")]
    return entries, unusable


def test_mistakes_are_ranked_by_how_many_students_made_them() -> None:
    view = class_view(*synthetic_class())
    [section] = view.sections
    ranking = [(row.id, row.students) for row in section.mistakes]
    assert ranking == [
        ("ties-first-seen", ["ben", "cat", "dan"]),
        ("encode-longest-match", ["cat"]),
        # dan's checks named two mistakes; both reproduce his output, so both are listed
        ("no-end-of-word", ["dan"]),
    ]
    assert section.mistakes[0].where == ["train.cases:rank-order", "train.differential"]


def test_checks_are_ranked_by_failure_rate_and_a_hidden_one_everyone_fails_is_flagged() -> None:
    [section] = class_view(*synthetic_class()).sections
    rows = {row.key: row for row in section.checks}
    # over the seven submissions that loaded (gus did not load, hal was not graded)
    assert (rows["train.cases:hidden-1"].failed, rows["train.cases:hidden-1"].total) == (7, 7)
    assert rows["train.cases:hidden-1"].suspect
    assert section.checks[0].key == "train.cases:hidden-1"
    assert (rows["train.differential"].failed, rows["train.differential"].total) == (5, 7)
    # ida's encode milestone checked nothing (no encode()): not counted as failing checks
    assert "encode.cases" not in rows
    assert (rows["encode.cases:lower"].failed, rows["encode.cases:lower"].total) == (3, 6)
    assert not rows["train.differential"].suspect  # visible checks are never flagged
    assert [row.key for row in section.checks if row.suspect] == ["train.cases:hidden-1"]
    assert [r.rate for r in section.checks] == sorted((r.rate for r in section.checks), reverse=True)


def test_efficiency_problems_and_distribution() -> None:
    view = class_view(*synthetic_class())
    [section] = view.sections
    ratios = {row.student: row.ratio for row in section.efficiency}
    assert ratios["ann"] == pytest.approx(2.0) and ratios["cat"] == pytest.approx(45.0)
    assert ratios["eve"] is None
    problems = [(row.kind, row.student) for row in view.problems]
    assert problems == [("grader error", "hal"), ("crashed", "eve"), ("timed out", "fay"),
                        ("not gradable", "gus"), ("unusable", "ivy"), ("unusable", "notes.txt")]
    assert (section.students, section.gradable, section.full_marks) == (8, 7, 0)
    assert [caption for caption, _ in section.charts] == [
        "Total", "Train the merges (train)", "Encode (encode)", "Efficiency (efficiency)"]


class Page(HTMLParser):
    """Collects what the structural checks look at."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.svgs = 0
        self.rects = 0
        self.external: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.svgs += tag == "svg"
        self.rects += tag == "rect"
        for name, value in attrs:
            if name in ("src", "href") and value and not value.startswith("#"):
                self.external.append(value)

    def handle_data(self, data):
        self.text.append(data)


def test_the_page_is_self_contained_and_escapes_student_text() -> None:
    entries, unusable = synthetic_class()
    entries.append(ClassEntry("<script>alert(1)</script>", student()))
    html = render_class_report(entries, unusable, title="CS 4xx: HW 3")
    page = Page()
    page.feed(html)
    assert "script" not in page.tags and page.external == []
    assert page.svgs == 5  # total, three milestones, efficiency ratios
    assert page.rects == 4 * 10 + 9
    text = " ".join(page.text)
    assert "<script>alert(1)</script>" in text  # shown as text, not run
    assert "possibly wrong: nearly everyone fails this hidden check" in text
    assert "Ties broken by the pair met first" in text
    assert re.search(r'<td class="students">(<span class="student-id">\w+</span>(, )?){3}</td>',
                     html).group(0).count("student-id") == 3  # ben, cat, dan


class StudentCells(HTMLParser):
    """The student ids of the mistakes table's "Who" cells, as the spans that hold them."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[list[str]] = []
        self.within = ""

    def handle_starttag(self, tag, attrs):
        classes = dict(attrs).get("class", "")
        if tag == "td" and classes == "students":
            self.cells.append([])
            self.within = "cell"
        elif tag == "span" and classes == "student-id" and self.within == "cell":
            self.cells[-1].append("")
            self.within = "id"

    def handle_endtag(self, tag):
        if tag == "span" and self.within == "id":
            self.within = "cell"
        elif tag == "td":
            self.within = ""

    def handle_data(self, data):
        if self.within == "id":
            self.cells[-1][-1] += data


def test_student_ids_break_between_ids_never_inside_one() -> None:
    entries, unusable = synthetic_class()
    long_ids = [f"student-with-a-rather-long-identifier-{n}@example.edu" for n in range(12)]
    entries += [ClassEntry(name, student(train_ok=False, train_mistakes=[TIES])) for name in long_ids]
    html = render_class_report(entries, unusable)
    cells = StudentCells()
    cells.feed(html)
    ties = next(cell for cell in cells.cells if "ben" in cell)
    assert ties == sorted(["ben", "cat", "dan", *long_ids])  # each id whole in its own span
    style = html[html.index("<style>"):html.index("</style>", html.index("td.students"))]
    assert re.search(r"\.student-id\s*\{[^}]*white-space:\s*nowrap", style)
    assert "anywhere" not in style[style.index("td.students"):]


def test_a_student_whose_calls_raise_is_listed_as_crashed() -> None:
    stub = "train_bpe raised NotImplementedError: train_bpe is not written yet (at line 9)"
    index = "train_bpe raised IndexError: list index out of range (at line 54, in train_bpe)"
    entries = [ClassEntry("stub", student(train_ok=False, encode_ok=False, crash=stub)),
               ClassEntry("idx", student(train_ok=False, crash=index)),
               ClassEntry("ok", student())]
    problems = {row.student: row for row in class_view(entries).problems}
    assert set(problems) == {"stub", "idx"}
    assert problems["idx"].kind == problems["stub"].kind == "crashed"
    assert "IndexError" in problems["idx"].detail


def test_the_instructors_page_names_hidden_checks_by_their_case_ids() -> None:
    from grader.grading.engine import grade_submission
    from grader.spec import load_exercise

    exercise = load_exercise("bpe-train-encode")
    wrong = Path(__file__).parents[2] / "examples" / "bpe-train-encode" / "student_wrong.py"
    report = grade_submission(wrong, exercise, seed_secret="class-report")
    entries = [ClassEntry("bob", report)]
    plain = {row.key: row for row in class_view(entries).sections[0].checks if row.hidden}
    named = {row.key: row for row in class_view(entries, exercises={exercise.id: exercise})
             .sections[0].checks if row.hidden}
    assert plain and len(named) == len(plain)
    assert all("Hidden case" in row.title for row in plain.values())
    assert not any("Hidden case" in row.title for row in named.values())
    hidden_ids = {case.id for case in exercise.hidden_cases}
    shown = {row.key.split(":")[1] for row in named.values() if row.key.split(".")[1].startswith("cases:")}
    assert shown == hidden_ids  # every hidden case, by its own id
    for row in named.values():
        case_id = row.key.split(":")[1]
        number = [case.id for case in exercise.hidden_cases].index(case_id) + 1
        assert row.title.startswith(f"{case_id} (hidden case {number})")
    # the students' own reports keep them hidden
    from grader.report import render
    assert not any(case in render(report, "html") for case in hidden_ids
                   if case not in {c.id for c in exercise.public_cases})


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed "
                                             "(apt-get install -y chromium)")
def test_chromium_renders_the_class_report(tmp_path: Path) -> None:
    page = tmp_path / "class-report.html"
    page.write_text(render_class_report(*synthetic_class()), encoding="utf-8")
    shot = tmp_path / "shot.png"
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}",
         "--window-size=1200,2000", page.as_uri()],
        capture_output=True, text=True, timeout=120)
    assert shot.is_file(), done.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(data[16:20], "big") == 1200  # the PNG's width
    assert len(data) > 20_000  # charts and tables drew something, not a blank page


def test_an_efficiency_row_says_the_points_and_why_a_fast_run_earned_none() -> None:
    from grader.report.class_report import EfficiencyRow

    assert EfficiencyRow("a", 2.0, 30.0, True, 15.0, 15.0).verdict == "15/15"
    assert EfficiencyRow("b", 2.0, 30.0, True, 0.0, 15.0).verdict == \
        "0/15: fast enough, withheld (no real work shown)"
    assert EfficiencyRow("c", 90.0, 30.0, False, 0.0, 15.0).verdict == "0/15: not passed"
