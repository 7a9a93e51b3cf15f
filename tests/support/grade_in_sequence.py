"""Grade many submissions one after another in one process, as ``grade submit --format json``
grades one, and say after each what it left behind: a script for the environment-matrix tests,
which start it once per environment (under ``setpriv``, in the container simulation) instead of
starting one ``grade`` process per submission.

    python -I grade_in_sequence.py '[["/runs/0/daemon.py", "/runs/0/valid-minimal.yaml"], ...]'

Each submission is in a folder of its own (its *place*) with an empty ``tmp`` folder: the
grading runs with the place as its working directory and ``tmp`` as its ``TMPDIR``. This
process is a child subreaper, so whatever a grading orphans becomes its child; right after each
grading it prints one line, ``graded-in-sequence {json}``, with the name of its place, the
grading's error (None, or what ``grade submit`` would have failed with), the JSON report (the
document ``grade submit --format json`` writes), the processes the grading left (killed and
reaped, see :mod:`support.strays`) and what its ``tmp`` folder and its place hold.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
import traceback
from pathlib import Path

try:
    from support.strays import Adopted, adopting
except ImportError:  # run as a script, isolated (-I): the tests' folders are not on the path
    _spec = importlib.util.spec_from_file_location("strays", Path(__file__).with_name("strays.py"))
    _strays = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_strays)
    Adopted, adopting = _strays.Adopted, _strays.adopting

MARK = "graded-in-sequence "


def grade_one(submission: Path, exercise: str) -> tuple[str | None, dict | None]:
    """What ``grade submit --format json --exercise EXERCISE SUBMISSION`` does, in-process:
    (None, the report) or (the error it would exit non-zero with, None)."""
    from grader.grading.engine import grade_submission, resolve_exercise
    from grader.grading.submission_file import handed_in
    from grader.report import render

    try:
        handed = handed_in(submission)
        spec = resolve_exercise(handed, exercise)
        report = grade_submission(handed, spec)
        document = render(report, "json",
                          exercise_options={"hidden_visibility": spec.feedback.hidden_visibility})
    except BaseException:  # noqa: BLE001 - the test reports whatever stopped the grading
        return traceback.format_exc()[-4000:], None
    return None, json.loads(document)


def main(jobs: list[list[str]]) -> int:
    with adopting():
        for submission, exercise in jobs:
            place = Path(submission).parent
            os.chdir(place)
            os.environ["TMPDIR"] = str(place / "tmp")
            tempfile.tempdir = None  # found again from TMPDIR
            adopted = Adopted()
            error, report = grade_one(Path(submission), exercise)
            left = adopted.strays()
            print(MARK + json.dumps({
                "job": place.name, "error": error, "report": report,
                "strays": left, "tmp": sorted(os.listdir(place / "tmp")),
                "place": sorted(os.listdir(place))}), flush=True)
    return 0


def read(stdout: str) -> dict[str, dict]:
    """The lines :func:`main` printed, by the name of the job's place folder."""
    return {line["job"]: line for line in
            (json.loads(text[len(MARK):]) for text in stdout.splitlines()
             if text.startswith(MARK))}


if __name__ == "__main__":
    sys.exit(main(json.loads(sys.argv[1])))
