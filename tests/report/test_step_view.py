"""The step view's data and page without a browser: each family's runs replayed step by step
(checked against the reference's own steps), hidden checks never carrying or showing one, the
JSON result unchanged, and ``grade trace --html`` for every family with a trace."""

from __future__ import annotations

import re
from dataclasses import replace
from html.parser import HTMLParser
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from grader.commands.cli import main
from grader.families.bpe.steps import (
    STEPS_SHOWN,
    WORDS_SHOWN,
    character_words,
    counting_rule,
    encoding_steps,
    merge_steps,
    training_steps,
)
from grader.families.byte_level.steps import readable
from grader.families.unigram.steps import segment_steps
from grader.families.wordpiece import steps as wordpiece_steps
from grader.grading.feedback import graded
from grader.report import render
from grader.report.redaction import public_check
from grader.result import CheckResult, GradeReport, MilestoneResult
from reference import encode, train_bpe
from reference.plain import train_steps
from reference.unigram import normalize, viterbi
from reference.wordpiece import train_wordpiece

CAT_CAP = ["cat cat cat cat cap cap cap cap"]


def exercise(tie_break: str = "lexicographic", end_of_word: str = "</w>"):
    return SimpleNamespace(conventions=SimpleNamespace(tie_break=tie_break, end_of_word=end_of_word))


def test_the_reference_side_is_the_references_own_steps():
    corpus = "low low low low low lower lower newest newest newest widest widest".split()
    merges = train_bpe(corpus, 8)
    data = training_steps(exercise(), corpus, merges, None)
    assert data["divergence"] is None and not data["compared"] and data["total"] == len(merges)
    for shown, step in zip(data["steps"], train_steps(corpus, 8)):
        side = shown["reference"]
        assert side["pick"] == list(step.pair) and side["value"] == str(step.count)
        assert side["rule_pick"] == list(step.tied[0])
        assert side["tied"] == ([list(pair) for pair in step.tied] if len(step.tied) > 1 else [])
        rewritten = [(row["count"], tuple(text for text, _ in row["symbols"]))
                     for row in side["corpus"]]
        words = [(count, symbols) for symbols, count in step.words_after.items()]
        rewrote = [word for word in words if step.token in word[1]]  # shown first
        assert rewritten == (rewrote + [word for word in words if word not in rewrote])[:WORDS_SHOWN]


def test_a_tie_broken_the_other_way_diverges_at_that_merge():
    ours = train_bpe(CAT_CAP, 3, tie_break="lexicographic")
    theirs = train_bpe(CAT_CAP, 3, tie_break="reverse-lexicographic")
    data = training_steps(exercise(), CAT_CAP, ours, theirs)
    number = next(i for i, (a, b) in enumerate(zip(ours, theirs), 1) if a != b)
    assert data["divergence"] == number
    step = data["steps"][number - 1]
    assert step["student"]["pick"] == list(theirs[number - 1])
    assert step["student"]["rule_pick"] == list(ours[number - 1])  # the rule, on their corpus
    assert list(theirs[number - 1]) in step["reference"]["tied"]
    assert [s["step"] for s in data["steps"]] == list(range(1, data["total"] + 1))


def test_a_merge_of_no_pair_has_no_value_and_a_shorter_run_ends():
    ours = train_bpe(CAT_CAP, 3)
    data = training_steps(exercise(), CAT_CAP, ours, [("x", "y")])
    assert data["divergence"] == 1
    assert data["steps"][0]["student"]["value"] is None
    assert data["steps"][1]["student"] is None and data["steps"][1]["reference"] is not None


def test_a_long_run_shows_a_window_around_its_divergence():
    corpus = [" ".join(f"w{i}x{i}y{i}z" for i in range(60))]
    ours = train_bpe(corpus, 150)
    theirs = ours[:100] + [("q", "q")] + ours[101:]
    data = training_steps(exercise(), corpus, ours, theirs)
    numbers = [step["step"] for step in data["steps"]]
    assert len(numbers) == STEPS_SHOWN and data["divergence"] == 101 and 101 in numbers


DECK = ["low low low low low lower lower newest newest newest newest newest newest widest widest widest"]


@pytest.mark.parametrize("answer, divergence", [
    (["l", "o", "w", "e", "s", "t</w>"], 2),  # keeps a split the first rule joins
    (["lowest</w>"], "end"),  # joins what no rule joins
    (None, None),  # the reference alone
])
def test_an_encoding_marks_where_the_answer_can_no_longer_be_reached(answer, divergence):
    merges = train_bpe(DECK, 10)
    data = encoding_steps(exercise(), "lowest", merges, answer)
    applied = [step["reference"]["pick"] for step in data["steps"][1:] if step["reference"]["pick"]]
    tokens = data["steps"][len(applied)]["reference"]["corpus"][0]["symbols"]
    assert [text for text, _ in tokens] == encode("lowest", merges)  # the reference's own tokens
    assert data["divergence"] == (len(data["steps"]) if divergence == "end" else divergence)
    assert encoding_steps(exercise(), "lowest", merges, ["x"]) is None  # does not spell it


def test_wordpiece_steps_value_each_pair_by_its_exact_score():
    corpus = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    merges = train_wordpiece(corpus, 4)
    data = wordpiece_steps.training_steps(exercise(), corpus, merges, None)
    first = data["steps"][0]["reference"]
    count, a, b, score = re.fullmatch(r"(\d+)/\((\d+)\*(\d+)\)=(\d+(?:/\d+)?)", first["value"]).groups()
    assert eval(score) == pytest.approx(int(count) / (int(a) * int(b)))  # noqa: S307 (a fraction)
    assert data["value_name"] == "score"


def test_bytes_are_written_readably():
    assert readable(b" t") == "␣t"
    assert readable(b"\xe2\x96") == "\\xe2\\x96"
    assert readable(b"a\\") == "a\\x5c"


def test_a_greedy_segmentation_is_seen_on_the_lattice_where_viterbi_chose():
    pieces = {"▁": -1.0, "a": -2.0, "b": -2.0, "▁a": -1.0, "ab": -0.5}
    best, total = viterbi("ab ab", pieces)
    greedy = ["▁a", "b", "▁a", "b"]
    data = segment_steps("ab ab", pieces, best, greedy)
    assert data["divergence"] == 1
    first = data["steps"][0]
    totals = {label[0]: float(value) for label, value, _ in first["reference"]["candidates"]}
    assert totals["▁"] == pytest.approx(total)  # the best path goes through the pick
    assert totals["▁a"] < totals["▁"]
    lattice = data["lattice"]
    assert "".join(lattice["chars"]) == normalize("ab ab")
    assert float(lattice["reference_total"]) == pytest.approx(total)
    assert lattice["student_path"][0] == [0, 2]
    assert segment_steps("ab ab", pieces, best, ["ab", "ab"])["lattice"]["student_path"] is None


def report_with(check: CheckResult) -> GradeReport:
    report = GradeReport("bpe-train-encode", "BPE")
    report.milestones = [MilestoneResult("train", "Train", [check], max_score=1.0)]
    return report


STEPS = training_steps(exercise(), CAT_CAP, train_bpe(CAT_CAP, 3),
                       train_bpe(CAT_CAP, 3, tie_break="reverse-lexicographic"))


def test_a_hidden_check_never_carries_or_shows_steps():
    assert graded("cases:hidden-1", "Hidden case 1", 1.0, False, visibility="hidden",
                  steps=STEPS).steps is None
    slipped = CheckResult("cases:hidden-1", "Hidden case 1", False, 0.0, 1.0, "hidden",
                          steps=STEPS)  # as if a stage had let them through
    assert public_check(slipped).steps is None
    for fmt in ("html", "json", "text", "markdown"):
        shown = render(report_with(slipped), fmt)
        assert "data-step" not in shown
        assert "</w>" not in shown and "/w&gt;" not in shown  # no symbol of the corpus


class Steps(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.steps: list[str] = []
        self.divergence: list[str] = []
        self.external: list[str] = []

    def handle_starttag(self, tag, attrs):
        found = dict(attrs)
        if "data-step" in found:
            self.steps.append(found["data-step"])
            if "data-divergence" in found:
                self.divergence.append(found["data-step"])
        for name in ("src", "href"):
            if found.get(name):
                self.external.append(found[name])


def test_a_visible_failure_shows_every_step_once_and_the_json_is_unchanged():
    check = graded("cases:cat-cap", "cat-cap", 1.0, False, steps=STEPS)
    html = render(report_with(check), "html")
    parsed = Steps()
    parsed.feed(html)
    assert parsed.steps == [str(step["step"]) for step in STEPS["steps"]]
    assert parsed.divergence == [str(STEPS["divergence"])]
    assert parsed.external == []  # one self-contained file
    assert html.count("<script>") == 1
    assert "steps" not in check.to_json()
    assert '"steps"' not in render(report_with(check), "json")


def test_symbols_from_the_student_are_escaped():
    hostile = merge_steps(character_words(CAT_CAP, "</w>"), train_bpe(CAT_CAP, 2),
                          [("<script>", "x")], counting_rule("lexicographic"), title="t")
    html = render(report_with(graded("cases:c", "c", 1.0, False, steps=hostile)), "html")
    assert "<script>x" not in html and "&lt;script&gt;" in html


def trace(tmp_path, *args):
    out = tmp_path / "trace.html"
    result = CliRunner().invoke(main, ["trace", "low low low lower lowest newest newest",
                                       "--merges", "5", "--html", str(out), *args])
    return result, out


@pytest.mark.parametrize("exercise_id", [None, "byte-bpe", "wordpiece", "unigram-lm"])
def test_grade_trace_writes_the_view_for_every_family_with_a_trace(tmp_path, exercise_id):
    result, out = trace(tmp_path, *(["--exercise", exercise_id] if exercise_id else []))
    assert result.exit_code == 0, result.output
    parsed = Steps()
    parsed.feed(out.read_text(encoding="utf-8"))
    assert parsed.steps and parsed.divergence == [] and parsed.external == []
    if exercise_id is None:
        assert len(parsed.steps) == 5
    if exercise_id == "unigram-lm":
        assert "<svg" in out.read_text(encoding="utf-8")


def test_grade_trace_html_errors_are_clear(tmp_path):
    result, _ = trace(tmp_path, "--exercise", "hand-bpe")
    assert result.exit_code == 2 and "has no step-by-step trace" in result.output
    result = CliRunner().invoke(main, ["trace", "a b", "--merges", "1", "--exercise", "wordpiece"])
    assert result.exit_code == 2 and "add --html PATH" in result.output
    result, _ = trace(tmp_path, "--exercise", "no-such-exercise")
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_on_the_reference_path_the_rule_picks_the_references_own_piece_even_at_a_tie():
    import random

    chance = random.Random(7)
    ties = 0
    for _ in range(400):
        pieces = {"a": -1.0, "b": -1.0}
        for _ in range(4):
            piece = "".join(chance.choice("ab") for _ in range(chance.randint(2, 3)))
            pieces[piece] = chance.choice([-1.0, -2.0, -0.5])
        text = " ".join("".join(chance.choice("ab") for _ in range(chance.randint(1, 5)))
                        for _ in range(2))
        for step in segment_steps(text, pieces, viterbi(text, pieces)[0], None)["steps"]:
            side = step["reference"]
            ties += len(side["tied"]) > 1
            assert side["rule_pick"] == side["pick"], (text, pieces)
    assert ties > 50  # equal totals happen, so the tie is really exercised


def test_the_gradebook_keeps_a_visible_checks_step_view_and_only_that(monkeypatch):
    import json

    from grader.batch import stored
    from grader.batch.stored import report_from_json, stored_report_json

    report = report_with(graded("cases:cat-cap", "cat-cap", 1.0, False, steps=STEPS))
    slipped = CheckResult("cases:hidden-1", "Hidden case 1", False, 0.0, 1.0, "hidden",
                          steps=STEPS)  # as if a stage had let them through
    report.milestones[0].checks.append(slipped)
    data, text = stored_report_json(report)
    assert [check.get("steps") for check in data["milestones"][0]["checks"]] == [STEPS, None]
    rebuilt = report_from_json(json.loads(text))
    assert [check.steps for check in rebuilt.checks] == [STEPS, None]
    assert render(rebuilt, "html") == render(report, "html")
    # over the gradebook's cap: stored compact, without details or step views
    monkeypatch.setattr(stored, "STORED_CHARS", len(text) - 1)
    data, text = stored_report_json(report)
    assert '"steps"' not in text and data["milestones"][0]["checks"][0]["details"] is None
    assert "data-step" not in render(report_from_json(data), "html")


def test_a_report_over_the_size_cap_is_written_without_its_step_views(monkeypatch):
    import grader.report as report_module

    report = report_with(graded("cases:cat-cap", "cat-cap", 1.0, False, steps=STEPS))
    full = render(report, "html")
    without = render(report_with(graded("cases:cat-cap", "cat-cap", 1.0, False)), "html")
    assert "data-step" in full and len(without) < len(full)
    monkeypatch.setattr(report_module, "REPORT_CHARS", len(full) - 1)
    compact = render(report, "html")
    assert "data-step" not in compact and 'class="sv"' not in compact
