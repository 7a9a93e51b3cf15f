"""Shrinking by batched rounds of reductions (``grader.grading.shrink``)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.grading import shrink
from grader.spec.hooks import Failure
from grader.spec.hooks import StudentAnswer

WORD = st.text(alphabet="abc", min_size=1, max_size=5)
LINES = st.lists(st.lists(WORD, min_size=1, max_size=3).map(" ".join), max_size=4)
COUNTS = st.dictionaries(WORD, st.integers(1, 9), max_size=4)


def failing_when(predicate, kind="ok"):
    judged: list = []

    def judge(example):
        judged.append(example)
        if predicate(example):
            return Failure(example, StudentAnswer(value=None, kind=kind,
                                                  failure=None if kind == "ok" else kind))
        return None

    return judge, judged


@settings(max_examples=60, deadline=None)
@given(LINES)
def test_lines_stay_lines_of_nonempty_words(lines):
    for candidate in shrink.structural(lines):
        assert isinstance(candidate, list) and len(candidate) <= len(lines)
        for line in candidate:
            assert line and all(word for word in line.split(" "))
        assert shrink.size(candidate) < shrink.size(lines)


@settings(max_examples=60, deadline=None)
@given(COUNTS)
def test_word_counts_keep_counts_of_at_least_one_and_add_up_merged_words(counts):
    for candidate in shrink.structural(counts):
        assert all(word and count >= 1 for word, count in candidate.items())
        assert sum(candidate.values()) <= sum(counts.values())


def test_ints_never_go_below_their_floor():
    assert list(shrink.smaller_int(10, 1)) == [1, 5, 9]
    assert list(shrink.smaller_int(2, 1)) == [1]
    assert list(shrink.smaller_int(0, 0)) == []


def test_a_failure_shrinks_to_a_smallest_input_the_same_way_every_time():
    corpus = ["abc cab", "bca", "aaa bbb ccc"]
    judge, _ = failing_when(lambda lines: any("b" in line for line in lines))
    first = judge(corpus)
    found = shrink.shrink(first, judge, shrink.structural)
    assert found.example == ["b"]
    again = shrink.shrink(judge(corpus), judge, shrink.structural)
    assert again.example == found.example


def test_each_round_is_prefetched_in_one_batch_and_rounds_are_bounded():
    batches: list[list] = []
    judge, judged = failing_when(lambda text: True)
    first = judge("x" * 200)
    found = shrink.shrink(first, judge, shrink.structural, prefetch=batches.append)
    assert len(batches) <= shrink.ROUNDS
    assert all(0 < len(batch) <= shrink.CANDIDATES_PER_ROUND for batch in batches)
    assert len(judged) <= 1 + sum(len(batch) for batch in batches)
    assert shrink.size(found.example) < shrink.size(first.example)


def test_nothing_smaller_failing_keeps_the_failure_itself():
    judge, _ = failing_when(lambda lines: lines == ["ab"])
    first = judge(["ab"])
    assert shrink.shrink(first, judge, shrink.structural) is first


def test_a_timed_out_candidate_ends_shrinking():
    judge, judged = failing_when(lambda lines: True, kind="timeout")
    first = Failure(["abc abc", "abc"], StudentAnswer(value=None))
    found = shrink.shrink(first, judge, shrink.structural)
    assert found.answer.kind == "timeout"
    assert len(judged) == 1  # the first candidate timed out: no further try
