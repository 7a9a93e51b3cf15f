"""What the student reads: each test's verdict and each mistake's, every fact from the runs.

A sentence about a run is computed from that run (its outcome, line, served calls and
answers); one that depends on a further computation (the witness input on which a mistake and
the reference disagree, a literal that differs from the reference's answer) is a ``Claim``,
left out unless it holds.
"""

from __future__ import annotations

from typing import Any, Optional

from grader.families.api import Claim, said
from grader.families.bpe_tests.groups import Group
from grader.families.bpe_tests.implementations import MISTAKEN, REFERENCE, TRAIN, Implementation
from grader.families.bpe_tests.outcomes import AT_LINE, Call, Run
from grader.families.bpe_tests.test_file import TestFile
from grader.families.bpe_tests.verdicts import (MistakeVerdict, ReferenceAnswer, TestVerdict,
                                                differing_call)

SHOWN = 160
MAX_CALLS_SHOWN = 4
NOUNS = {"train": "a trainer", "encode": "an encoder"}


def shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def call_text(call: Call) -> str:
    arguments = [shown(arg) for arg in call.args] + [f"{name}={shown(value)}"
                                                     for name, value in call.kwargs]
    return f"{call.function}({', '.join(arguments)})"


def outcome_text(call: Call) -> str:
    return f"raises {call.error}" if call.error is not None else f"returns {shown(call.answer)}"


# --------------------------------------------------------------------------- tests


def test_message(verdict: TestVerdict, tests: TestFile, *, max_tests: int) -> str:
    status, first = verdict.status, verdict.first
    if status == "valid":
        return said("passes on the correct BPE, with the same calls and answers on both runs",
                    Claim(f"and fails on {_named(verdict.failed_by)} through a wrong answer",
                          lambda: verdict.failed_by is not None), sep=", ")
    if status == "not-run":
        return (f"not run: at most {max_tests} tests of a file are graded; move the tests that "
                "matter most to the top or merge small ones")
    if status == "unfinished":
        return ("not graded: the grading reached its time limit before this test could run "
                "on the correct BPE; make your tests faster (small corpora, few merges)")
    if status == "unrunnable":
        return f"not run: {verdict.test.problem}; it earns nothing"
    if status == "too-slow":
        slow = first if first is not None and first.status == "timed-out" else verdict.second
        return (f"too slow: its run on the correct BPE did not finish "
                f"({slow.message if slow else 'timed out'}); keep each test's inputs small; it "
                "earns nothing")
    if status == "not-deterministic":
        return ("not deterministic: " + _difference(verdict.first, verdict.second)
                + "; seed your random inputs (random.Random(0)) so every run makes the same "
                "calls; it earns nothing")
    if status == "fails-reference":
        return fails_on_reference(verdict, tests)
    return asserts_nothing(verdict, tests)


def _named(implementation: Optional[Implementation]) -> str:
    if implementation is None:
        return ""
    if implementation.mistake is not None:
        return f"the known mistake {implementation.mistake.id}"
    return implementation.title


def _difference(first: Optional[Run], second: Optional[Run]) -> str:
    if first is None or second is None:
        return "its two runs on the correct BPE differ"
    if first.status != second.status:
        return (f"on the correct BPE it {_status_words(first)} the first time and "
                f"{_status_words(second)} the second")
    for index, (one, two) in enumerate(zip(first.calls, second.calls)):
        if not one.same(two) and call_text(one) != call_text(two):
            return (f"call {index + 1} on the correct BPE was {call_text(one)} the first time "
                    f"and {call_text(two)} the second")
        if not one.same(two):
            return (f"call {index + 1} on the correct BPE, {call_text(one)}, got another "
                    "answer the second time")
    if len(first.calls) != len(second.calls):
        return (f"it made {len(first.calls)} calls on the correct BPE the first time and "
                f"{len(second.calls)} the second")
    return "its two runs on the correct BPE ended differently"


def _status_words(run: Run) -> str:
    return {"passed": "passed", "failed": "failed", "timed-out": "timed out",
            "crashed": "crashed"}[run.status]


def fails_on_reference(verdict: TestVerdict, tests: TestFile) -> str:
    """Where the test failed, and what the correct BPE answered: the compared values when the
    failing line is ``assert CALL == LITERAL``, else the calls the test made with their
    answers (all from the reference run's own log)."""
    run = verdict.first
    where = f" at line {run.line}" if run.line else ""
    line = tests.line_text(run.line)
    head = f"fails on the correct BPE{where}" + (f": `{line}`" if line else "")
    expectation = tests.expectation(verdict.test.name, run.line) if run.status == "failed" else None
    last = next((call for call in reversed(run.calls)
                 if expectation is not None and call.function == expectation.function), None)
    if expectation is not None and last is not None and last.error is None:
        compared = _compared(expectation.expected, last)
        if compared.true():
            return said(head + ".", compared, _assertion_message(run), "It earns nothing.")
    parts = [head + f" ({run.message})." if run.status != "failed" else head + "."]
    parts.append(_assertion_message(run))
    if run.calls:
        calls = run.calls[-MAX_CALLS_SHOWN:]
        skipped = len(run.calls) - len(calls)
        parts.append(("Its last calls and the correct BPE's answers: " if skipped else
                      "Its calls and the correct BPE's answers: ")
                     + "; ".join(f"{call_text(call)} {outcome_text(call)}" for call in calls)
                     + ".")
    else:
        parts.append("It made no call of train_bpe or encode before failing.")
    parts.append("It earns nothing.")
    return " ".join(part for part in parts if part)


def _assertion_message(run: Run) -> str:
    """The test's own message for its failed assert (``assert x == y, "message"``), if any."""
    if run.status != "failed":
        return ""
    text = AT_LINE.sub("", run.message).strip()
    prefix = "raised AssertionError: "
    return f"Its assertion says: {text[len(prefix):]}." if text.startswith(prefix) else ""


def _compared(expected: Any, call: Call) -> Claim:
    answer = call.answer
    text = (f"Your test expects {shown(expected)} from {call_text(call)}, the correct BPE "
            f"returns {shown(answer)}.")
    if _plain(expected) == _plain(answer) and expected != answer:
        text += (" They hold the same items, but one has lists where the other has tuples: "
                 "train_bpe returns its merges as (left, right) tuples")
        text += "." if call.function == TRAIN else "; compare tuples with tuples."
    return Claim(text, lambda: expected != answer)


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def asserts_nothing(verdict: TestVerdict, tests: TestFile) -> str:
    if verdict.first is not None and not verdict.first.calls:
        return ("asserts nothing: it calls neither train_bpe nor encode, so it passes on "
                "every implementation; it earns nothing")
    swallowing = verdict.test.swallowing
    others = verdict.do_nothing + verdict.mistaken
    return said(
        Claim("asserts nothing: it passes on the correct BPE, on both do-nothing BPEs and on "
              "every known mistake: none of them fails it.",
              lambda: bool(verdict.mistaken) and all(run.passed for run in others)),
        Claim("asserts nothing a wrong BPE breaks: where it fails on a do-nothing BPE or a "
              "known mistake, every answer it got was the correct BPE's, so the wrong answers "
              "never made it fail.",
              lambda: bool(verdict.mistaken) and not all(run.passed for run in others)),
        Claim(f"The except clause at line {swallowing[0] if swallowing else 0} catches every "
              "exception, AssertionError included, and does not raise it again: catch only "
              "the exception you expect (with try/except ValueError, say).",
              lambda: bool(swallowing)),
        "It earns nothing.")


# --------------------------------------------------------------------------- mistakes


def caught_message(verdict: MistakeVerdict, reference: ReferenceAnswer) -> str:
    call = differing_call(verdict.run, reference)
    answer, error = reference(call)
    correct = f"raises {error}" if error is not None else f"returns {shown(answer)}"
    return (f"caught by {verdict.caught_by}: with this mistake {call_text(call)} "
            f"{outcome_text(call)}; the correct BPE {correct}")


def unfinished_message() -> str:
    return ("not caught: the grading reached its time limit before all your tests ran against "
            "it; make your tests faster (small corpora, few merges)")


def slipped_message(verdict: MistakeVerdict, group: Group, all_valid: bool) -> str:
    implementation = MISTAKEN[verdict.mistake_id]
    mistake = implementation.mistake
    noun = NOUNS.get(mistake.role, "a BPE")
    tests = "all your tests" if all_valid else "all your tests that count"
    head = (f"{noun[0].upper()}{noun[1:]} with this mistake passes {tests}"
            if not verdict.answers_right else f"No test of yours catches {noun} with this mistake")
    notes = [f"{name} fails on it ({run.message or run.status}), but every answer it got "
             "there equals the correct BPE's, so the failure is not the mistake's doing and "
             "does not count" for name, run in verdict.answers_right[:2]]
    if len(verdict.answers_right) > 2:
        notes.append(f"so do {len(verdict.answers_right) - 2} more of your tests")
    witness = witness_call(implementation)
    return said(head + ":" if not notes else head + ";", *[note + ";" for note in notes],
                f"add a test with {group.advice}.",
                Claim(f"For instance {witness and call_text(witness)} is an input where it and "
                      "the correct BPE disagree.",
                      lambda: witness is not None and disagree(implementation, witness)))


def witness_call(implementation: Implementation) -> Optional[Call]:
    """The mistake's catalogue witness as a call of the served function (a corpus of word
    counts written as one text)."""
    mistake = implementation.mistake
    witness = dict(mistake.witness)
    if mistake.role == "train":
        corpus = witness["corpus"]
        if isinstance(corpus, dict):
            corpus = [" ".join(word for word, count in corpus.items() for _ in range(count))]
        return Call(TRAIN, (list(corpus), witness["num_merges"]))
    if mistake.role == "encode":
        return Call("encode", (witness["word"], [tuple(pair) for pair in witness["merges"]]))
    return None


def disagree(implementation: Implementation, call: Call) -> bool:
    def outcome(which):
        try:
            return which.answer(call.function, call.args), None
        except Exception as error:  # noqa: BLE001 - a raise is an answer here
            return None, type(error).__name__
    return outcome(implementation) != outcome(REFERENCE)
