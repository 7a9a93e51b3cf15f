"""A streamed call: its lazy argument stays on the grader's side and is handed over only as the
call asks for it, so what the trace says was read is the grader's own count, whatever the
call's code does with its descriptors, frames or names."""

from __future__ import annotations

import textwrap

import pytest

from grader.sandbox import Feed, Sandbox, SandboxError, SandboxLimits

LIMITS = SandboxLimits(call_seconds=2.0, memory_mib=256, total_seconds=60.0)
SOURCE = '''
import os
import struct
import sys


def lazy(lines):
    for line in lines:
        yield len(line)


def eager(lines):
    return [len(line) for line in list(lines)]


def first_three(lines):
    taken = iter(lines)
    return [next(taken), next(taken), next(taken)]


def hides_its_reads(lines):
    """Reads everything, then rewinds whatever counters it can reach and rewrites them."""
    everything = list(lines)
    frame = sys._getframe(0)
    while frame is not None:
        for name, value in list(frame.f_locals.items()):
            if type(value) is int and name != "frame":
                frame.f_locals[name] = 0
        frame = frame.f_back
    for attribute in dir(lines):
        if type(getattr(lines, attribute, None)) is int:
            setattr(lines, attribute, 0)
    return iter([len(line) for line in everything])


def forges(lines):
    """Says on the stream (found in the worker's command line) that it yielded before reading,
    then reads everything."""
    frame = b'["out",[7]]'
    (flag,) = [arg for arg in sys.argv if arg.startswith("--stream=")]
    os.write(int(flag.split(",")[1]), struct.pack(">I", len(frame)) + frame)
    return [len(line) for line in list(lines)]


def scribbles(lines):
    """Writes something that is neither a request nor yielded items on every descriptor."""
    for fd in range(3, 64):
        try:
            os.write(fd, struct.pack(">I", 5) + b"hello")
        except OSError:
            pass
    return iter(())


def asks_without_reading(lines):
    """Asks for items on every descriptor and never reads them (the highest first: its answer
    pipe, opened last, has a low number, and the first frame on it ends the call)."""
    need = b'["need"]'
    for _ in range(10):
        for fd in range(63, 2, -1):
            try:
                os.write(fd, struct.pack(">I", len(need)) + need)
            except OSError:
                pass
    return iter(())


def plain(count):
    """In a call that is not streamed: asks for items on every descriptor it has."""
    need = b'["need"]'
    for fd in range(63, 2, -1):
        try:
            os.write(fd, struct.pack(">I", len(need)) + need)
        except OSError:
            pass
    return count
'''

ITEMS = [f"line {number}\n" for number in range(1000)]


@pytest.fixture(scope="module")
def box(tmp_path_factory):
    path = tmp_path_factory.mktemp("streams") / "student.py"
    path.write_text(textwrap.dedent(SOURCE), encoding="utf-8")
    with Sandbox(path, limits=LIMITS) as opened:
        assert opened.load().ok
        yield opened


def streamed(box, function, take=None, items=ITEMS):
    outcome = box.call(function, [None], feed=Feed(0, items, take=take), measure_cpu=False)
    return outcome, outcome.stream


def test_a_lazy_call_is_handed_one_item_before_its_first_output(box):
    outcome, trace = streamed(box, "lazy", take=1)
    assert outcome.ok and trace.outputs == [len(ITEMS[0])]
    assert trace.handed_at == [1] and trace.handed == 1 and not trace.read_all_first


def test_a_lazy_call_read_to_the_end_yields_between_its_reads(box):
    outcome, trace = streamed(box, "lazy")
    assert outcome.ok and trace.outputs == [len(item) for item in ITEMS]
    assert trace.handed == len(ITEMS) and trace.yielded_before_end == len(ITEMS)
    assert trace.handed_at[0] == 1 and trace.handed_at == sorted(trace.handed_at)
    assert trace.handed_at[len(ITEMS) // 2] < len(ITEMS)


def test_an_eager_call_is_seen_reading_everything_first(box):
    outcome, trace = streamed(box, "eager", take=1)
    assert outcome.ok and trace.read_all_first and trace.handed_at == [len(ITEMS)]


def test_items_stay_with_the_grader_until_asked_for(box):
    outcome, trace = streamed(box, "first_three")
    assert outcome.ok and trace.outputs == ITEMS[:3]
    assert 3 <= trace.handed <= 4 and trace.yielded_before_end is None


def test_a_call_cannot_hide_its_reads_from_the_count(box):
    # Zeroing the worker's own settings spoils its answer, never the grader's count.
    _, trace = streamed(box, "hides_its_reads", take=1)
    assert trace.read_all_first and trace.handed == len(ITEMS)


def test_an_output_forged_on_the_stream_is_an_output_at_that_moment_and_no_more(box):
    # Written before any read: the trace shows it yielded 7 with nothing read, which is what
    # it did; the reads after it are still counted, and nothing the call writes becomes a read.
    outcome, trace = streamed(box, "forges")
    assert outcome.ok and trace.outputs[0] == 7 and trace.handed_at[0] == 0
    assert trace.handed == len(ITEMS) and trace.yielded_before_end == 1


def test_anything_else_on_the_stream_is_a_bad_answer_and_the_next_call_is_clean(box):
    outcome, _ = streamed(box, "scribbles")
    assert outcome.kind == "bad-answer"
    outcome, trace = streamed(box, "lazy", take=1)
    assert outcome.ok and trace.outputs == [len(ITEMS[0])] and trace.handed_at == [1]


def test_items_a_call_asked_for_and_left_unread_never_reach_the_next_call(box):
    _, trace = streamed(box, "asks_without_reading", items=["secret\n"] * 50)
    assert trace.handed > 0
    outcome, trace = streamed(box, "first_three")
    assert outcome.ok and trace.outputs == ITEMS[:3]


def test_a_call_that_is_not_streamed_has_no_stream_to_write_on(box):
    outcome = box.call("plain", [5])
    assert outcome.stream is None
    outcome, trace = streamed(box, "lazy", take=1)
    assert outcome.ok and trace.handed == 1 and trace.handed_at == [1]


def test_a_stream_position_must_name_an_argument(box):
    with pytest.raises(SandboxError, match="position"):
        box.call("lazy", [], feed=Feed(0, ITEMS))
    with pytest.raises(ValueError, match="take"):
        Feed(0, ITEMS, take=0)
