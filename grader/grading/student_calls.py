"""Calling the student's functions through the sandbox, each answer shape-checked.

:class:`StudentCalls` knows one exercise's conventions: it sends inputs in the forms the
exercise promises the student (its corpus form; merge lists as ``(a, b)`` tuples or as
``((a, b), "ab")`` items), calls the function of a role in the sandbox, and turns what comes
back into a :class:`StudentAnswer`: the value in canonical form (merges as ``(str, str)``
tuples, tokens as ``str`` lists, lengths as a dict) or a message saying why there is none
(an exception, a time-out, a missing function, a value of the wrong shape). Nothing the
student returns is used before :mod:`grader.grading.shapes` has checked it. What each call
prints is kept for the report only when the call was on a visible input
(:mod:`grader.grading.output_ledger`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Optional, Protocol

from grader.grading import shapes
from grader.grading.output_ledger import OutputLedger
from grader.grading.plain_words import plain
from grader.grading.secrets import inputs_seed
from grader.spec import Exercise
from grader.spec.expected import to_merge_form

Pair = tuple[str, str]

MAX_FAILURE_CHARS = 300

# Outcome kinds whose sandbox message is a sentence of its own; the others read as a
# predicate of the function ("train_bpe raised KeyError: 'x'").
_SELF_CONTAINED_KINDS = frozenset({"missing", "budget"})


class CallOutcomeLike(Protocol):
    ok: bool
    value: Any
    error: Optional[str]
    kind: str


class SandboxLike(Protocol):
    def call(self, name: str, args: list, timeout: Optional[float] = None, *,
             echo_args: bool = False, measure_cpu: bool = True) -> CallOutcomeLike: ...


@dataclass(frozen=True)
class StudentAnswer:
    """What one call of a student function gave: a canonical value, or why there is none."""

    value: Any = None
    failure: Optional[str] = None
    kind: str = "ok"  # the sandbox outcome kind, or "shape" for a value of the wrong shape
    modified: Optional[str] = None  # which argument the call changed, in words

    @property
    def ok(self) -> bool:
        return self.failure is None


def cap(text: str, limit: int = MAX_FAILURE_CHARS) -> str:
    """``text`` cut to ``limit`` characters, marked when cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


class StudentCalls:
    """The student's functions of one submission, called with the exercise's conventions."""

    def __init__(
        self,
        box: SandboxLike,
        exercise: Exercise,
        defined: Optional[Iterable[str]] = None,
        *,
        file_name: Optional[str] = None,
        secret: Optional[str] = None,
        output: Optional[OutputLedger] = None,
    ) -> None:
        self.box = box
        self.exercise = exercise
        self.defined = None if defined is None else frozenset(defined)
        self.file_name = file_name or exercise.student_file
        self.calls = 0
        self._remembered: dict[str, StudentAnswer] = {}
        # The seed secret picks generated inputs and the timed corpus; None: the public ones.
        self.secret = secret
        self.output = output if output is not None else OutputLedger(box)

    @property
    def seed(self) -> Optional[int]:
        """The seed of the generated inputs (None without a secret: the derandomized ones)."""
        return None if self.secret is None else inputs_seed(self.secret, self.exercise.id)

    # ----------------------------------------------------------------- what is there

    def function_name(self, role: str) -> str:
        return self.exercise.function(role).name

    def missing_message(self, role: str) -> Optional[str]:
        """Why the function of ``role`` cannot be called at all, or None when it is defined."""
        name = self.function_name(role)
        if self.defined is not None and name not in self.defined:
            return (
                f"{self.file_name} does not define {name}(); write "
                f"def {self.exercise.function(role).signature.strip()}:"
            )
        return None

    # ----------------------------------------------------------------- the roles

    def train(self, corpus: Any, num_merges: int) -> StudentAnswer:
        """The student's merges for ``corpus`` (already in the exercise's corpus form)."""
        name = self.function_name("train")
        answer = self._call(name, [corpus, num_merges], ("corpus", "num_merges"))
        if not answer.ok:
            return answer
        return self._shaped(lambda: self.merges_shape(answer.value, name), answer.modified)

    def encode(self, word: str, merges: list[Pair]) -> StudentAnswer:
        """The student's tokens for ``word``, given ``merges`` in the exercise's merge form."""
        name = self.function_name("encode")
        answer = self._call(name, [word, self.merge_list(merges)], ("word", "merges"))
        if not answer.ok:
            return answer
        return self._shaped(lambda: shapes.tokens(answer.value, name), answer.modified)

    def sequence_lengths(self, sentence: str, merges: list[Pair]) -> StudentAnswer:
        name = self.function_name("sequence_lengths")
        answer = self._call(name, [sentence, self.merge_list(merges)], ("sentence", "merges"))
        if not answer.ok:
            return answer
        return self._shaped(lambda: shapes.lengths(answer.value, name), answer.modified)

    def train_wordpiece(self, corpus: Any, num_merges: int) -> StudentAnswer:
        """The student's WordPiece merges for ``corpus``, as bare pairs."""
        name = self.function_name("train_wordpiece")
        answer = self._call(name, [corpus, num_merges], ("corpus", "num_merges"))
        if not answer.ok:
            return answer
        return self._shaped(lambda: self.merges_shape(answer.value, name), answer.modified)

    def first_divergence(self, corpus: Any, num_merges: int) -> StudentAnswer:
        """The student's ``(step, bpe_pair, wordpiece_pair)`` for ``corpus``, or None."""
        name = self.function_name("first_divergence")
        answer = self._call(name, [corpus, num_merges], ("corpus", "num_merges"))
        if not answer.ok:
            return answer
        return self._shaped(lambda: shapes.divergence(answer.value, name), answer.modified)

    def train_byte_bpe(self, text: str, vocab_size: int, special_tokens: list[str]) -> StudentAnswer:
        """The student's ``(vocab, merges)`` for ``text``."""
        name = self.function_name("train_byte_bpe")
        answer = self._call(name, [text, vocab_size, list(special_tokens)],
                            ("text", "vocab_size", "special_tokens"))
        if not answer.ok:
            return answer
        return self._shaped(lambda: shapes.byte_training(answer.value, name), answer.modified)

    def encode_byte_bpe(self, text: str, vocab: dict, merges: list, special_tokens: list[str]) -> StudentAnswer:
        name = self.function_name("encode_byte_bpe")
        answer = self._call(name, [text, dict(vocab), [tuple(m) for m in merges], list(special_tokens)],
                            ("text", "vocab", "merges", "special_tokens"))
        if not answer.ok:
            return answer
        return self._shaped(lambda: shapes.token_ids(answer.value, name), answer.modified)

    def decode_byte_bpe(self, ids: list[int], vocab: dict) -> StudentAnswer:
        name = self.function_name("decode_byte_bpe")
        answer = self._call(name, [list(ids), dict(vocab)], ("ids", "vocab"))
        if not answer.ok:
            return answer
        return self._shaped(lambda: shapes.text(answer.value, name), answer.modified)

    def remembered(self, role: str, *args: Any) -> StudentAnswer:
        """The answer of ``role``'s function on ``args``, calling only the first time.

        Generated checks share answers this way; determinism checks call again directly.
        """
        key = repr((role, args))
        if key not in self._remembered:
            self._remembered[key] = self.answer(role, *args)
        return self._remembered[key]

    def answer(self, role: str, *args: Any) -> StudentAnswer:
        """A fresh call of ``role``'s function (train, encode or sequence_lengths)."""
        method = {"train": self.train, "encode": self.encode,
                  "sequence_lengths": self.sequence_lengths,
                  "train_wordpiece": self.train_wordpiece,
                  "first_divergence": self.first_divergence,
                  "train_byte_bpe": self.train_byte_bpe, "encode_byte_bpe": self.encode_byte_bpe,
                  "decode_byte_bpe": self.decode_byte_bpe}[role]
        return method(*args)

    # ----------------------------------------------------------------- conversions

    def merge_list(self, merges: list[Pair]) -> list[Any]:
        """Bare pairs written in the exercise's merge form, as the student's trainer returns them."""
        return to_merge_form(list(merges), self.exercise.conventions.merge_form)

    def merges_shape(self, value: Any, function: str) -> list[Pair]:
        conventions = self.exercise.conventions
        accept_lists = conventions.accept_lists_for_tuples
        if conventions.merge_form == "pairs-with-token":
            return shapes.merges_from_pairs_with_token(value, function, accept_lists=accept_lists)
        return shapes.merges_from_pairs(value, function, accept_lists=accept_lists)

    # ----------------------------------------------------------------- plumbing

    def _call(self, name: str, args: list, arg_names: tuple[str, ...]) -> StudentAnswer:
        self.calls += 1
        with self.output.call():
            outcome = self.box.call(name, args, echo_args=True, measure_cpu=False)
        if outcome.ok:
            after = getattr(outcome, "args_after", None)
            return StudentAnswer(value=outcome.value, modified=modification(name, arg_names, args, after))
        return StudentAnswer(failure=failure_message(name, outcome), kind=outcome.kind)

    @staticmethod
    def _shaped(convert: Any, modified: Optional[str] = None) -> StudentAnswer:
        try:
            return StudentAnswer(value=convert(), modified=modified)
        except shapes.ShapeError as error:
            return StudentAnswer(failure=cap(str(error)), kind=error.kind, modified=modified)


def modification(function: str, names: tuple[str, ...], sent: list, after: Optional[list]) -> Optional[str]:
    """Which argument a call changed, in words, or None (also when the sandbox did not say)."""
    if after is None:
        return None
    for name, before, now in zip(names, sent, after):
        if now != before or type(now) is not type(before):
            return cap(f"{function} changed its {name} argument: it was {before!r} before the call "
                       f"and {now!r} after; work on a copy instead")
    return None


def failure_message(function: str, outcome: CallOutcomeLike) -> str:
    """A one-line account of a failed call, naming the function (capped, no durations)."""
    error = plain(outcome.error or outcome.kind).strip()
    if outcome.kind in _SELF_CONTAINED_KINDS:
        return cap(error)
    return cap(f"{function} {error}")
