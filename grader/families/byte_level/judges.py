"""The ``cases`` check's items for the byte-level roles (CS336 conventions).

Training is judged on the merges, exactly and in order, and on the vocabulary as CS336's own
tests judge it: the same set of tokens under ids ``0..n-1`` (which id a token gets is free).
Encoding and decoding are judged per text of the case's ``encode`` list, with the reference's
vocab and merges for the case, so a training mistake does not cascade; decoding must give
back the text exactly. Every call is noted as an observation, so the milestone's mistakes
are named from all its inputs at once; tokens returned as ``str`` are noted with the value
returned, which the family's canonical form tells apart (:mod:`.mistakes`). Bytes appear in
feedback as Python literals (``[(b'c', b'd')]``), which every report shows as written.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Optional

from grader.families.byte_level.do_nothing import trivial_answer
from grader.families.byte_level.expected import case_text, expected_ids, reference_byte_bpe, vocab_size
from grader.families.byte_level.spec import ByteCase as Case
from grader.families.byte_level.step_counts import first_difference
from grader.families.byte_level.steps import training_steps
from grader.families.api import (
    Calls,
    CaseItem,
    CaseLabel,
    Observation,
    StudentAnswer,
    Verdict,
    first_differing_index,
    literal,
    observed,
)
from reference.byte_level import decode_byte_bpe

TEXT_SHOWN = 120
TRAIN, ENCODE, DECODE = "train_byte_bpe", "encode_byte_bpe", "decode_byte_bpe"


def train_items(calls: Calls, case: Case, label: CaseLabel) -> list[CaseItem]:
    inputs = (case_text(case), vocab_size(case), list(case.special_tokens))
    work = not trivial_answer(calls.exercise, TRAIN, inputs, reference_byte_bpe(case))
    return [CaseItem(label.check_id, label.title(f"train to {vocab_size(case)} tokens"),
                     label.visibility, partial(_judge_train, calls, case), real_work=work)]


def encode_items(calls: Calls, case: Case, label: CaseLabel) -> list[CaseItem]:
    vocab, merges = reference_byte_bpe(case)
    specials = list(case.special_tokens)

    def work(text: str) -> bool:
        inputs = (text, vocab, merges, specials)
        return not trivial_answer(calls.exercise, ENCODE, inputs, expected_ids(case, text))

    return _text_items(calls, case, label, _judge_encode, "encode", work)


def decode_items(calls: Calls, case: Case, label: CaseLabel) -> list[CaseItem]:
    """A round trip per text, and one decoding of ids that are not valid UTF-8: the first
    text's ids with a lone continuation byte after them, which decodes to U+FFFD."""
    vocab, _ = reference_byte_bpe(case)

    def work(text: str) -> bool:
        return not trivial_answer(calls.exercise, DECODE, (expected_ids(case, text), vocab), text)

    items = _text_items(calls, case, label, _judge_decode, "decode the ids of", work)
    if case.encode:
        number = len(case.encode) + 1
        items.append(CaseItem(
            f"{label.check_id}:{number}",
            f"{label.name}: decode ids that are not valid UTF-8" if label.public
            else f"{label.name}, text {number}",
            label.visibility, partial(_judge_invalid_decode, calls, case, case.encode[0].word),
            real_work=True))
    return items


def _text_items(calls: Calls, case: Case, label: CaseLabel, judge: Any,
                verb: str, work: Callable[[str], bool]) -> list[CaseItem]:
    """One item per text of the case; ``work(text)``: whether its right answer is evidence
    of work (not what a do-nothing function returns)."""
    return [
        CaseItem(f"{label.check_id}:{number}",
                 f"{label.name}: {verb} {_short(item.word)!r}" if label.public
                 else f"{label.name}, text {number}",
                 label.visibility, partial(judge, calls, case, item.word),
                 real_work=work(item.word))
        for number, item in enumerate(case.encode, 1)
    ]


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def show_bytes(value: Any) -> dict[str, str]:
    """Tokens and merges as the Python literal of their bytes (``[(b'c', b'd')]``), shown as
    written in every report (:func:`grader.grading.feedback.literal`)."""
    return literal(_as_tuples(value))


def _as_tuples(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        items = [_as_tuples(item) for item in value]
        return tuple(items) if isinstance(value, tuple) else items
    return value


def _given(case: Case) -> dict[str, Any]:
    text = case_text(case)
    return {"text": text if len(text) <= TEXT_SHOWN else text[:TEXT_SHOWN] + "...",
            "vocab_size": vocab_size(case), "special_tokens": list(case.special_tokens)}


def _judge_train(calls: Calls, case: Case) -> Verdict:
    vocab, merges = reference_byte_bpe(case)
    answer = calls.call(TRAIN, case_text(case), vocab_size(case), list(case.special_tokens))
    details: dict[str, Any] = {"kind": "byte-training", "input": _given(case),
                               "expected_merges": show_bytes(merges[:40])}
    seen = _seen({"text": case_text(case), "vocab_size": vocab_size(case),
                  "special_tokens": list(case.special_tokens)}, answer)
    if not answer.ok:
        return Verdict(False, answer.failure or "", details, observation=seen)
    got_vocab, got_merges = answer.value
    problem = merges_problem(merges, got_merges) or vocab_problem(vocab, got_vocab)
    if problem is None:
        return Verdict(True, observation=seen)
    details["your_merges"] = show_bytes(got_merges[:40])
    difference = _first_difference(case, merges, got_merges)
    if difference is not None:
        details["first_difference"] = difference
    steps = (partial(training_steps, case_text(case), list(case.special_tokens), merges, got_merges)
             if merges != got_merges else None)
    return Verdict(False, problem, details, observation=seen, steps=steps)


def _first_difference(case: Case, merges: list, got_merges: Any) -> Optional[dict[str, Any]]:
    """The pair counts at the first differing merge, counted from the case's text (as on
    generated inputs); none for merges of another shape."""
    try:
        return first_difference(case_text(case), list(case.special_tokens), merges,
                                list(got_merges))
    except (TypeError, ValueError):
        return None


def _seen(inputs: dict[str, Any], answer: StudentAnswer) -> Observation:
    """The call as an observation; str tokens as the value returned, for the canonical form
    to recognise (any other wrong shape is a failure no mistake reproduces)."""
    if answer.kind == "shape-str":
        return Observation(inputs, actual=answer.returned)
    return observed(inputs, answer)


def merges_problem(expected: list, actual: list) -> Optional[str]:
    index = first_differing_index(expected, actual)
    if index is None:
        return None
    if index >= len(actual):
        return (f"your merges stop after {len(actual)}, but merge {index + 1} should be "
                f"{expected[index]!r}.")
    if index >= len(expected):
        return (f"merge {index + 1} should not exist: the reference stops after {len(expected)} "
                f"merges (the vocabulary is full or no pair is left); you returned {actual[index]!r}.")
    return (f"merge {index + 1} differs: expected {expected[index]!r}, got {actual[index]!r}. "
            "Count pairs within pre-tokens only (GPT-2's pattern, between special tokens), "
            "weighted by how often each pre-token occurs; ties go to the greater pair of bytes.")


def vocab_problem(expected: dict, actual: dict) -> Optional[str]:
    if sorted(actual) != list(range(len(actual))):
        return f"the vocab's ids must be 0..{len(actual) - 1} with none missing."
    want, got = set(expected.values()), set(actual.values())
    if len(actual) != len(expected):
        return f"the vocab has {len(actual)} tokens; expected {len(expected)}."
    if want != got:
        missing = sorted(want - got)[:5]
        extra = sorted(got - want)[:5]
        return (f"the vocab's tokens differ: missing {missing!r}, unexpected {extra!r}. It holds "
                "the special tokens' bytes, the 256 single bytes and one token per merge.")
    return None


def _judge_encode(calls: Calls, case: Case, text: str) -> Verdict:
    vocab, merges = reference_byte_bpe(case)
    expected = expected_ids(case, text)
    answer = calls.call(ENCODE, text, vocab, merges, list(case.special_tokens))
    seen = observed({"text": text, "vocab": vocab, "merges": merges,
                     "special_tokens": list(case.special_tokens)}, answer)
    details: dict[str, Any] = {"kind": "byte-ids", "input": {"text": text},
                               "expected": expected,
                               "expected_tokens": show_bytes([vocab[i] for i in expected])}
    if answer.ok and answer.value == expected:
        return Verdict(True, observation=seen)
    if not answer.ok:
        return Verdict(False, answer.failure or "", details, observation=seen)
    details["actual"] = answer.value
    details["your_tokens"] = show_bytes([vocab.get(i, b"?") for i in answer.value])
    index = first_differing_index(expected, answer.value)
    message = (f"{calls.function_name(ENCODE)}({_short(text)!r}, ...) returned "
               f"{len(answer.value)} ids, expected {len(expected)}; they first differ at id "
               f"{(index or 0) + 1}.")
    return Verdict(False, message, details, observation=seen)


def invalid_ids(case: Case, text: str) -> list[int]:
    """The ids of ``text`` followed by the id of the lone byte 0x80, valid UTF-8 nowhere."""
    vocab, _ = reference_byte_bpe(case)
    lone = next(i for i, token in vocab.items() if token == b"\x80")
    return expected_ids(case, text) + [lone]


INVALID_WHY = ("bytes that are not valid UTF-8 (here a lone b'\\x80') must decode to the "
               "replacement character U+FFFD, not fail: decode the joined bytes with "
               "errors='replace'.")


def _judge_invalid_decode(calls: Calls, case: Case, text: str) -> Verdict:
    vocab, _ = reference_byte_bpe(case)
    ids = invalid_ids(case, text)
    expected = decode_byte_bpe(ids, vocab)
    return _decode_verdict(
        calls, ids, vocab, expected, lambda failure: f"{failure}; {INVALID_WHY}",
        lambda got: f"decoding gave {_short(got)!r}, expected {_short(expected)!r}: {INVALID_WHY}")


def _judge_decode(calls: Calls, case: Case, text: str) -> Verdict:
    vocab, _ = reference_byte_bpe(case)
    return _decode_verdict(
        calls, expected_ids(case, text), vocab, text, lambda failure: failure,
        lambda got: (f"decoding the ids of {_short(text)!r} gave {_short(got)!r}; a round "
                     "trip must give the text back exactly."))


def _decode_verdict(calls: Calls, ids: list[int], vocab: dict, expected: str,
                    failed: Callable[[str], str], wrong: Callable[[str], str]) -> Verdict:
    """The student's decoding of ``ids`` against ``expected``; ``failed`` words a call that
    gave no text, ``wrong`` a text that differs."""
    answer = calls.call(DECODE, ids, vocab)
    seen = observed({"ids": ids, "vocab": vocab}, answer)
    details: dict[str, Any] = {"kind": "byte-text", "input": {"ids": ids,
                               "tokens": show_bytes([vocab[i] for i in ids])}, "expected": expected}
    if answer.ok and answer.value == expected:
        return Verdict(True, observation=seen)
    if not answer.ok:
        return Verdict(False, failed(answer.failure or ""), details, observation=seen)
    details["actual"] = answer.value
    return Verdict(False, wrong(answer.value), details, observation=seen)

