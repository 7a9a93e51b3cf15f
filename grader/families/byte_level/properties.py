"""The laws every right answer of byte-level BPE obeys, checked without the reference's answer.

Training is deterministic; ``train(t, n)``'s merges are the start of ``train(t, n + 1)``'s;
its vocabulary is the special tokens, the 256 single bytes and one token per merge, and no
larger than asked; each merge joins two tokens that exist at that step and makes a token
that occurs inside some pre-token of the text (pairs never cross a pre-token or a special
token); and each merge is a most frequent pair of the pre-tokens as rewritten by the merges
before it, training stopping early only when no pair is left (whatever the tie rule:
:mod:`.honest_run`). Encoding is deterministic, its tokens join back to the text's bytes,
a special token alone encodes to its id, and special tokens are hard boundaries
(``encode(x + s + x)`` is ``encode(x) + [id of s] + encode(x)``). Decoding is deterministic,
gives the text back from its ids, and from the ids of its single bytes one by one. No role
modifies its arguments. Encoding and decoding use the vocab and merges the reference trained
on the input's text, as a student's own trainer would hand them over.
"""

from __future__ import annotations

from typing import Any, Optional

from grader.families.byte_level import generated as inputs
from grader.families.byte_level.honest_run import departure, departure_text, pairs_left, vocab_problem
from grader.families.api import (
    Calls,
    Failure,
    Property,
    StudentAnswer,
    deterministic,
    failed_call,
    inputs_unmodified,
)
from reference.byte_level import pretokenize

TRAIN, ENCODE, DECODE = "train_byte_bpe", "encode_byte_bpe", "decode_byte_bpe"


def train_properties(calls: Calls) -> list[Property]:
    name = calls.function_name(TRAIN)

    def trained(example: Any) -> StudentAnswer:
        return calls.remembered(TRAIN, *inputs.train_args(example))

    def prefix_stable(example: Any) -> Optional[Failure]:
        shorter = trained(example)
        if not shorter.ok:
            return failed_call(example, shorter)
        text, specials, num_merges = example
        longer = trained((text, specials, num_merges + 1))
        if not longer.ok:  # the crash is the call with one more merge: name its mistake there
            crash = failed_call(example, longer)
            crash.inputs = {"text": text, "vocab_size": inputs.vocab_size(example) + 1,
                            "special_tokens": list(specials)}
            return crash
        short, long = shorter.value[1], longer.value[1]
        if long[:len(short)] != short:
            return Failure(example, shorter, explanation=(
                f"with vocab_size {inputs.vocab_size(example)} the merges are {short!r}, which "
                f"is not the start of those with one more token, {long!r}: merges must not "
                "change when more are asked for"))
        return None

    def vocab_of_merges(example: Any) -> Optional[Failure]:
        answer = trained(example)
        if not answer.ok:
            return failed_call(example, answer)
        vocab, merges = answer.value
        problem = vocab_problem(vocab, merges, example[1])
        if problem is None and len(vocab) > inputs.vocab_size(example):
            problem = (f"the vocab has {len(vocab)} tokens, more than vocab_size "
                       f"{inputs.vocab_size(example)}")
        return None if problem is None else Failure(example, answer, explanation=problem)

    def merges_within_pretokens(example: Any) -> Optional[Failure]:
        answer = trained(example)
        if not answer.ok:
            return failed_call(example, answer)
        text, specials, _ = example
        pieces = [piece.encode("utf-8") for piece in set(pretokenize(text, list(specials)))]
        tokens = {bytes([b]) for b in range(256)}
        for index, (first, second) in enumerate(answer.value[1]):
            if first not in tokens or second not in tokens:
                return Failure(example, answer, explanation=(
                    f"merge {index + 1}, {(first, second)!r}, joins a token that is neither a "
                    "single byte nor made by an earlier merge"))
            made = first + second
            if not any(made in piece for piece in pieces):
                return Failure(example, answer, explanation=(
                    f"merge {index + 1} makes {made!r}, which occurs in no pre-token of the "
                    "text: pairs are counted within pre-tokens only (GPT-2's pattern between "
                    "special tokens), never across them"))
            tokens.add(made)
        return None

    def most_frequent(example: Any) -> Optional[Failure]:
        answer = trained(example)
        if not answer.ok:
            return failed_call(example, answer)
        text, specials, num_merges = example
        merges = answer.value[1][:num_merges]
        found = departure(text, specials, merges)
        if found is not None:
            return Failure(example, answer, explanation=departure_text(name, merges, found))
        if len(merges) < num_merges and pairs_left(text, specials, merges):
            return Failure(example, answer, explanation=(
                f"{name} stopped after {len(merges)} merges while pairs were left and the "
                f"vocabulary had room for {num_merges}"))
        return None

    return [
        deterministic("same input, same vocab and merges", trained,
                      lambda example: calls.answer(TRAIN, *inputs.train_args(example))),
        Property("prefix-stable", "merges for n tokens start those for n + 1", prefix_stable),
        Property("vocab-of-merges", "the vocab is the special tokens, 256 bytes and one token "
                 "per merge", vocab_of_merges),
        Property("within-pre-tokens", "every merge joins tokens inside a pre-token",
                 merges_within_pretokens),
        Property("most-frequent", "every merge is a most frequent pair at its step",
                 most_frequent),
        inputs_unmodified(trained),
    ]


def _id_of(vocab: dict, token: bytes) -> Optional[int]:
    return next((i for i, t in vocab.items() if t == token), None)


def _encode_inputs(example: Any, text: str) -> dict[str, Any]:
    """The keyword arguments of an encoding of ``text`` with the input's vocab and merges."""
    vocab, merges = inputs.reference_training(*example[:3])
    return {"text": text, "vocab": vocab, "merges": merges, "special_tokens": list(example[1])}


def encode_properties(calls: Calls) -> list[Property]:
    def encoded(example: Any, text: Optional[str] = None) -> StudentAnswer:
        vocab, merges = inputs.reference_training(*example[:3])
        return calls.remembered(ENCODE, example[3] if text is None else text, vocab, merges,
                                list(example[1]))

    def round_trip(example: Any) -> Optional[Failure]:
        answer = encoded(example)
        if not answer.ok:
            return failed_call(example, answer)
        vocab, _ = inputs.reference_training(*example[:3])
        joined = b"".join(vocab.get(i, b"?") for i in answer.value)
        if joined != example[3].encode("utf-8"):
            return Failure(example, answer, explanation=(
                f"the tokens of the ids join to {joined!r}, not the text's bytes "
                f"{example[3].encode('utf-8')!r}"))
        return None

    def special_ids(example: Any) -> Optional[Failure]:
        vocab, _ = inputs.reference_training(*example[:3])
        for special in example[1]:
            answer = encoded(example, special)
            if not answer.ok:
                return failed_call(example, answer)
            want = [_id_of(vocab, special.encode("utf-8"))]
            if answer.value != want:
                return Failure(example, answer, inputs=_encode_inputs(example, special),
                               explanation=(
                    f"the special token {special!r} alone encodes to {answer.value!r}, not its "
                    f"own id {want!r}"))
        return None

    def boundaries(example: Any) -> Optional[Failure]:
        if not example[1]:
            return None
        vocab, _ = inputs.reference_training(*example[:3])
        special, text = example[1][0], example[3]
        reference = inputs.reference_encoder(*example[:3])  # its vocab, merges and specials
        right = reference.encode(text)
        if reference.encode(text + special + text) != (
                right + [_id_of(vocab, special.encode("utf-8"))] + right):
            return None  # the text's own ends make a longer special token with it: no law here
        whole, part = encoded(example, text + special + text), encoded(example, text)
        for answer in (whole, part):
            if not answer.ok:
                return failed_call(example, answer)
        want = part.value + [_id_of(vocab, special.encode("utf-8"))] + part.value
        if whole.value != want:
            return Failure(example, whole, inputs=_encode_inputs(example, text + special + text),
                           explanation=(
                f"encoding {text + special + text!r} gave {whole.value!r}, but a special token "
                f"is a hard boundary: it should be the ids of {text!r}, the id of {special!r}, "
                f"and the ids of {text!r} again, {want!r}"))
        return None

    return [
        deterministic("same input, same ids", encoded,
                      lambda example: calls.answer(ENCODE, example[3],
                                                   *inputs.reference_training(*example[:3]),
                                                   list(example[1]))),
        Property("round-trip", "the ids' tokens join back to the text's bytes", round_trip),
        Property("special-ids", "a special token alone encodes to its id", special_ids),
        Property("special-boundaries", "special tokens are hard boundaries", boundaries),
        inputs_unmodified(encoded),
    ]


def decode_properties(calls: Calls) -> list[Property]:
    def decoded(example: Any) -> StudentAnswer:
        vocab, _ = inputs.reference_training(*example[:3])
        return calls.remembered(DECODE, inputs.reference_ids(example), vocab)

    def round_trip(example: Any) -> Optional[Failure]:
        if example[4]:
            return None  # ids cut short are not a text's ids: no round trip to check
        answer = decoded(example)
        if not answer.ok:
            return failed_call(example, answer)
        if answer.value != example[3]:
            return Failure(example, answer, explanation=(
                f"decoding the ids of {example[3]!r} gave {answer.value!r}"))
        return None

    def byte_by_byte(example: Any) -> Optional[Failure]:
        if example[4]:
            return None
        # With no merges, a text's ids are its single bytes: the input shown is the one called.
        single = (*example[:2], 0, example[3], False)
        vocab, _ = inputs.reference_training(*single[:3])
        ids = inputs.reference_ids(single)
        answer = calls.remembered(DECODE, ids, vocab)
        if not answer.ok:
            return failed_call(single, answer)
        if answer.value != example[3]:
            return Failure(single, answer, explanation=(
                f"decoding the ids of the single bytes of {example[3]!r} gave "
                f"{answer.value!r}: a character's bytes may be split over several tokens, so "
                "join all the bytes first and decode once"))
        return None

    return [
        deterministic("same ids, same text", decoded,
                      lambda example: calls.answer(DECODE, inputs.reference_ids(example),
                                                   inputs.reference_training(*example[:3])[0])),
        Property("round-trip", "decoding a text's ids gives the text back", round_trip),
        Property("byte-by-byte", "decoding a text's single bytes gives the text back",
                 byte_by_byte),
        inputs_unmodified(decoded),
    ]
