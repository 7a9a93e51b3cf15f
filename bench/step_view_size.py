"""How large a report's step view is: the HTML report of a training case with and without it.

    python bench/step_view_size.py [--merges 50] [--corpus FILE]

A corpus (by default the first 2,000 words of exercises/data/cs336-corpus.en) is trained
for N merges by the reference, and a student's run is the same with ties broken the other way
(lexicographic against reverse-lexicographic); one failing visible check carries both runs.
Prints the bytes of the HTML report with the step view, without it, and of
``grade trace --html``'s page of the reference's run alone, and the divergence.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from types import SimpleNamespace

from grader.families.bpe.steps import training_steps
from grader.grading.feedback import graded
from grader.report import render
from grader.report.html_report import render_trace_page
from grader.result import GradeReport, MilestoneResult
from reference import train_bpe

CORPUS = Path(__file__).resolve().parent.parent / "exercises" / "data" / "cs336-corpus.en"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--merges", type=int, default=50)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--words", type=int, default=2_000)
    options = parser.parse_args()
    corpus = [" ".join(options.corpus.read_text(encoding="utf-8").split()[:options.words])]
    exercise = SimpleNamespace(conventions=SimpleNamespace(tie_break="lexicographic", end_of_word="</w>"))
    ours = train_bpe(corpus, options.merges)
    theirs = train_bpe(corpus, options.merges, tie_break="reverse-lexicographic")
    steps = training_steps(exercise, corpus, ours, theirs)
    sizes = {}
    for name, carried in (("with the step view", steps), ("without it", None)):
        check = graded("cases:corpus", f"train {options.merges} merges", 1.0, False,
                       message="merges differ", steps=carried)
        report = GradeReport("bench", "Step view size",
                             [MilestoneResult("train", "Train", [check], max_score=1.0)])
        sizes[name] = len(render(report, "html").encode("utf-8"))
    trace = len(render_trace_page("trace", training_steps(exercise, corpus, ours, None)).encode("utf-8"))
    print(f"{options.merges} merges on {options.words} words; first divergence at merge "
          f"{steps['divergence']}; {len(steps['steps'])} steps shown")
    for name, size in sizes.items():
        print(f"  report {name}: {size:,} bytes")
    print(f"  step view alone: {sizes['with the step view'] - sizes['without it']:,} bytes")
    print(f"  grade trace --html page (reference only): {trace:,} bytes")


if __name__ == "__main__":
    main()
