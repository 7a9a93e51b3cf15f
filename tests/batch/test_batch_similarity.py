"""``grade similarity``: independent solutions are not flagged, disguised copies are (renamed
names, reordered functions, comments added, reformatted), the stub counts for no one, known
sources are named, and what students wrote reaches the pages escaped."""

from __future__ import annotations

import ast
import builtins
import csv
import html.parser
import io
import keyword
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

from grader.batch.similarity import SimilarityError, find_similar, write_similarity
from grader.spec import load_exercise
from grader.spec.stubs import render_stub

CLASS = Path(__file__).with_name("similarity_class")
GRADE = str(Path(sys.executable).with_name("grade"))
EXERCISE = load_exercise("bpe-train-encode")
KEPT = {"train_bpe", "encode", "self", "cls"} | set(dir(builtins)) | set(keyword.kwlist)


def disguised(source: str) -> str:
    """The same program with every name of its own renamed, its functions in reverse order,
    reformatted, and comments added."""
    tree = ast.parse(source)
    names = sorted({node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
                   | {node.arg for node in ast.walk(tree) if isinstance(node, ast.arg)}
                   | {node.name for node in ast.walk(tree)
                      if isinstance(node, (ast.FunctionDef, ast.ClassDef))})
    imported = {(alias.asname or alias.name).split(".")[0] for node in ast.walk(tree)
                if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    renames = {name: f"q{number}_{name[::-1]}" for number, name in enumerate(names)
               if name not in KEPT | imported and not name.startswith("__")}
    defs = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    rest = [node for node in tree.body if node not in defs]
    tree.body = rest + defs[::-1]
    reordered = ast.unparse(tree)
    tokens = [(kind, renames.get(text, text) if kind == tokenize.NAME else text)
              for kind, text, *_ in tokenize.generate_tokens(io.StringIO(reordered).readline)]
    renamed = tokenize.untokenize(tokens)
    lines = []
    for number, line in enumerate(renamed.splitlines()):
        lines.append(line)
        if number % 4 == 0:
            indent = line[: len(line) - len(line.lstrip())]
            lines.append(f"{indent}# step {number}: keep going")
    return "\n".join(lines) + "\n"


def solutions() -> dict[str, str]:
    return {path.stem: path.read_text() for path in sorted(CLASS.glob("*.py"))}


def a_class(folder: Path, students: dict[str, str]) -> Path:
    folder.mkdir(parents=True)
    for student, text in students.items():
        (folder / f"{student}.py").write_text(text)
    return folder


def test_the_disguise_still_runs_and_renames(tmp_path):
    source = (CLASS / "counter_loop.py").read_text()
    copy = disguised(source)
    assert "learned" not in copy and "# step" in copy
    space: dict = {}
    exec(compile(copy, "copy.py", "exec"), space)  # noqa: S102 - our own fixture
    assert space["train_bpe"](["low low lower"], 2) == [("l", "o"), ("lo", "w")]


def test_ten_independent_solutions_are_not_flagged(tmp_path):
    folder = a_class(tmp_path / "class", solutions())
    report = find_similar(folder, EXERCISE)
    assert report.students == len(solutions()) >= 10
    assert report.pairs == []


@pytest.mark.parametrize("original", ["counter_loop", "class_based", "heap_incremental"])
def test_a_disguised_copy_is_found_beside_its_original(tmp_path, original):
    students = {**solutions(), "mallory": disguised(solutions()[original])}
    report = find_similar(a_class(tmp_path / "class", students), EXERCISE)
    assert len(report.pairs) == 1, [(p.first, p.second, p.share) for p in report.pairs]
    [pair] = report.pairs
    assert {pair.first, pair.second} == {original, "mallory"} and not pair.source
    assert min(pair.first_share, pair.second_share) >= 0.8


def test_the_stub_counts_for_no_one(tmp_path):
    stub = render_stub(EXERCISE)
    students = {"untouched_one": stub, "untouched_two": stub,
                "stub_plus_own": stub + "\n\n" + solutions()["recursive"]}
    report = find_similar(a_class(tmp_path / "class", students), EXERCISE)
    assert report.pairs == []


def test_a_known_source_is_named(tmp_path):
    sources = tmp_path / "sources"
    sources.mkdir()
    shutil.copyfile(CLASS / "regex_sennrich.py", sources / "subword_nmt_learn_bpe.py")
    students = {name: text for name, text in solutions().items() if name != "regex_sennrich"}
    students["copier"] = disguised(solutions()["regex_sennrich"])
    report = find_similar(a_class(tmp_path / "class", students), EXERCISE, sources=sources)
    assert report.sources == 1
    [pair] = report.pairs
    assert (pair.first, pair.second, pair.source) == ("copier", "subword_nmt_learn_bpe.py", True)


class _Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: set[str] = set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)


def test_pages_escape_what_students_wrote(tmp_path):
    hostile = solutions()["counter_loop"].replace(
        "from collections import Counter",
        'from collections import Counter\nBANNER = "</code></pre><script>alert(1)</script>"')
    students = {"a<td><img src=x onerror=alert(1)>": hostile, "b": disguised(hostile)}
    report = find_similar(a_class(tmp_path / "class", students), EXERCISE)
    index = write_similarity(report, tmp_path / "out", EXERCISE.title)
    pages = [index, *sorted((tmp_path / "out" / "similarity").glob("*.html"))]
    assert len(pages) == 2
    for page in pages:
        parser = _Tags()
        parser.feed(page.read_text())
        assert not parser.tags & {"script", "img"}, (page.name, parser.tags)
    assert "&lt;script&gt;" in pages[1].read_text()
    with open(tmp_path / "out" / "similarity.csv", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0][:3] == ["rank", "student", "other"] and len(rows) == 2


def test_the_command_compares_a_class_and_refuses_answers_files(tmp_path):
    folder = a_class(tmp_path / "class", {**solutions(),
                                          "mallory": disguised(solutions()["recursive"])})
    done = subprocess.run([GRADE, "similarity", str(folder), "-o", str(tmp_path / "out"),
                           "--exercise", "bpe-train-encode"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "11 submissions compared" in done.stdout
    assert "1. mallory and recursive" in done.stdout or "1. recursive and mallory" in done.stdout
    assert (tmp_path / "out" / "similarity" / "pair-1.html").is_file()
    refused = subprocess.run([GRADE, "similarity", str(folder), "-o", str(tmp_path / "out2"),
                              "--exercise", "hand-bpe"], capture_output=True, text=True,
                             timeout=120)
    assert refused.returncode == 2 and "not code" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_a_threshold_outside_zero_to_one_is_refused(tmp_path):
    with pytest.raises(SimilarityError, match="above 0 and at most 1"):
        find_similar(a_class(tmp_path / "class", solutions()), EXERCISE, threshold=1.5)


QUICK_SPEC = (Path(__file__).resolve().parents[2] / "tests" / "specs" / "valid-minimal.yaml"
              ).read_text() + ("limits:\n  call_seconds: 1.0\n  memory_mib: 192\n"
                               "  total_seconds: 10\nproperties:\n  examples: 6\n")


def test_students_giving_the_same_rare_wrong_answers_are_paired_with_the_inputs(tmp_path):
    # Two students stop training after three merges, in code written apart; three others tie
    # first-seen, a common mistake that is evidence against no one.
    stop_early = {name: solutions()[name].replace("def train_bpe(corpus, num_merges):",
                                                  "def train_bpe(corpus, num_merges):\n"
                                                  "    num_merges = min(num_merges, 3)")
                  for name in ("counter_loop", "class_based")}
    first_seen = {f"tie_{n}": solutions()["first_seen_ties"] + f"\n# student {n}\n"
                  for n in range(3)}
    correct = {name: solutions()[name] for name in ("recursive", "linked_symbols")}
    folder = a_class(tmp_path / "class", {**stop_early, **first_seen, **correct})
    spec = tmp_path / "valid-minimal.yaml"
    spec.write_text(QUICK_SPEC)
    batch = subprocess.run([GRADE, "batch", str(folder), "-o", str(tmp_path / "graded"),
                            "--exercise", str(spec), "--no-progress"], capture_output=True,
                           text=True, timeout=300)
    assert batch.returncode == 0, batch.stderr[-2000:]
    report = find_similar(folder, load_exercise(str(spec)), graded=tmp_path / "graded")
    assert report.graded
    assert [(pair.first, pair.second) for pair in report.behaviour] == [
        ("class_based", "counter_loop")]
    [pair] = report.behaviour
    assert pair.shared and all(wrong.milestone == "train" for wrong in pair.shared)
    assert all('"num_merges"' in wrong.input for wrong in pair.shared)
    page = write_similarity(report, tmp_path / "out", "quick").read_text()
    assert "Same wrong answers" in page and "rare wrong answer" in page


def test_a_folder_without_a_gradebook_is_refused(tmp_path):
    with pytest.raises(SimilarityError, match="no gradebook there"):
        find_similar(a_class(tmp_path / "class", solutions()), EXERCISE, graded=tmp_path)


def test_grade_batch_with_similarity_adds_the_pages_and_a_class_report_section(tmp_path):
    folder = a_class(tmp_path / "class", {**{name: solutions()[name] for name in
                                              ("counter_loop", "recursive", "regex_sennrich")},
                                           "mallory": disguised(solutions()["counter_loop"])})
    spec = tmp_path / "valid-minimal.yaml"
    spec.write_text(QUICK_SPEC)
    done = subprocess.run([GRADE, "batch", str(folder), "-o", str(tmp_path / "out"),
                           "--exercise", str(spec), "--no-progress", "--similarity"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    report = (tmp_path / "out" / "class-report.html").read_text()
    assert "Similar submissions" in report and 'href="similarity.html"' in report
    assert "mallory" in report.split("Similar submissions")[1].split("</section>")[0]
    assert (tmp_path / "out" / "similarity" / "pair-1.html").is_file()
    refused = subprocess.run([GRADE, "batch", str(folder), "-o", str(tmp_path / "out2"),
                              "--similarity", "--no-progress"], capture_output=True, text=True,
                             timeout=120)
    assert refused.returncode == 2 and "needs --exercise" in refused.stderr
    assert not (tmp_path / "out2").exists()


# ---------------------------------------------------------------------------------------------
# bounded memory

MEASURED = '''
import sys
from pathlib import Path
from grader.batch.similarity import find_similar, write_similarity
from grader.spec import load_exercise
report = find_similar(Path(sys.argv[1]), load_exercise("bpe-train-encode"))
write_similarity(report, Path(sys.argv[2]), "near the cap")
print(report.students, len(report.pairs), sorted(report.cut))
'''
# Run in a fresh process of its own: the peak of its children is the comparison's alone.
PEAK_OF_A_CHILD = '''
import resource, subprocess, sys
done = subprocess.run([sys.executable, "-c", *sys.argv[1:]])
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024 if done.returncode == 0
      else "failed")
'''


def _near_the_cap(folder: Path, students: int) -> list[Path]:
    """Files just under the submission cap, dense in tokens (one per character or two)."""
    from grader.grading.submission_file import MAX_SUBMISSION_BYTES

    folder.mkdir()
    base = (CLASS / "counter_loop.py").read_text()
    written = []
    for number in range(students):
        letters = "bcdefgh"
        lines = [f"a={letters[(i * 7 + number) % 7]}{'+-*%&|^'[(i * 3 + number) % 7]}"
                 f"{letters[(i * 5) % 7]}\n" for i in range((MAX_SUBMISSION_BYTES - 20_000) // 6)]
        path = folder / f"student{number}.py"
        path.write_text(base + "".join(lines))
        assert MAX_SUBMISSION_BYTES - 30_000 < path.stat().st_size < MAX_SUBMISSION_BYTES
        written.append(path)
    return written


def test_three_files_at_the_size_cap_are_compared_within_the_stated_memory(tmp_path):
    from grader.batch.similarity import MAX_COMPARED_CHARS, MEMORY_BOUND_MIB

    _near_the_cap(tmp_path / "class", 3)
    done = subprocess.run([sys.executable, "-c", PEAK_OF_A_CHILD, MEASURED,
                           str(tmp_path / "class"), str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    compared, peak = done.stdout.splitlines()[-2:]
    assert compared.split()[0] == "3", done.stderr[-2000:]
    assert float(peak) < MEMORY_BOUND_MIB, f"peak memory {float(peak):.0f} MiB"
    page = (tmp_path / "out" / "similarity.html").read_text()
    assert f"first {MAX_COMPARED_CHARS:,} characters at most" in page
    assert all(f"student{number}" in page for number in range(3))


def test_the_class_report_says_which_files_were_compared_in_part():
    from grader.batch.similarity import MAX_COMPARED_CHARS, SimilarityReport, class_report_leads

    report = SimilarityReport(3, 0, 0.5, [], [], 1.0, cut=["bob", "alice"])
    note = class_report_leads(report).note
    assert f"first {MAX_COMPARED_CHARS:,} characters at most" in note
    assert note.endswith("2 were longer: alice, bob.")
    assert class_report_leads(SimilarityReport(3, 0, 0.5, [], [], 1.0)).note == ""
