"""Calling the student's functions through the sandbox, each answer shape-checked.

:class:`StudentCalls` calls the function of a role in the sandbox: its family's role record
says how the inputs are sent (in the forms the exercise promises the student, say merge lists
as ``(a, b)`` tuples or ``((a, b), "ab")`` items) and how the answer is shape-checked. What
comes back is a :class:`StudentAnswer`: the value in canonical form or a message saying why
there is none (an exception, a time-out, a missing function, a value of the wrong shape).
Nothing the student returns is used before its shape is checked (:mod:`grader.grading.shapes`). What each call
prints is kept for the report only when the call was on a visible input
(:mod:`grader.grading.output_ledger`).

A function that timed out on :data:`LOOP_TIMEOUTS` inputs and never returned on any is taken
for stuck in a loop: its remaining calls are not made, each answered at once with one message
that says so (:meth:`StudentCalls.never_returned`), so a loop costs a few call limits instead
of the whole time budget, and the other functions are graded in full.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any, Optional, TypeVar

from grader.grading import shapes
from grader.grading.output_ledger import OutputLedger
from grader.grading.plain_words import plain
from grader.grading.secrets import inputs_seed
from grader.spec import Exercise
from grader.spec.registry import depends_on, role_of
from grader.spec.hooks import CallOutcome as CallOutcomeLike
from grader.spec.hooks import SandboxLike, StudentAnswer

MAX_FAILURE_CHARS = 300
LOOP_TIMEOUTS = 2  # time-outs, and no call ever returned: the function's other calls are skipped
# How a call may end and still leave its batch's child to answer the next input (the sandbox's
# batches go on after an exception): a function that has ended a call so has its next calls
# of a check batched.
ANSWERS_IN_A_BATCH = frozenset({"exception"})
CALL_TEXT_CHARS = 120
Kept = TypeVar("Kept")

# Outcome kinds whose sandbox message is a sentence of its own; the others read as a
# predicate of the function ("train_bpe raised KeyError: 'x'").
_SELF_CONTAINED_KINDS = frozenset({"missing", "budget", "stuck"})


class Probed(BaseException):
    """Ends a judge that asked for an answer while calls are only being noted
    (:meth:`StudentCalls.probing`); not an ``Exception``, so no judge takes it for a failure."""


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
        self._seconds: dict[str, float] = {}  # wall time each function has used
        # The seed secret picks generated inputs and the timed corpus; None: the public ones.
        self.secret = secret
        self.output = output if output is not None else OutputLedger(box)
        self._probe: Optional[list[tuple[str, tuple]]] = None
        self._note_calls = False
        self._note_remembered = True
        self._made: dict[str, list[StudentAnswer]] = {}  # batched answers of fresh calls
        # functions that have answered a call in time, with a value or a raised exception
        self._answered: set[str] = set()
        self._returned: set[str] = set()  # functions a call of which ended other than by time-out
        # functions a batch of which answered nothing (it hung or its child died): called one
        # by one from then on, since another such batch would again cost a call limit for nothing
        self._unbatched: set[str] = set()
        # per function, each input it timed out on: (size, its call as shown or None if hidden,
        # how it compares with the public cases' inputs: "smallest", "tied" or "")
        self._timed_out: dict[str, list[tuple[int, Optional[str], str]]] = {}
        self._smallest_case = ""  # the call made now is on the smallest public case, or tied
        self._stuck: dict[str, str] = {}  # function -> why its calls are skipped
        # told a short account of the time-outs so far after each one (progress)
        self.on_timeout: Optional[Callable[[str], None]] = None
        self._kept: dict[str, Any] = {}
        self._closing = ExitStack()
        weakref.finalize(self, self._closing.close)  # for calls nobody closes explicitly

    def kept_open(self, key: str, enter: Callable[[ExitStack], Kept]) -> Kept:
        """What ``enter`` opens on the stack it is given (a second sandbox, say), opened on
        first use under ``key`` and kept open until :meth:`close`, when the grading ends."""
        if key not in self._kept:
            self._kept[key] = enter(self._closing)
        return self._kept[key]

    def close(self) -> None:
        """Close what :meth:`kept_open` opened."""
        self._kept.clear()
        self._closing.close()

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

    def call(self, role: str, *args: Any) -> StudentAnswer:
        """A fresh call of ``role``'s function on ``args`` (in the grader's canonical forms):
        sent as the role says the student's function takes them, the answer shape-checked
        into canonical form."""
        key = repr((role, args))
        made = self._made.get(key)
        if made:  # answered by a batch made for exactly these calls
            if self._probe is not None:
                return made[0]  # a judge only probing takes nothing: the answer serves it later
            answer = made.pop(0)
            if not made:
                del self._made[key]
            return answer
        if self._probe is not None:
            if self._note_calls:
                self._probe.append((role, args))
            raise Probed
        spec = role_of(self.exercise, role)
        name = self.function_name(role)
        answer = self._call(name, spec.send(self.exercise, args), spec.arguments, role)
        return self._canonical(role, answer)

    def _canonical(self, role: str, answer: StudentAnswer) -> StudentAnswer:
        if not answer.ok:
            return answer
        spec, name = role_of(self.exercise, role), self.function_name(role)
        return self._shaped(lambda: spec.shape(self.exercise, answer.value, name), answer.value,
                            answer.modified)

    # ----------------------------------------------------------------- batched calls

    @contextmanager
    def probing(self, *, fresh_calls: bool = False,
                remembered: bool = True) -> Iterator[list[tuple[str, tuple]]]:
        """While inside, a call whose answer is not remembered yet is not made: it ends the
        caller with :class:`Probed`, noted (``(role, args)`` in the list given) when it asked
        for a remembered answer (unless ``remembered`` is False), or with ``fresh_calls`` for a
        fresh one too."""
        noted: list[tuple[str, tuple]] = []
        self._probe, self._note_calls, self._note_remembered = noted, fresh_calls, remembered
        try:
            yield noted
        finally:
            self._probe, self._note_calls, self._note_remembered = None, False, True

    def asked_first(self, attempts: Iterable[Callable[[], Any]], *, fresh_calls: bool = False,
                    remembered: bool = True) -> list[tuple[str, tuple]]:
        """The calls each of ``attempts`` (a judge on one input) would make first, run while
        :meth:`probing` (with its options); a judge that fails otherwise is judged for real
        later, where its failure is reported."""
        with self.probing(fresh_calls=fresh_calls, remembered=remembered) as noted:
            for attempt in attempts:
                try:
                    attempt()
                except Probed:
                    pass
                except Exception:  # noqa: BLE001 - reported when judged for real
                    pass
        return noted

    def prefetch(self, wanted: Iterable[tuple[str, tuple]]) -> bool:
        """Remember the answers of the calls ``wanted``, each role's in one batched sandbox
        call (hermetic from every other check, not between these inputs); whatever a batch
        leaves unanswered is called one by one when it is asked for. False when a batch left
        some out (a call exited, crashed the child or ran out of time, or the function was not
        called in a batch at all); a role's single call is never batched and does not count. A
        function a batch of which answered nothing (it hung or its child died) is not batched
        again in this grading: its calls are made one by one, with the same answers."""
        pending: dict[str, tuple[str, tuple]] = {}
        for role, args in wanted:
            key = repr((role, args))
            if key not in self._remembered:
                pending.setdefault(key, (role, args))
        for key, answer in self._batched(list(pending.values())):
            self._remembered[key] = answer
        per_role: dict[str, int] = {}
        for role, _ in pending.values():
            per_role[role] = per_role.get(role, 0) + 1
        return all(key in self._remembered for key, (role, _) in pending.items()
                   if per_role[role] > 1)

    def prefetch_calls(self, wanted: Iterable[tuple[str, tuple]]) -> None:
        """Make the fresh calls ``wanted`` (in that order, repeats included), each role's in
        one batched sandbox call; each answer then serves the next :meth:`call` of the same
        inputs once. Whatever a batch leaves unanswered is called one by one when asked for.

        A function that has not answered yet in this grading (returned a value or raised) is
        first called alone on its first input: one that hangs or crashes then fails there, with
        that input's own message, instead of taking a whole batch's time limit with it; its
        other inputs are left to be called one by one, or batched if that call answered."""
        batch: list[tuple[str, tuple]] = []
        tried: set[str] = set()
        wanted = list(wanted)
        for role, args in wanted:
            answered = self.function_name(role) in self._answered
            if answered or role in tried:
                if answered:
                    batch.append((role, args))
                continue
            tried.add(role)
            self._made_alone(role, args, wanted)
        for key, answer in self._batched(batch):
            self._made.setdefault(key, []).append(answer)

    def _made_alone(self, role: str, args: tuple, wanted: list[tuple[str, tuple]]) -> None:
        """The first call of a function that has not answered yet, made alone. One that timed
        out before and never returned is called on its smallest input instead, and after a
        first time-out here on its smallest other one, so that when it is taken for stuck
        (:data:`LOOP_TIMEOUTS`) its smallest input was among those tried."""
        name = self.function_name(role)
        mine = {repr(other): other for wanted_role, other in wanted if wanted_role == role}
        if self._never_returned_name(role):
            args = min(mine.values(), key=_size)
        self._made_on(role, args, mine)
        rest = [other for key, other in mine.items() if key != repr(args)]
        if (self._made[repr((role, args))][-1].kind == "timeout" and rest
                and self._never_returned_name(role) and name not in self._stuck):
            self._made_on(role, min(rest, key=_size), mine)

    def _made_on(self, role: str, args: tuple, pool: dict[str, tuple]) -> None:
        """A call made ahead on ``args``, noting how its size ranks in ``pool`` (the inputs of
        the check) should it time out."""
        others = [_size(other) for key, other in pool.items() if key != repr(args)]
        self._smallest_case = ("smallest" if all(_size(args) < size for size in others) else
                               "tied" if all(_size(args) <= size for size in others) else "")
        try:
            answer = self.call(role, *args)
        finally:
            self._smallest_case = ""
        self._made.setdefault(repr((role, args)), []).append(answer)

    def drop_unused_calls(self) -> None:
        """Forget batched answers no call took, so no later check (a determinism check's
        second call, say) is served one instead of calling afresh."""
        self._made.clear()

    def _batched(self, wanted: list[tuple[str, tuple]]) -> list[tuple[str, StudentAnswer]]:
        by_role: dict[str, list[tuple]] = {}
        for role, args in wanted:
            by_role.setdefault(role, []).append(args)
        many = getattr(self.box, "call_many", None)
        answered: list[tuple[str, StudentAnswer]] = []
        for role, pending in by_role.items():
            spec, name = role_of(self.exercise, role), self.function_name(role)
            if (many is None or len(pending) < 2 or self.missing_message(role) or self._spent(role)
                    or self._never_returned_name(role) or name in self._unbatched):
                continue
            sent = [spec.send(self.exercise, args) for args in pending]
            with self.output.call():
                outcomes = many(name, sent, echo_args=True)
            if not outcomes:
                self._unbatched.add(name)
            for args, arguments, outcome in zip(pending, sent, outcomes):
                self.calls += 1
                self._seconds[name] = self._seconds.get(name, 0.0) + float(outcome.seconds or 0)
                self._note_outcome(role, name, arguments, outcome)
                answered.append((repr((role, args)), self._canonical(
                    role, self._answer(name, outcome, arguments, spec.arguments))))
        return answered

    def _spent(self, role: str) -> bool:
        return (len(self.exercise.roles()) > 1
                and self._seconds.get(self.function_name(role), 0.0) >= self.share_seconds())

    answer = call

    def remembered(self, role: str, *args: Any) -> StudentAnswer:
        """The answer of ``role``'s function on ``args``, calling only the first time.

        Generated checks share answers this way; determinism checks call again afresh.
        """
        key = repr((role, args))
        if key not in self._remembered:
            if self._probe is not None:
                if self._note_remembered:
                    self._probe.append((role, args))
                raise Probed
            self._remembered[key] = self.call(role, *args)
        return self._remembered[key]

    def calling_the_box(self) -> None:
        """Said by a judge right before it calls the sandbox itself (a streamed call, which no
        batch makes): while :meth:`probing` it ends the judge with :class:`Probed`, so the call
        is made once, when the judge runs for real."""
        if self._probe is not None:
            raise Probed

    # ----------------------------------------------------------------- plumbing

    def share_seconds(self) -> float:
        """The part of the submission's time budget one function may use: an even split over
        the exercise's functions, so that one function stuck in a loop (timing out on every
        input) cannot leave the others no time to be graded."""
        total = float(self.exercise.limits.total_seconds or 0.0)
        return total / max(1, len(self.exercise.roles()))

    def _call(self, name: str, args: list, arg_names: tuple[str, ...],
              role: Optional[str] = None) -> StudentAnswer:
        self.calls += 1
        if name in self._stuck:
            return StudentAnswer(kind="stuck", failure=self._stuck[name])
        share = self.share_seconds()
        if len(self.exercise.roles()) > 1 and self._seconds.get(name, 0.0) >= share:
            return StudentAnswer(kind="budget", failure=(
                f"{name} was not run on this input: it has used its share of the time budget "
                f"({share:g} of {float(self.exercise.limits.total_seconds):g} s, timing out on "
                "earlier inputs), and the other functions keep theirs"))
        with self.output.call():
            outcome = self.box.call(name, args, echo_args=True, measure_cpu=False)
        if outcome.ok or outcome.kind in ANSWERS_IN_A_BATCH:
            self._answered.add(name)
        # A call that timed out counts as its limit, so the cut falls at the same input on
        # every run of a function that loops (its other calls cost milliseconds).
        used = (float(self.exercise.limits.call_seconds) if outcome.kind == "timeout"
                else float(getattr(outcome, "seconds", 0) or 0))
        self._seconds[name] = self._seconds.get(name, 0.0) + used
        self._note_outcome(role, name, args, outcome)
        return self._answer(name, outcome, args, arg_names)

    # ----------------------------------------------------------------- loops

    def _note_outcome(self, role: Optional[str], name: str, args: list, outcome: Any) -> None:
        """Note how a call ended; a function that timed out on :data:`LOOP_TIMEOUTS` inputs
        without ever returning is stuck from then on."""
        if outcome.kind != "timeout":
            self._returned.add(name)
            return
        whole = f"{name}({', '.join(repr(arg) for arg in args)})"
        shown = cap(whole, CALL_TEXT_CHARS) if self.output.visible_now() else None
        smallest = self._smallest_case if shown is not None else ""
        self._timed_out.setdefault(name, []).append((len(whole), shown, smallest))
        if (name not in self._returned and role is not None
                and len(self._timed_out[name]) >= LOOP_TIMEOUTS):
            self._stuck[name] = self._loop_message(role, name)
        if self.on_timeout is not None:
            self.on_timeout(self.timeouts_note())

    def never_returned(self, role: str) -> Optional[str]:
        """Why ``role``'s function looks stuck in a loop, or None: it timed out on some input
        and no call of it ever returned (the sentence names the inputs, visible ones only)."""
        name = self.function_name(role)
        if name in self._stuck:
            return self._stuck[name]
        if name in self._returned or not self._timed_out.get(name):
            return None
        return self._loop_message(role, name)

    def _loop_message(self, role: str, name: str) -> str:
        tried = self._timed_out[name]
        limit = f"{float(self.exercise.limits.call_seconds):g} s"
        first = min(range(len(tried)), key=lambda index: tried[index][0])
        size, shown, smallest = tried[first]
        if len(tried) == 1:
            what = ("did not return on the one input it was run on"
                    + (f", {shown}" if shown else "") + f" (stopped after {limit})")
        elif smallest and all(other[0] >= size for other in tried):
            rank = ("the smallest of" if smallest == "smallest" else "as small as any of")
            what = (f"did not return on any input it was run on, even {shown}, {rank} "
                    f"its public cases ({len(tried)} calls, each stopped after {limit})")
        else:
            example = next((seen[1] for seen in sorted(tried, key=lambda seen: seen[0])
                            if seen[1]), None)
            what = (f"did not return on any of the {len(tried)} inputs it was run on"
                    + (f" (e.g. {example})" if example else "") + f", each stopped after {limit}")
        skipped = ", so its other calls are skipped" if len(tried) >= LOOP_TIMEOUTS else ""
        message = f"{name} {what}{skipped}: look for a loop that never ends"
        callees = sorted(
            self.function_name(other) for other in depends_on(self.exercise, role)
            if other in self.exercise.roles() and other != role
            and self.function_name(other) != name and self._never_returned_name(other))
        if callees:
            message += (f"; if it calls {' or '.join(callees)}, which did not return on any "
                        "input either, fix that loop first")
        return message

    def _never_returned_name(self, role: str) -> bool:
        name = self.function_name(role)
        return name not in self._returned and bool(self._timed_out.get(name))

    def timeouts_note(self) -> str:
        """A short account of the time-outs so far, per function (``time-outs: train_bpe 2
        (rest skipped), vocab_tradeoff 1``), or "" when there were none."""
        parts = [f"{name} {len(tried)}" + (" (rest skipped)" if name in self._stuck else "")
                 for name, tried in self._timed_out.items()]
        return "time-outs: " + ", ".join(parts) if parts else ""

    @staticmethod
    def _answer(name: str, outcome: CallOutcomeLike, args: list,
                arg_names: tuple[str, ...]) -> StudentAnswer:
        if outcome.ok:
            after = getattr(outcome, "args_after", None)
            return StudentAnswer(value=outcome.value, modified=modification(name, arg_names, args, after))
        return StudentAnswer(failure=failure_message(name, outcome), kind=outcome.kind)

    @staticmethod
    def _shaped(convert: Any, returned: Any, modified: Optional[str] = None) -> StudentAnswer:
        try:
            return StudentAnswer(value=convert(), modified=modified)
        except shapes.ShapeError as error:
            return StudentAnswer(failure=cap(str(error)), kind=error.kind, modified=modified,
                                 returned=returned)


def _size(args: tuple) -> int:
    return len(repr(args))


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
