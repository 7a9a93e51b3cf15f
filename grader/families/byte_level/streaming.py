"""CS336's ``encode_iterable`` judged: the ids of the joined lines, yielded lazily.

The lines reach the student's function as a streamed argument of the sandbox (:class:`Feed`):
an iterator whose lines the grader hands over only as the function asks for them, so the
grader itself counts how many lines had been read when each id came back. Nothing is added
to the student's file and no name of the grader's is in its namespace.

Three kinds of item: for each ``encode`` text of a case, its lines (``splitlines(keepends=True)``)
streamed once, whose ids must be the reference's encoding of the whole text; and, on the first
case that serves the role, a text whose runs of spaces and newlines go on past its line ends
(:data:`ACROSS_LINES`), with merges the reference learns from such text, where encoding each
line on its own gives other ids (GPT-2's pattern makes a whole run one pre-token); and a long
stream (a text's lines repeated to about :data:`STREAM_CHARACTERS` characters) whose first id
must be the reference's first id and come back before the last line is handed over, as CS336's
memory test asks in spirit: a function that reads its whole input first holds all of it in
memory. The count is the grader's; the ids, whoever wrote them on the stream, are checked
against the reference here.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from grader.families.byte_level.do_nothing import trivial_answer
from grader.families.byte_level.expected import expected_ids, reference_byte_bpe, trained
from grader.families.byte_level.shapes import token_ids
from grader.families.byte_level.spec import ByteCase as Case
from grader.families.api import (Calls, CaseItem, CaseLabel, Feed, Sandbox, ShapeError, Verdict,
                                 describe)
from reference.byte_level import encode_byte_bpe

ITERABLE = "encode_iterable_byte_bpe"
STREAM_CHARACTERS = 1_000_000
"""About how long the laziness item's stream is, in characters."""
ACROSS_LINES = "two\n\n\n  one \n\n three\n \n  four\n"
"""A text whose whitespace runs go on past its line ends."""
ACROSS_CORPUS = "one\n\n\ntwo  \n\n  three \n \n four\n\n\nfive\n  \n" * 3
ACROSS_MERGES = 6
"""Training on :data:`ACROSS_CORPUS` for this many merges learns merges of newlines and spaces
(``b" \\n"``, ``b"\\n "``, ``b"\\n\\n"``), so a run cut at a line end encodes otherwise."""


def lines_of(text: str) -> list[str]:
    """The lines of ``text`` as iterating over a file gives them (each keeps its newline)."""
    return text.splitlines(keepends=True) or [text]


def streamed(calls: Calls, lines: list[str], vocab: dict, merges: list,
             special_tokens: list[str], take: int | None) -> tuple[Any, str]:
    """The trace of the student's ``encode_iterable`` given ``lines`` one request at a time
    (the ids it yielded, up to ``take``, and how many lines it had been handed before each),
    and why the call failed ("" when it did not); the trace is None when there is none."""
    name = calls.exercise.function(ITERABLE).name
    if not isinstance(calls.box, Sandbox):
        return None, "this grader cannot stream lines to the submission"
    calls.calling_the_box()
    feed = Feed(0, lines, take=take)
    outcome = calls.box.call(name, [None, dict(vocab), [tuple(m) for m in merges],
                                    list(special_tokens)], feed=feed, measure_cpu=False)
    return outcome.stream, "" if outcome.ok else f"{name} failed: {outcome.error}"


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
    trace, failure = streamed(calls, lines, vocab, merges, specials, None)
    if trace is None or failure:
        return Verdict(False, failure, details)
    name = calls.exercise.function(ITERABLE).name
    try:
        ids = token_ids(trace.outputs, name)
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
    trace, failure = streamed(calls, [line] * repeat, vocab, merges, list(case.special_tokens), 1)
    if trace is not None and trace.read_all_first:  # the grader's own count, not the call's
        return Verdict(False, (f"given {given} one at a time, {name} read every one of them "
                               f"before yielding any id: {LAZY_HOW}"))
    if trace is None or not trace.outputs:
        why = failure or f"{name} yielded no id"
        return Verdict(False, f"given {given} one at a time, {why}; {LAZY_HOW}")
    first, expected = trace.outputs[0], expected_ids(case, line * 2)[0]
    if first != expected:
        return Verdict(False, (f"given {given}, the first id {name} yielded was "
                               f"{describe(first)}, not {expected}, the first id of encode of "
                               "the joined lines."))
    return Verdict(True)


ACROSS_HOW = ("GPT-2's pattern makes a run of spaces and newlines one pre-token even where it "
              "goes on past a line's end, so keep the whitespace at the end of what you have "
              "read and encode it with the next line.")
LAZY_HOW = ("CS336's encode_iterable is a generator that reads its input a line at a time and "
            "yields ids before reading the rest, so a file too large for memory streams "
            "through: add each line to what is pending, encode and yield all of it but the "
            "whitespace at its end (a run of spaces and newlines can go on in the next line), "
            "keep that, and encode what is pending once the lines run out.")
