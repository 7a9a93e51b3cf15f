"""How the byte-level roles are checked on generated inputs, and how a failure reads.

Training is judged on ``(text, special_tokens, num_merges)`` as the cases judge it: the merges
exactly and in order, the vocabulary as the same set of tokens under ids ``0..n-1``. Encoding
is judged on a text encoded with the vocab and merges the reference trained on the input's
text (so a training mistake does not cascade), decoding on those ids, their last token cut
short in the middle of a character for some inputs. Bytes are shown as Python literals. Each
role's :class:`~grader.spec.hooks.Generated` record is built here; the inputs are made in
:mod:`.generated`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Optional

from grader.families.byte_level import generated as inputs
from grader.families.byte_level.do_nothing import trivial_answer
from grader.families.byte_level.step_counts import first_difference
from grader.families.byte_level.judges import INVALID_WHY, merges_problem, show_bytes, vocab_problem
from grader.families.api import Calls, Exercise, Failure, Generated, Shown
from reference.byte_level import decode_byte_bpe

TRAIN, ENCODE, DECODE = "train_byte_bpe", "encode_byte_bpe", "decode_byte_bpe"
SHOWN = 200


def _short(text: str) -> str:
    return text if len(text) <= SHOWN else text[:SHOWN - 3] + "..."


# --------------------------------------------------------------------------- training


def train_judge(calls: Calls) -> Callable[[Any], Optional[Failure]]:
    def judge(example: inputs.Train) -> Optional[Failure]:
        vocab, merges = inputs.reference_training(*example)
        answer = calls.remembered(TRAIN, *inputs.train_args(example))
        if answer.ok and not training_problem(answer.value, vocab, merges):
            return None
        return Failure(example, answer, (vocab, merges))

    return judge


def training_problem(value: Any, vocab: dict, merges: list) -> Optional[str]:
    """Why a trainer's ``(vocab, merges)`` is not the reference's, in words, or None."""
    got_vocab, got_merges = value
    return merges_problem(merges, got_merges) or vocab_problem(vocab, got_vocab)


def train_call_text(calls: Calls, example: Any) -> str:
    text, size, specials = inputs.train_args(example)
    return f"{calls.function_name(TRAIN)}({_short(text)!r}, {size}, {specials!r})"


def train_given(calls: Calls, example: Any) -> dict[str, Any]:
    text, size, specials = inputs.train_args(example)
    return {"text": _short(text), "vocab_size": size, "special_tokens": specials}


def train_observed(exercise: Exercise, example: Any) -> dict[str, Any]:
    text, size, specials = inputs.train_args(example)
    return {"text": text, "vocab_size": size, "special_tokens": specials}


def train_shown(calls: Calls, failure: Failure) -> Shown:
    vocab, merges = failure.expected
    expected = show_bytes(merges)
    if not failure.answer.ok:
        return Shown(expected)
    text, _, specials = inputs.train_args(failure.example)
    try:
        difference = first_difference(text, list(specials), merges, failure.answer.value[1])
    except (TypeError, ValueError):  # merges of another shape: no table
        difference = None
    return Shown(expected, show_bytes(failure.answer.value[1]),
                 training_problem(failure.answer.value, vocab, merges) or "", difference)


def train_real_work(exercise: Exercise, example: Any) -> bool:
    text, size, specials = inputs.train_args(example)
    return not trivial_answer(exercise, TRAIN, (text, size, specials),
                              inputs.reference_training(*example))


# --------------------------------------------------------------------------- encoding, decoding


def _trained(example: Any) -> tuple[dict, list]:
    return inputs.reference_training(*example[:3])


def encode_judge(calls: Calls) -> Callable[[Any], Optional[Failure]]:
    def judge(example: Any) -> Optional[Failure]:
        vocab, merges = _trained(example)
        expected = inputs.reference_ids(example)
        answer = calls.remembered(ENCODE, example[3], vocab, merges, list(example[1]))
        if answer.ok and answer.value == expected:
            return None
        return Failure(example, answer, expected)

    return judge


def _merges_text(example: Any) -> str:
    text, specials, num_merges = example[:3]
    return (f"the vocab and merges learned from {_short(text)!r} to "
            f"{256 + len(specials) + num_merges} tokens")


def encode_call_text(calls: Calls, example: Any) -> str:
    return (f"{calls.function_name(ENCODE)}({_short(example[3])!r}, vocab, merges, "
            f"{list(example[1])!r}) with {_merges_text(example)}")


def encode_given(calls: Calls, example: Any) -> dict[str, Any]:
    text, specials, num_merges, encoded = example[:4]
    _, merges = _trained(example)
    return {"text": _short(encoded), "special_tokens": list(specials),
            "trained_on": _short(text), "merges": show_bytes(merges)}


def encode_observed(exercise: Exercise, example: Any) -> dict[str, Any]:
    vocab, merges = _trained(example)
    return {"text": example[3], "vocab": vocab, "merges": merges,
            "special_tokens": list(example[1])}


def ids_shown(calls: Calls, failure: Failure) -> Shown:
    vocab, _ = _trained(failure.example)
    expected = failure.expected
    if not failure.answer.ok:
        return Shown(expected)
    got = failure.answer.value
    tokens = show_bytes([vocab.get(i, b"?") for i in got])
    return Shown(expected, got, (f"expected the tokens {show_bytes([vocab[i] for i in expected])['literal']}, "
                                 f"got {tokens['literal']}."))


def encode_real_work(exercise: Exercise, example: Any) -> bool:
    vocab, merges = _trained(example)
    return not trivial_answer(exercise, ENCODE, (example[3], vocab, merges, list(example[1])),
                              inputs.reference_ids(example))


def decode_judge(calls: Calls) -> Callable[[Any], Optional[Failure]]:
    def judge(example: Any) -> Optional[Failure]:
        vocab, _ = _trained(example)
        ids = inputs.ids_to_decode(example)
        expected = decode_byte_bpe(ids, vocab)
        answer = calls.remembered(DECODE, ids, vocab)
        if answer.ok and answer.value == expected:
            return None
        if not answer.ok and answer.kind == "exception" and not _valid_utf8(ids, vocab):
            answer = replace(answer, failure=f"{answer.failure}; {INVALID_WHY}")
        return Failure(example, answer, expected)

    return judge


def _valid_utf8(ids: list[int], vocab: dict) -> bool:
    try:
        b"".join(vocab[i] for i in ids).decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def decode_call_text(calls: Calls, example: Any) -> str:
    cut = " (the last token cut short)" if example[4] else ""
    return (f"{calls.function_name(DECODE)}({inputs.ids_to_decode(example)!r}, vocab), the ids "
            f"of {_short(example[3])!r}{cut} with {_merges_text(example)}")


def decode_given(calls: Calls, example: Any) -> dict[str, Any]:
    vocab, _ = _trained(example)
    ids = inputs.ids_to_decode(example)
    return {"ids": ids, "tokens": show_bytes([vocab[i] for i in ids])}


def decode_observed(exercise: Exercise, example: Any) -> dict[str, Any]:
    vocab, _ = _trained(example)
    return {"ids": inputs.ids_to_decode(example), "vocab": vocab}


def text_shown(calls: Calls, failure: Failure) -> Shown:
    if not failure.answer.ok:
        return Shown(failure.expected)
    return Shown(failure.expected, failure.answer.value,
                 f"expected {failure.expected!r}, got {failure.answer.value!r}: join the ids' "
                 "bytes, then decode once with errors='replace'.")


def decode_real_work(exercise: Exercise, example: Any) -> bool:
    vocab, _ = _trained(example)
    ids = inputs.ids_to_decode(example)
    return not trivial_answer(exercise, DECODE, (ids, vocab), decode_byte_bpe(ids, vocab))


# --------------------------------------------------------------------------- the records


def _record(strategy: Callable, targeted: Callable, judge: Callable, call_text: Callable,
            given: Callable, observed: Callable, shown: Callable, real_work: Callable,
            display: Optional[Callable] = None) -> Generated:
    return Generated(
        strategy=strategy, targeted=targeted, count=inputs.count, settings=inputs.settings_key,
        judge=judge, call_text=call_text, given=given, observed=observed, shown=shown,
        real_work=real_work, ahead=inputs.training_ahead, install=inputs.install,
        display=display, reductions=inputs.reductions,
    )


TRAIN_INPUTS = _record(inputs.training_strategy, inputs.targeted_training, train_judge,
                       train_call_text, train_given, train_observed, train_shown, train_real_work,
                       display=lambda value: show_bytes(value[1]))
ENCODE_INPUTS = _record(inputs.encoding_strategy, inputs.targeted_encoding, encode_judge,
                        encode_call_text, encode_given, encode_observed, ids_shown,
                        encode_real_work)
DECODE_INPUTS = _record(inputs.decoding_strategy, inputs.targeted_decoding, decode_judge,
                        decode_call_text, decode_given, decode_observed, text_shown,
                        decode_real_work)
