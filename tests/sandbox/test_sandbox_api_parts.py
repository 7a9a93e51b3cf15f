"""A submission run in parts (a notebook's cells): the worker's own loader compiles and runs
each part in turn, reports the ones that did not compile or raised, and runs the next; every
call sees the module as that run left it."""

from __future__ import annotations

from grader.sandbox.api import Sandbox, SandboxLimits

PARTS = [
    "def double(x):\n    return 2 * x\n",                     # lines 1-2
    "value = double(21)\nprint(missing_name)\nafter = 1\n",    # lines 3-5: raises at line 4
    "def broken(:\n    pass\n",                               # lines 6-7: does not compile
    "def answer():\n    return value\n",                      # lines 8-9
]


def written(tmp_path, parts):
    text = "".join(parts)
    ranges, first = [], 1
    for part in parts:
        last = first + part.count("\n") - 1
        ranges.append((first, last))
        first = last + 1
    path = tmp_path / "student.py"
    path.write_text(text, encoding="utf-8")
    return path, ranges


def test_a_part_that_raises_or_does_not_compile_is_reported_and_the_next_parts_run(tmp_path):
    path, ranges = written(tmp_path, PARTS)
    where = lambda line: f"row {line}"  # noqa: E731 - how lines are named in the words
    with Sandbox(path, SandboxLimits(call_seconds=5), where=where, parts=ranges) as box:
        loaded = box.load()
        assert loaded.ok, loaded.error
        assert {"double", "answer"} <= set(loaded.functions)
        assert "broken" not in loaded.functions
        assert [index for index, _ in loaded.failed_parts] == [1, 2]
        raised, uncompiled = loaded.failed_parts[0][1], loaded.failed_parts[1][1]
        assert raised.startswith("raised NameError: name 'missing_name' is not defined")
        assert "(at row 4)" in raised
        assert uncompiled.startswith("SyntaxError in row 6")
        outcome = box.call("answer", [])
        assert outcome.ok and outcome.value == 42  # the part before the failing line ran
        assert box.call("double", [4]).value == 8


def test_a_file_run_whole_still_fails_to_load_on_its_first_exception(tmp_path):
    path, _ = written(tmp_path, PARTS[:2] + PARTS[3:])
    with Sandbox(path, SandboxLimits(call_seconds=5)) as box:
        loaded = box.load()
        assert not loaded.ok and "NameError" in loaded.error
        assert loaded.failed_parts == []


def test_a_part_replacing_builtins_does_not_change_how_the_next_parts_run(tmp_path):
    """The loader walks the parts with names bound before any student code ran."""
    parts = ["import builtins\nbuiltins.len = lambda items: 0\n",
             "raise RuntimeError('first')\n",
             "def still_here():\n    return 'yes'\n"]
    path, ranges = written(tmp_path, parts)
    with Sandbox(path, SandboxLimits(call_seconds=5), parts=ranges) as box:
        loaded = box.load()
        assert loaded.ok, loaded.error
        assert [index for index, _ in loaded.failed_parts] == [1]
        assert box.call("still_here", []).value == "yes"
