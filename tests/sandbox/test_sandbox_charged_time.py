"""Every second a submission takes is charged: executing the module again in each call's
child counts towards that call's limit (however long the load's import took), and a
grading's calls, restarts included, end within the submission's time budget plus
:data:`grader.sandbox.api.BUDGET_MARGIN_SECONDS`."""

from __future__ import annotations

import os
import textwrap
import time

from grader.sandbox.api import BUDGET_MARGIN_SECONDS, Sandbox, SandboxLimits

SLOW_ONLY_WHEN_LOADED = textwrap.dedent('''
    import sys
    import time


    def _loading():
        frame = sys._getframe()
        while frame is not None:
            if frame.f_code.co_name == "load_in_child":
                return True
            frame = frame.f_back
        return False


    if _loading():
        time.sleep(0.8)  # the load's import is slow; the calls' imports are not


    def sleep_for(seconds):
        time.sleep(seconds)
        return "done"
''')
SLOW_EVERY_IMPORT = textwrap.dedent('''
    import time

    time.sleep(1.8)


    def forever():
        while True:
            time.sleep(0.01)
''')


def _submission(tmp_path, source: str):
    os.chmod(tmp_path, 0o755)
    path = tmp_path / "student.py"
    path.write_text(source, encoding="utf-8")
    os.chmod(path, 0o644)
    return path


def test_a_slow_load_buys_no_call_more_than_its_limit(tmp_path):
    limits = SandboxLimits(call_seconds=1.0, memory_mib=256, total_seconds=30.0)
    with Sandbox(_submission(tmp_path, SLOW_ONLY_WHEN_LOADED), limits=limits) as box:
        assert box.load().ok
        within = box.call("sleep_for", [0.3])
        beyond = box.call("sleep_for", [1.4])
    assert within.ok and within.value == "done"  # the control: a call within its limit
    assert beyond.kind == "timeout", beyond


def test_a_gradings_calls_and_restarts_end_within_the_budget_and_the_stated_margin(tmp_path):
    limits = SandboxLimits(call_seconds=2.0, memory_mib=256, total_seconds=4.0)
    with Sandbox(_submission(tmp_path, SLOW_EVERY_IMPORT), limits=limits) as box:
        started = time.monotonic()
        assert box.load().ok
        kinds = []
        while len(kinds) < 10 and (not kinds or kinds[-1] != "budget"):
            kinds.append(box.call("forever").kind)
        wall = time.monotonic() - started
    assert kinds[-1] == "budget", kinds
    assert "timeout" in kinds
    assert wall <= limits.total_seconds + BUDGET_MARGIN_SECONDS, (wall, kinds)
