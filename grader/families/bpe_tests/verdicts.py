"""Which tests count and which mistakes they catch, from the runs alone.

A :class:`Verdicts` asks a runner for the runs it needs, in a fixed order, and keeps them:

- each test runs twice on the reference (two separate calls); a test whose two runs differ
  (outcome, message, or any served call or answer) is *not deterministic*, one that times out
  is *too slow*, one that fails is *failing on the reference*; only the rest are *valid*;
- a valid test that makes no served call, or that passes on both do-nothing implementations
  and catches no mistake at all, *asserts nothing*;
- a mistake is *caught* by the first valid test, in file order, that fails on it while at
  least one served answer of that run differs from the reference's answer to the same
  arguments (a behavioural kill). A test that fails on a mistake with every answer right is
  noted (it fails for some other reason) and does not count. Once a test catches a mistake,
  the later tests are not run on it: nothing printed depends on them.
- a valid test is not run on a mistake that answers every call of its reference run as the
  reference did (by default: a run that calls none of the functions the mistake changes): the
  same calls get the same answers there, so its run is the reference's (it passes and catches
  nothing), and that run stands for it.

Nothing here runs code: the runner (the sandbox, or a table in the tests) gives each
:class:`~grader.families.bpe_tests.outcomes.Run`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Optional

from grader.families.bpe_tests.implementations import (DO_NOTHING, MISTAKEN, REFERENCE,
                                                       Implementation)
from grader.families.bpe_tests.outcomes import INTERRUPTED, Call, Run
from grader.families.bpe_tests.test_file import TestFile, TestFunction

Runner = Callable[[str, Implementation], Run]
RunsAlike = Callable[[Implementation, Run], bool]
"""Whether an implementation answers every call of a run on the reference as the reference did
(then a deterministic test makes the same calls there and ends the same way)."""
ReferenceAnswer = Callable[[Call], tuple[Any, Optional[str]]]
"""``call -> (answer, error)``: what the reference answers to the arguments of one call, as
the served log records it."""

Status = Literal["valid", "not-run", "unrunnable", "unfinished", "too-slow",
                 "not-deterministic", "fails-reference", "asserts-nothing"]


@dataclass
class TestVerdict:
    test: TestFunction
    status: Status
    first: Optional[Run] = None
    second: Optional[Run] = None
    do_nothing: list[Run] = field(default_factory=list)
    mistaken: list[Run] = field(default_factory=list)
    """Its runs on the catalogued mistakes, when it was run on every one of them."""
    failed_by: Optional[Implementation] = None
    """A wrong BPE it fails on through a wrong answer (what shows it asserts something)."""

    @property
    def counts(self) -> bool:
        return self.status == "valid"


@dataclass
class MistakeVerdict:
    """How a mistake fared: the test that caught it and its run, or none; and the tests
    that failed on it with every answer right."""

    mistake_id: str
    caught_by: Optional[str] = None
    run: Optional[Run] = None
    answers_right: list[tuple[str, Run]] = field(default_factory=list)
    unfinished: bool = False
    """The grading's time ran out before every valid test ran against it."""

    @property
    def caught(self) -> bool:
        return self.caught_by is not None


def differing_call(run: Run, reference: ReferenceAnswer) -> Optional[Call]:
    """The first served call of ``run`` whose answer is not the reference's to the same
    arguments, or None."""
    for call in run.calls:
        if call.error is not None and call.error.startswith(INTERRUPTED):
            continue  # stopped for time: not an answer
        answer, error = reference(call)
        if (call.error is None) != (error is None):
            return call
        if call.error is None and call.answer != answer:
            return call
        if call.error is not None and call.error != error:
            return call
    return None


def calls_nothing_changed(implementation: Implementation, run: Run) -> bool:
    """Whether ``run`` called none of the functions ``implementation`` changes."""
    return not any(call.function in implementation.changed for call in run.calls)


def kills(run: Run, reference: ReferenceAnswer) -> bool:
    """Whether ``run`` failed because its implementation answered otherwise: it did not pass,
    and at least one served answer differs from the reference's."""
    return not run.passed and differing_call(run, reference) is not None


class Verdicts:
    """The runs and verdicts of one test file; each run asked for once, in a fixed order."""

    def __init__(self, tests: TestFile, runner: Runner, reference: ReferenceAnswer,
                 max_tests: int, alike: RunsAlike = calls_nothing_changed) -> None:
        self.file = tests
        self._runner = runner
        self._alike = alike
        self._reference = reference
        self.max_tests = max_tests
        self._runs: dict[tuple[str, str], Run] = {}
        self._on_reference_run: dict[str, Run] = {}
        """Each valid test's run on the reference (both runs the same)."""
        self._tests: Optional[list[TestVerdict]] = None
        self._mistakes: dict[str, MistakeVerdict] = {}

    def run(self, test: str, implementation: Implementation) -> Run:
        key = (test, implementation.id)
        if key not in self._runs:
            self._runs[key] = (self._unchanged(test, implementation)
                               or self._runner(test, implementation))
        return self._runs[key]

    def _unchanged(self, test: str, implementation: Implementation) -> Optional[Run]:
        """The test's reference run, when ``implementation`` answers all its calls alike."""
        on_reference = self._on_reference_run.get(test)
        if on_reference is None or not self._alike(implementation, on_reference):
            return None
        return on_reference

    @property
    def tests(self) -> list[TestVerdict]:
        if self._tests is None:
            self._tests = self._judge_tests()
        return self._tests

    @property
    def valid(self) -> list[TestVerdict]:
        return [verdict for verdict in self.tests if verdict.counts]

    def _judge_tests(self) -> list[TestVerdict]:
        verdicts = []
        for index, test in enumerate(self.file.tests):
            if index >= self.max_tests:
                verdicts.append(TestVerdict(test, "not-run"))
            elif test.problem is not None:
                verdicts.append(TestVerdict(test, "unrunnable"))
            else:
                verdicts.append(self._on_reference(test))
        for verdict in verdicts:
            if verdict.status == "valid" and not verdict.first.calls:
                verdict.status = "asserts-nothing"
            elif verdict.status == "valid":
                for empty in DO_NOTHING:  # one that fails it is enough
                    verdict.do_nothing.append(self.run(verdict.test.name, empty))
                    if kills(verdict.do_nothing[-1], self._reference):
                        verdict.failed_by = empty
                        break
        for verdict in verdicts:  # tests no do-nothing BPE fails: do they catch anything?
            if verdict.status == "valid" and not any(kills(run, self._reference)
                                                     for run in verdict.do_nothing):
                runs = []
                for wrong in MISTAKEN.values():
                    runs.append(self.run(verdict.test.name, wrong))
                    if kills(runs[-1], self._reference):
                        verdict.failed_by = wrong
                        break
                    if runs[-1].status == "unfinished":
                        break
                if not any(kills(run, self._reference) for run in runs) and all(
                        run.status != "unfinished" for run in runs):
                    verdict.status, verdict.mistaken = "asserts-nothing", runs
        return verdicts

    def _on_reference(self, test: TestFunction) -> TestVerdict:
        first = self._runner(test.name, REFERENCE)
        if first.status == "unfinished":
            return TestVerdict(test, "unfinished", first)
        if first.status == "timed-out":
            return TestVerdict(test, "too-slow", first)
        second = self._runner(test.name, REFERENCE)
        if second.status == "unfinished":
            return TestVerdict(test, "unfinished", first, second)
        if second.status == "timed-out":
            return TestVerdict(test, "too-slow", first, second)
        if not first.same(second):
            return TestVerdict(test, "not-deterministic", first, second)
        if not first.passed:
            return TestVerdict(test, "fails-reference", first, second)
        self._on_reference_run[test.name] = first
        return TestVerdict(test, "valid", first, second)

    def mistake(self, mistake_id: str) -> MistakeVerdict:
        if mistake_id not in self._mistakes:
            verdict = MistakeVerdict(mistake_id)
            implementation = MISTAKEN[mistake_id]
            for test in self.valid:
                run = self.run(test.test.name, implementation)
                if run.status == "unfinished":
                    verdict.unfinished = True
                    break
                if kills(run, self._reference):
                    verdict.caught_by, verdict.run = test.test.name, run
                    break
                if not run.passed:
                    verdict.answers_right.append((test.test.name, run))
            self._mistakes[mistake_id] = verdict
        return self._mistakes[mistake_id]
