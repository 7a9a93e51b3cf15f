"""The verdicts and feedback of a test file, computed from hand-built runs (no sandbox): which
tests count, which mistakes a test catches, and that every sentence holds of the runs."""

from __future__ import annotations

import pytest

from grader.families.bpe_tests import feedback
from grader.families.bpe_tests.groups import CATALOGUE, GROUPS, group, group_of
from grader.families.bpe_tests.implementations import MISTAKEN, REFERENCE
from grader.families.bpe_tests.outcomes import Call, Run, run_of
from grader.families.bpe_tests.runner import ReferenceAnswers
from grader.families.bpe_tests.test_file import read_test_file
from grader.families.bpe_tests.verdicts import Verdicts

CORPUS = (["ab ab"], 2)
RIGHT = REFERENCE.answer("train_bpe", CORPUS)
WRONG = [("b", "</w>"), ("a", "b</w>")]
SOURCE = "from bpe import encode, train_bpe\n" + "".join(
    f"\n\ndef test_{name}():\n    assert train_bpe(['ab ab'], 2) == {RIGHT!r}\n"
    for name in ("one", "two", "three"))


def right_call() -> Call:
    return Call("train_bpe", CORPUS, RIGHT)


def wrong_call() -> Call:
    return Call("train_bpe", CORPUS, WRONG)


class Table:
    """A runner answering from a table: (test, implementation id) -> Run, default ``fallback``
    (and, on the do-nothing BPEs, a failure on their empty answer); it notes the runs asked for."""

    def __init__(self, table: dict, fallback: Run) -> None:
        self.table, self.fallback, self.asked = table, fallback, []

    def __call__(self, test, implementation):
        self.asked.append((test, implementation.id))
        fallback = self.fallback
        if implementation.id.startswith("do-nothing") and fallback.calls:
            fallback = Run("failed", "raised AssertionError", 5,
                           (Call("train_bpe", CORPUS, []),))
        entry = self.table.get((test, implementation.id), fallback)
        return entry.pop(0) if isinstance(entry, list) else entry


def verdicts_of(table: dict, fallback: Run, source: str = SOURCE, max_tests: int = 25):
    runner = Table(table, fallback)
    return Verdicts(read_test_file(source, "bpe"), runner, ReferenceAnswers(), max_tests), runner


PASSED = Run("passed", calls=(right_call(),))
KILLED = Run("failed", "raised AssertionError (at line 5, in test_one)", 5, (wrong_call(),))


def test_every_catalogued_train_and_encode_mistake_is_in_exactly_one_group():
    grouped = [mistake_id for g in GROUPS for mistake_id in g.mistakes]
    assert sorted(grouped) == sorted(CATALOGUE) and len(grouped) == len(set(grouped))
    assert "ties-lexicographic" not in CATALOGUE  # the exercise's own rule is no mistake
    assert group_of("ties-first-seen").id == "ties"


def test_a_valid_test_catches_a_mistake_only_through_a_differing_answer():
    same_answers_failed = Run("failed", "raised AssertionError", 5, (right_call(),))
    verdicts, _ = verdicts_of({("test_one", "unweighted-counts"): same_answers_failed,
                               ("test_two", "unweighted-counts"): KILLED}, PASSED)
    assert [v.status for v in verdicts.tests] == ["valid"] * 3
    verdict = verdicts.mistake("unweighted-counts")
    assert verdict.caught_by == "test_two"
    assert verdict.answers_right == [("test_one", same_answers_failed)]


def test_a_failure_with_every_answer_right_does_not_catch_and_is_said_so():
    same_answers_failed = Run("failed", "raised AssertionError", 5, (right_call(),))
    verdicts, _ = verdicts_of({("test_one", "ties-first-seen"): same_answers_failed}, PASSED)
    verdict = verdicts.mistake("ties-first-seen")
    assert not verdict.caught
    message = feedback.slipped_message(verdict, group("ties"), all_valid=True)
    assert "test_one fails on it" in message and "equals the correct BPE's" in message
    assert "passes all your tests" not in message


def test_once_a_mistake_is_caught_later_tests_are_not_run_on_it():
    verdicts, runner = verdicts_of({("test_one", "stale-counts"): KILLED}, PASSED)
    verdicts.mistake("stale-counts")
    assert ("test_one", "stale-counts") in runner.asked
    assert ("test_two", "stale-counts") not in runner.asked


def test_a_test_whose_two_reference_runs_differ_is_not_deterministic():
    other = Run("passed", calls=(Call("train_bpe", (["ba ba"], 2),
                                      REFERENCE.answer("train_bpe", (["ba ba"], 2))),))
    verdicts, _ = verdicts_of({("test_one", "reference"): [PASSED, other]}, PASSED)
    first = verdicts.tests[0]
    assert first.status == "not-deterministic"
    message = feedback.test_message(first, verdicts.file, max_tests=25)
    assert "call 1 on the correct BPE was train_bpe(['ab ab'], 2) the first time" in message
    assert "seed your random inputs" in message
    assert all(v.test.name != "test_one" for v in verdicts.valid)


def test_a_test_failing_on_the_reference_is_shown_with_the_reference_answer():
    source = ("from bpe import encode\n\n\ndef test_one():\n"
              "    assert encode('lower', [('l', 'o')]) == ['lo', 'w</w>']\n")
    answer = REFERENCE.answer("encode", ("lower", [("l", "o")]))
    failed = Run("failed", "raised AssertionError (at line 5, in test_one)", 5,
                 (Call("encode", ("lower", [("l", "o")]), answer),))
    verdicts, _ = verdicts_of({("test_one", "reference"): failed}, PASSED, source)
    verdict = verdicts.tests[0]
    assert verdict.status == "fails-reference"
    message = feedback.test_message(verdict, verdicts.file, max_tests=25)
    assert "at line 5" in message
    assert ("Your test expects ['lo', 'w</w>'] from encode('lower', [('l', 'o')]), the correct "
            f"BPE returns {answer!r}") in message


def test_expected_lists_where_the_answer_has_tuples_are_said_to_differ_only_so():
    failed = Run("failed", "raised AssertionError (at line 5, in test_one)", 5,
                 (Call("train_bpe", CORPUS, RIGHT),))
    source = ("from bpe import train_bpe\n\n\ndef test_one():\n"
              f"    assert train_bpe(['ab ab'], 2) == {[list(pair) for pair in RIGHT]!r}\n")
    verdicts, _ = verdicts_of({("test_one", "reference"): failed}, PASSED, source)
    message = feedback.test_message(verdicts.tests[0], verdicts.file, max_tests=25)
    assert "one has lists where the other has tuples" in message


def test_a_test_that_calls_nothing_asserts_nothing_and_runs_no_further():
    verdicts, runner = verdicts_of({}, Run("passed"))
    assert {v.status for v in verdicts.tests} == {"asserts-nothing"}
    assert {implementation for _, implementation in runner.asked} == {"reference"}


def test_a_test_no_wrong_bpe_fails_asserts_nothing_and_a_swallowing_clause_is_named():
    source = ("from bpe import train_bpe\n\n\ndef test_one():\n    try:\n"
              "        assert train_bpe(['ab ab'], 2) == []\n    except Exception:\n"
              "        pass\n")
    verdicts, runner = verdicts_of({("test_one", "do-nothing-empty"): PASSED,
                                    ("test_one", "do-nothing-characters"): PASSED}, PASSED, source)
    verdict = verdicts.tests[0]
    assert verdict.status == "asserts-nothing"
    assert len(verdict.mistaken) == len(MISTAKEN) and all(run.passed for run in verdict.mistaken)
    trainers = {mistake_id for mistake_id, wrong in MISTAKEN.items() if "train_bpe" in wrong.changed}
    assert {implementation for _, implementation in runner.asked} >= trainers
    message = feedback.test_message(verdict, verdicts.file, max_tests=25)
    assert "The except clause at line 7 catches every exception" in message


def test_a_timed_out_test_is_too_slow_and_tests_over_the_cap_are_not_run():
    slow = Run("timed-out", "timed out after 2 s")
    verdicts, runner = verdicts_of({("test_one", "reference"): slow}, PASSED, max_tests=2)
    assert [v.status for v in verdicts.tests] == ["too-slow", "valid", "not-run"]
    assert not any(test == "test_three" for test, _ in runner.asked)


def test_a_test_with_parameters_is_not_run():
    source = ("from bpe import train_bpe\n\n\ndef test_one(corpus):\n"
              "    assert train_bpe(corpus, 1)\n")
    verdicts, runner = verdicts_of({}, PASSED, source)
    assert verdicts.tests[0].status == "unrunnable" and not runner.asked


@pytest.mark.parametrize("kind, error, status, line", [
    ("ok", None, "passed", None),
    ("exception", "raised AssertionError: x (at line 7, in test_a)", "failed", 7),
    ("exception", "raised KeyError: 'a' (at line 3, in helper)", "crashed", 3),
    ("timeout", "timed out after 2 s", "timed-out", None),
])
def test_a_sandbox_outcome_reads_as_a_run(kind, error, status, line):
    run = run_of(kind, error, ())
    assert (run.status, run.line) == (status, line)


def test_a_slipped_mistakes_hint_names_an_input_where_it_and_the_reference_disagree():
    verdicts, _ = verdicts_of({}, PASSED)
    message = feedback.slipped_message(verdicts.mistake("ties-first-seen"), group("ties"),
                                       all_valid=True)
    assert message.startswith("A trainer with this mistake passes all your tests: add a test "
                              "with a corpus where several pairs tie for the highest count.")
    witness = feedback.witness_call(MISTAKEN["ties-first-seen"])
    assert feedback.call_text(witness) in message
    assert MISTAKEN["ties-first-seen"].answer(witness.function, witness.args) != \
        REFERENCE.answer(witness.function, witness.args)


def test_when_the_gradings_time_runs_out_nothing_is_said_to_slip_through():
    out = run_of("budget", "the grading reached its time limit", ())
    assert out.status == "unfinished"
    verdicts, _ = verdicts_of({("test_three", "reference"): out,
                               ("test_one", "merges-sorted"): PASSED,
                               ("test_two", "merges-sorted"): out}, PASSED)
    assert [v.status for v in verdicts.tests][2] == "unfinished"
    verdict = verdicts.mistake("merges-sorted")
    assert verdict.unfinished and not verdict.caught
    assert "time limit" in feedback.unfinished_message()


def test_a_call_stopped_for_time_is_no_answer_that_differs():
    stopped = Run("timed-out", "timed out after 2 s", None,
                  (right_call(), Call("encode", ("ab", []), None,
                                      "TimeoutError: interrupted when the time ran out")))
    encodes = Run("passed", calls=(right_call(), Call("encode", ("ab", []),
                                                      REFERENCE.answer("encode", ("ab", [])))))
    verdicts, _ = verdicts_of({("test_one", "reference"): encodes,
                               ("test_one", "encode-reverse-rank"): stopped,
                               ("test_two", "encode-reverse-rank"): PASSED,
                               ("test_three", "encode-reverse-rank"): PASSED}, PASSED)
    verdict = verdicts.mistake("encode-reverse-rank")
    assert not verdict.caught and verdict.answers_right == [("test_one", stopped)]


def test_a_test_failing_elsewhere_only_with_right_answers_is_not_said_to_pass_there():
    right_but_failed = Run("failed", "raised AssertionError", 5, (right_call(),))
    verdicts, _ = verdicts_of({("test_one", "do-nothing-empty"): right_but_failed,
                               ("test_one", "do-nothing-characters"): PASSED}, PASSED)
    verdict = verdicts.tests[0]
    assert verdict.status == "asserts-nothing"
    message = feedback.test_message(verdict, verdicts.file, max_tests=25)
    assert "every answer it got was the correct BPE's" in message
    assert "it passes on the correct BPE, on both do-nothing BPEs" not in message


def test_two_asserts_on_the_failing_line_give_no_expectation():
    source = ("from bpe import encode\n\n\ndef test_one():\n"
              "    assert encode('a', []) == ['a', '</w>']; assert encode('b', []) == ['x']\n")
    assert read_test_file(source, "bpe").expectation("test_one", 5) is None


def test_an_interrupted_reference_answer_is_not_learned_as_the_references():
    answers = ReferenceAnswers()
    stopped = Call("train_bpe", CORPUS, None, "TimeoutError: interrupted when time ran out")
    answers.learn(Run("timed-out", "timed out", None, (stopped,)))
    assert answers(stopped) == (RIGHT, None)


def test_a_failing_asserts_own_message_is_shown_with_the_calls():
    source = ("from bpe import encode\n\n\ndef test_one():\n    tokens = encode('ab', [])\n"
              "    assert tokens == ['ab'], 'ab should be one token'\n")
    failed = Run("failed", "raised AssertionError: ab should be one token (at line 6, in test_one)",
                 6, (Call("encode", ("ab", []), ["a", "b", "</w>"]),))
    verdicts, _ = verdicts_of({("test_one", "reference"): failed}, PASSED, source)
    message = feedback.test_message(verdicts.tests[0], verdicts.file, max_tests=25)
    assert message == ("fails on the correct BPE at line 6: `assert tokens == ['ab'], 'ab should "
                       "be one token'`. Its assertion says: ab should be one token. Its calls and "
                       "the correct BPE's answers: encode('ab', []) returns ['a', 'b', '</w>']. "
                       "It earns nothing.")


def test_a_valid_test_says_which_wrong_bpe_fails_it():
    verdicts, _ = verdicts_of({("test_one", "do-nothing-empty"): PASSED,
                               ("test_one", "do-nothing-characters"): PASSED,
                               ("test_one", "marker-split"): KILLED}, PASSED)
    messages = [feedback.test_message(v, verdicts.file, max_tests=25) for v in verdicts.tests]
    assert messages[0] == ("passes on the correct BPE, with the same calls and answers on both "
                           "runs, and fails on the known mistake marker-split through a wrong "
                           "answer")
    assert messages[1].endswith("fails on a do-nothing BPE (no merges, no tokens) through a "
                                "wrong answer")


def test_a_slipped_encoder_mistake_reads_as_an_encoder():
    verdicts, _ = verdicts_of({}, PASSED)
    message = feedback.slipped_message(verdicts.mistake("encode-reverse-rank"),
                                       group("encode-order"), all_valid=True)
    assert message.startswith("An encoder with this mistake passes all your tests: add a test")


def test_a_mistake_is_not_run_on_a_test_that_never_calls_the_function_it_changes():
    source = SOURCE + ("\n\ndef test_four():\n    assert encode('ab', [('a', 'b')]) == "
                       f"{REFERENCE.answer('encode', ('ab', [('a', 'b')]))!r}\n")
    encoded = Call("encode", ("ab", [("a", "b")]), REFERENCE.answer("encode", ("ab", [("a", "b")])))
    wrong_encoding = Call("encode", ("ab", [("a", "b")]), ["a", "b", "</w>"])
    killed_by_encode = Run("failed", "raised AssertionError (at line 17, in test_four)", 17,
                           (wrong_encoding,))
    verdicts, runner = verdicts_of({("test_four", "reference"): Run("passed", calls=(encoded,)),
                                    ("test_four", "encode-reverse-rank"): killed_by_encode},
                                   PASSED, source)
    verdict = verdicts.mistake("encode-reverse-rank")
    assert verdict.caught_by == "test_four" and verdict.answers_right == []
    asked = [test for test, implementation in runner.asked
             if implementation == "encode-reverse-rank"]
    assert asked == ["test_four"]  # test_one to test_three call only train_bpe
    trainer = verdicts.mistake("stale-counts")  # a trainer's mistake still runs on them
    assert ("test_one", "stale-counts") in runner.asked and not trainer.caught
    assert ("test_four", "stale-counts") not in runner.asked
    assert [test for test, _ in trainer.answers_right] == []


def test_a_wrong_bpe_answering_a_runs_calls_alike_is_found_so_by_its_answers():
    from grader.families.bpe_tests.runner import answers_alike

    ties = MISTAKEN["ties-first-seen"]
    untied, tied = (["aaab aaab"], 1), (["ab ba"], 1)
    assert ties.answer("train_bpe", untied) == REFERENCE.answer("train_bpe", untied)
    assert ties.answer("train_bpe", tied) != REFERENCE.answer("train_bpe", tied)
    on_untied, on_tied = (Run("passed", calls=(Call("train_bpe", args,
                                                    REFERENCE.answer("train_bpe", args)),))
                          for args in (untied, tied))
    assert answers_alike(ties, on_untied) and not answers_alike(ties, on_tied)
    # the same items with lists for tuples are another answer to the test
    as_lists = Call("train_bpe", untied, [list(pair) for pair in REFERENCE.answer("train_bpe", untied)])
    assert not answers_alike(ties, Run("passed", calls=(as_lists,)))
    # a bad call raises the same words in every checked implementation
    refused = Call("train_bpe", (["ab"], -1), None,
                   "BadCall: num_merges must be an int >= 0, got -1")
    assert answers_alike(ties, Run("passed", calls=(refused,)))
    assert not answers_alike(ties, Run("passed", calls=(
        Call("train_bpe", untied, None, "TimeoutError: interrupted when time ran out"),)))


def test_a_wrong_bpe_too_slow_to_answer_here_is_run_in_the_sandbox():
    import time
    from dataclasses import replace

    from grader.families.bpe_tests.runner import ALIKE_SECONDS, answers_alike

    def slow_train(corpus, num_merges):
        time.sleep(ALIKE_SECONDS * 4)
        return REFERENCE.train(corpus, num_merges)

    slow = replace(MISTAKEN["ties-first-seen"], train=slow_train)
    run = Run("passed", calls=(Call("train_bpe", CORPUS, RIGHT),))
    started = time.perf_counter()
    assert not answers_alike(slow, run)
    assert time.perf_counter() - started < ALIKE_SECONDS * 3
