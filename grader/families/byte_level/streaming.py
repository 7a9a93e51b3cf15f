"""CS336's ``encode_iterable`` judged: the ids of the joined lines, yielded lazily.

The sandbox carries plain data only: an iterable cannot be sent to the student's function, and
the generator it returns crosses the pipe as an opaque marker, its ids unread. So the items
run the student's file with a short driver appended (code the grader writes, run on the
untrusted side with the student's) in a second sandbox, opened once per grading: the driver
hands ``encode_iterable`` a generator over the lines, counts how many lines had been read when
the first id came, and returns the ids, the answer's type and those counts as plain data.

Three kinds of item: for each ``encode`` text of a case, its lines (``splitlines(keepends=True)``)
streamed once, whose ids must be the reference's encoding of the whole text; and, on the first
case that serves the role, a text whose runs of spaces and newlines go on past its line ends
(:data:`ACROSS_LINES`), with merges the reference learns from such text, where encoding each
line on its own gives other ids (GPT-2's pattern makes a whole run one pre-token); and a long
stream (a text's lines repeated to about :data:`STREAM_CHARACTERS` characters) whose first id
must come before the last line is read, as CS336's memory test asks in spirit: a function that
reads its whole input first holds all of it in memory. The counts come from the untrusted
side, like every answer; the ids are checked against the reference here.
"""

from __future__ import annotations

import tempfile
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from typing import Any

from grader.families.byte_level.do_nothing import trivial_answer
from grader.families.byte_level.expected import reference_byte_bpe, trained
from grader.families.byte_level.shapes import token_ids
from grader.families.byte_level.spec import ByteCase as Case
from grader.families.api import Calls, CaseItem, CaseLabel, Sandbox, ShapeError, Verdict, describe
from reference.byte_level import encode_byte_bpe

ITERABLE = "encode_iterable_byte_bpe"
DRIVER_NAME = "__grade_encode_iterable__"
STREAM_CHARACTERS = 1_000_000
"""About how long the laziness item's stream is, in characters."""
ACROSS_LINES = "two\n\n\n  one \n\n three\n \n  four\n"
"""A text whose whitespace runs go on past its line ends."""
ACROSS_CORPUS = "one\n\n\ntwo  \n\n  three \n \n four\n\n\nfive\n  \n" * 3
ACROSS_MERGES = 6
"""Training on :data:`ACROSS_CORPUS` for this many merges learns merges of newlines and spaces
(``b" \\n"``, ``b"\\n "``, ``b"\\n\\n"``), so a run cut at a line end encodes otherwise."""

DRIVER = f'''

def {DRIVER_NAME}(name, lines, repeat, vocab, merges, special_tokens, first_only):
    read = [0]

    def feed():
        for _ in range(repeat):
            for line in lines:
                read[0] += 1
                yield line

    answer = globals()[name](feed(), vocab, merges, special_tokens)
    report = {{"type": type(answer).__name__, "iterator": hasattr(answer, "__next__"),
              "read_at_first": None, "ids": [], "lines": repeat * len(lines)}}
    for value in answer:
        if report["read_at_first"] is None:
            report["read_at_first"] = read[0]
        if first_only:
            break
        report["ids"].append(value)
    return report
'''


def lines_of(text: str) -> list[str]:
    """The lines of ``text`` as iterating over a file gives them (each keeps its newline)."""
    return text.splitlines(keepends=True) or [text]


def streamed(calls: Calls, lines: list[str], repeat: int, vocab: dict, merges: list,
             special_tokens: list[str], first_only: bool) -> tuple[dict | None, str]:
    """The driver's report on the student's ``encode_iterable`` over ``lines`` repeated
    ``repeat`` times, or None and why there is none."""
    name = calls.exercise.function(ITERABLE).name
    submission = getattr(calls.box, "submission", None)
    if submission is None:
        return None, "this grader cannot run a driver beside the submission"
    driver, loaded = calls.kept_open(DRIVER_NAME, partial(_open_driver, calls, Path(submission)))
    if not loaded.ok:
        return None, f"{calls.file_name} could not be loaded: {loaded.error}"
    outcome = driver.call(DRIVER_NAME, [name, list(lines), repeat, dict(vocab),
                                        [tuple(m) for m in merges], list(special_tokens),
                                        first_only])
    if not outcome.ok:
        return None, f"{name} failed: {outcome.error}"
    report = outcome.value
    if type(report) is not dict:
        return None, f"{name} could not be observed (the driver gave {describe(report)})"
    return report, ""


def _open_driver(calls: Calls, submission: Path, stack: ExitStack) -> tuple[Sandbox, Any]:
    """The student's file with the driver appended, in a sandbox of its own that every item
    of the grading calls (each call in a fresh child, as in the student's own sandbox)."""
    folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="grade-stream-"))
    path = Path(folder) / submission.name
    source = submission.read_text(encoding="utf-8")
    path.write_text(source.rstrip("\n") + "\n" + DRIVER, encoding="utf-8")
    box = calls.box
    driver = stack.enter_context(Sandbox(path, limits=box.limits,
                                         allowed_imports=calls.exercise.allowed_imports,
                                         where=getattr(box, "where", None)))
    return driver, driver.load()


def _short(text: str) -> str:
    shown = text if len(text) <= 40 else text[:37] + "..."
    return repr(shown)


def across_lines_model(special_tokens: list[str]) -> tuple[dict, list]:
    """The vocab and merges the reference learns from :data:`ACROSS_CORPUS`."""
    return trained(ACROSS_CORPUS, 256 + len(special_tokens) + ACROSS_MERGES, tuple(special_tokens))


def iterable_items(calls: Calls, case: Case, label: CaseLabel) -> list[CaseItem]:
    vocab, merges = reference_byte_bpe(case)
    specials = list(case.special_tokens)

    def work(text: str, model: tuple[dict, list]) -> bool:
        inputs = (lines_of(text), *model, specials)
        expected = encode_byte_bpe(text, *model, specials)
        return not trivial_answer(calls.exercise, ITERABLE, inputs, expected)

    items = [
        CaseItem(f"{label.check_id}:{number}",
                 f"{label.name}: stream the lines of {_short(item.word)}" if label.public
                 else f"{label.name}, text {number}",
                 label.visibility, partial(_judge_ids, calls, (vocab, merges), specials, item.word),
                 real_work=work(item.word, (vocab, merges)))
        for number, item in enumerate(case.encode, 1)
    ]
    first = next((c for c in calls.exercise.cases if c.encode), None)
    if first is not None and first.id == case.id:
        number = len(case.encode) + 1
        model = across_lines_model(specials)
        items.append(CaseItem(
            f"{label.check_id}:{number}",
            f"{label.name}: whitespace runs across line ends" if label.public
            else f"{label.name}, text {number}",
            label.visibility, partial(_judge_ids, calls, model, specials, ACROSS_LINES),
            real_work=work(ACROSS_LINES, model)))
        items.append(CaseItem(
            f"{label.check_id}:{number + 1}",
            f"{label.name}: yield ids before reading every line" if label.public
            else f"{label.name}, text {number + 1}",
            label.visibility, partial(_judge_lazy, calls, case, case.encode[0].word)))
    return items


def _judge_ids(calls: Calls, model: tuple[dict, list], specials: list[str], text: str) -> Verdict:
    vocab, merges = model
    lines = lines_of(text)
    expected = encode_byte_bpe(text, vocab, merges, specials)
    details: dict[str, Any] = {"kind": "byte-ids", "input": {"lines": lines}, "expected": expected}
    report, failure = streamed(calls, lines, 1, vocab, merges, specials, False)
    if report is None:
        return Verdict(False, failure, details)
    name = calls.exercise.function(ITERABLE).name
    try:
        ids = token_ids(report.get("ids"), name)
    except ShapeError as error:
        return Verdict(False, f"{error}", details)
    if ids == expected:
        return Verdict(True)
    details["actual"] = ids
    message = (f"the ids {name} yielded for the {len(lines)} lines of {_short(text)} differ from "
               f"encode of the joined text ({len(ids)} ids, expected {len(expected)}): "
               "encode_iterable(lines) must yield exactly encode(''.join(lines)).")
    each = [i for line in lines for i in encode_byte_bpe(line, vocab, merges, specials)]
    if ids == each:
        message += (" They are the ids of each line encoded on its own: " + ACROSS_HOW)
    return Verdict(False, message, details)


def _judge_lazy(calls: Calls, case: Case, text: str) -> Verdict:
    vocab, merges = reference_byte_bpe(case)
    line = text if text.endswith("\n") else text + "\n"
    repeat = max(2, STREAM_CHARACTERS // len(line))
    name = calls.exercise.function(ITERABLE).name
    given = f"{repeat:,} lines ({repeat * len(line):,} characters)"
    report, failure = streamed(calls, [line], repeat, vocab, merges, list(case.special_tokens), True)
    if report is None:
        return Verdict(False, f"given {given} one at a time, {failure}; {LAZY_HOW}")
    first = report.get("read_at_first")
    if report.get("iterator") is not True:
        return Verdict(False, (f"{name} returned a {report.get('type')}, not a generator: "
                               f"{LAZY_HOW}"))
    if type(first) is not int:
        return Verdict(False, f"{name} yielded no id for {given}.")
    if first >= repeat:
        return Verdict(False, (f"given {given} one at a time, {name} read every one of them "
                               f"before it yielded its first id: {LAZY_HOW}"))
    return Verdict(True)


ACROSS_HOW = ("GPT-2's pattern makes a run of spaces and newlines one pre-token even where it "
              "goes on past a line's end, so keep the whitespace at the end of what you have "
              "read and encode it with the next line.")
LAZY_HOW = ("CS336's encode_iterable is a generator that reads its input a line at a time and "
            "yields ids before reading the rest, so a file too large for memory streams "
            "through: add each line to what is pending, encode and yield all of it but the "
            "whitespace at its end (a run of spaces and newlines can go on in the next line), "
            "keep that, and encode what is pending once the lines run out.")
