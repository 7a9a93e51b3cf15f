"""Grade one submission on an LMS grading host and always leave a valid results.json behind.

``grade bundle`` ships this file in Gradescope bundles, PrairieLearn questions and GitHub
Classroom template repositories. It uses only the standard library, so even when the grader
cannot be installed or imported it still writes a result the platform accepts: a visible
"Autograder error" for a fault of the grading set-up, a clear "submission problem" for a
missing or ambiguous file. Details meant for course staff (commands, tracebacks) go to
standard output only, which Gradescope hides from students (``stdout_visibility: hidden``)
and PrairieLearn shows in its job log.

Usage: ``python entrypoint.py gradescope|prairielearn|classroom``. Settings come from
``bundle.json`` beside this file; the roots from environment variables, so a bundle can be
run anywhere:

- Gradescope: ``AUTOGRADER_ROOT`` (default ``/autograder``): grades ``submission/``, writes
  ``results/results.json``.
- PrairieLearn: ``GRADE_ROOT`` (default ``/grade``): grades ``student/`` (an uploaded
  notebook first, when the question offers one), writes ``results/results.json``.
- GitHub Classroom: ``GITHUB_WORKSPACE`` (default: the current directory): grades the
  exercise's student file at the repository's top (or the notebook beside it, when the
  bundle names one and the student file is gone or still the template's), writes ``RUNNER_TEMP``'s (default: the
  workspace's) ``bpe-results/results.json``, appends ``result=<base64 of it>`` to the file
  named by ``GITHUB_OUTPUT`` for the grading reporter, and prints every check's feedback and
  the score Classroom records in the job log.

Who handed the file in is passed on as ``grade submit --student ID`` where the platform says
so, so that an exercise with a variant per student grades the variant of the submitter:
Gradescope's ``submission_metadata.json`` (the email of its one user), PrairieLearn's
``data/data.json`` (the variant's ``params.bpe_student``, set by the question's
``server.py``), GitHub Classroom's ``GITHUB_ACTOR`` (who pushed). Where the platform names no
one (a group submission, no metadata), ``grade submit --no-student REASON`` says why: an
answers file then earns no credit, whatever its own ``student:`` line says.

On Gradescope and PrairieLearn, run as root, the bundle's directory (the spec with its
hidden cases, the settings) is first made readable by root only, so that the student's code,
which the sandbox runs as an unprivileged user, cannot read it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

CONFIG_NAME = "bundle.json"
PLATFORMS = {
    # platform: (root variable, default root, submission directory below the root)
    "gradescope": ("AUTOGRADER_ROOT", "/autograder", "submission"),
    "prairielearn": ("GRADE_ROOT", "/grade", "student"),
    "classroom": ("GITHUB_WORKSPACE", ".", ""),
}
SECRET_PLATFORMS = ("gradescope", "prairielearn")
IGNORED_DIRECTORIES = {"__pycache__", "__MACOSX"}
DEFAULT_SUFFIXES = (".py",)  # bundles written before bundle.json named the suffixes
# The PrairieLearn variant parameter naming the student whose variant it is (server.py sets it).
VARIANT_PARAM = "bpe_student"
SUBMITTER_LIMIT = 200
STAFF_OUTPUT_LIMIT = 20_000
STUDENT_REASON_LIMIT = 2_000
KILL_GRACE_SECONDS = 5

GRADER_FAULT_TEXT = (
    "The autograder could not grade this submission. This is a problem with the grading "
    "set-up, not a verdict on your code: please tell your course staff (they can see the "
    "details) and submit again once they have fixed it."
)


class SubmissionProblem(Exception):
    """The submitted files cannot be graded as they are; the message tells the student why."""


class GraderFault(Exception):
    """The grading set-up failed; the message is safe to show, the details are for staff."""


# --------------------------------------------------------------------------- locations


class Layout:
    """Where one platform keeps the submission and expects the results."""

    def __init__(self, platform: str, environ: dict) -> None:
        variable, default, submission = PLATFORMS[platform]
        self.platform = platform
        self.root = Path(environ.get(variable) or default)
        self.submission_dir = self.root / submission if submission else self.root
        self.results_file = self.root / "results" / "results.json"
        self.step_output = None
        if platform == "classroom":
            scratch = Path(environ.get("RUNNER_TEMP") or self.root)
            self.results_file = scratch / "bpe-results" / "results.json"
            self.step_output = environ.get("GITHUB_OUTPUT") or None


def find_submission(directory: Path, expected_name: str,
                    suffixes: tuple = DEFAULT_SUFFIXES) -> Path:
    """The file to grade: ``expected_name`` if submitted (anywhere), else the only file with
    one of the exercise's ``suffixes`` (``.py`` and ``.ipynb`` for code)."""
    if not directory.is_dir():
        raise SubmissionProblem(f"No files were submitted: upload {expected_name}.")
    candidates = sorted(
        path for path in directory.rglob("*")
        if path.suffix.lower() in suffixes and path.is_file()
        and not (set(path.relative_to(directory).parts[:-1]) & IGNORED_DIRECTORIES)
        and not path.name.startswith("._")
    )
    # A link could point at the bundle's own files (hidden cases); only plain files are graded.
    linked = [path for path in candidates if _is_link(path, directory)]
    if linked:
        raise SubmissionProblem(
            f"{linked[0].relative_to(directory)} is a symbolic link: submit the file itself."
        )
    named = [path for path in candidates if path.name == expected_name]
    if named:
        return min(named, key=lambda path: len(path.relative_to(directory).parts))
    if len(candidates) == 1:
        return candidates[0]
    what = " or ".join(suffixes)
    if not candidates:
        raise SubmissionProblem(f"No {what} file was submitted: upload your {expected_name}.")
    names = ", ".join(str(path.relative_to(directory)) for path in candidates[:10])
    more = f" and {len(candidates) - 10} more" if len(candidates) > 10 else ""
    raise SubmissionProblem(
        f"Several {what} files were submitted ({names}{more}) and none is named "
        f"{expected_name}: submit only {expected_name}, or rename your solution to {expected_name}."
    )


def find_repository_file(directory: Path, expected_name: str, notebook=None) -> Path:
    """GitHub Classroom: the student file at the top of the repository, as the stub left it."""
    path = directory / expected_name
    if path.is_symlink():
        raise SubmissionProblem(f"{expected_name} is a symbolic link: commit the file itself.")
    if not path.is_file():
        instead = f" (or your notebook as {notebook})" if notebook else ""
        raise SubmissionProblem(
            f"{expected_name} is missing from the top of your repository: commit your solution "
            f"as {expected_name}{instead} (start from the stub the assignment gave you) and "
            "push again."
        )
    return path


def classroom_submission(directory: Path, config: dict):
    """GitHub Classroom: the file to grade and why it was chosen. The notebook
    (``notebook_file``, e.g. student.ipynb) when the code file is gone or still the
    template's (``starter_sha256``), else the code file."""
    name, notebook = config["student_file"], config.get("notebook_file")
    book = directory / notebook if notebook else None
    if book is None or not (book.is_file() or book.is_symlink()):
        return find_repository_file(directory, name, notebook), f"{name}"
    script = directory / name
    if script.is_file() and not script.is_symlink():
        digest = hashlib.sha256(script.read_bytes()).hexdigest()
        if digest != config.get("starter_sha256"):
            return script, (f"{name}: your repository has {notebook} too, but {name} is no "
                            f"longer the template's, so {name} is graded")
        why = f"{notebook}: {name} is still the template's, so your notebook is graded"
    else:
        why = f"{notebook}: your repository has no {name}, so your notebook is graded"
    return find_repository_file(directory, notebook), why


def uploaded_notebook(directory: Path, config: dict):
    """PrairieLearn with a notebook upload: the uploaded notebook, or None."""
    notebook = config.get("notebook_file")
    path = directory / notebook if notebook else None
    if path is None or not (path.is_file() or path.is_symlink()):
        return None
    if _is_link(path, directory):
        raise SubmissionProblem(f"{notebook} is a symbolic link: upload the file itself.")
    return path


def submitter(layout: Layout, environ: dict, student_id: str = "email"):
    """Who handed the submission in, as the platform names them, or None when it does not say
    (or names several: a group). A value that cannot be an id is left out."""
    return who_handed_in(layout, environ, student_id)[0]


GRADESCOPE_IDS = {"email": "e-mail", "sid": "SID"}
"""The course's student id setting (bundle.json's ``student_id``): which field of Gradescope's
submitter record names a student."""


def who_handed_in(layout: Layout, environ: dict, student_id: str = "email"):
    """``(id, None)`` when the platform names the one student who handed the submission in,
    else ``(None, reason)``: the clause the report quotes ("Gradescope lists 2 submitters for
    it (a group submission)"). On Gradescope the id is the submitter's ``student_id`` field
    (the e-mail or the SID, the course's setting). Whether the id is a valid one is the
    grader's to say."""
    if layout.platform == "gradescope":
        metadata = _json_file(layout.root / "submission_metadata.json")
        users = metadata.get("users")
        if not metadata:
            return None, "Gradescope's submission_metadata.json, which names who handed it in, cannot be read"
        if not isinstance(users, list) or not users:
            return None, "Gradescope names no submitter for it"
        if len(users) > 1:
            return None, f"Gradescope lists {len(users)} submitters for it (a group submission)"
        field = student_id if student_id in GRADESCOPE_IDS else "email"
        found = users[0].get(field) if isinstance(users[0], dict) else None
        if isinstance(found, int) and not isinstance(found, bool):
            found = str(found)
        if not isinstance(found, str) or not found.strip():
            return None, f"Gradescope gives no {GRADESCOPE_IDS[field]} for who handed it in"
        platform = "Gradescope"
    elif layout.platform == "prairielearn":
        params = _json_file(layout.root / "data" / "data.json").get("params")
        found = params.get(VARIANT_PARAM) if isinstance(params, dict) else None
        platform = f"PrairieLearn's variant (its params.{VARIANT_PARAM})"
    else:
        found = environ.get("GITHUB_ACTOR")
        platform = "GitHub (GITHUB_ACTOR)"
    if not isinstance(found, str) or not found.strip():
        return None, f"{platform} names no one who handed it in"
    if len(found) > SUBMITTER_LIMIT or any(ord(character) < 32 for character in found):
        return None, f"{platform} names who handed it in with a value that is no student id"
    return found.strip(), None


def _json_file(path: Path) -> dict:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _is_link(path: Path, directory: Path) -> bool:
    relative = path.relative_to(directory)
    steps = [directory.joinpath(*relative.parts[: index + 1]) for index in range(len(relative.parts))]
    return any(step.is_symlink() for step in steps)


# --------------------------------------------------------------------------- grading


def load_config(directory: Path) -> dict:
    path = directory / CONFIG_NAME
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise GraderFault(f"the bundle's {CONFIG_NAME} cannot be read ({error})") from None
    for key in ("exercise_file", "student_file", "max_score", "strict_sandbox", "timeout_seconds"):
        if key not in config:
            raise GraderFault(f"the bundle's {CONFIG_NAME} lacks the setting {key!r}")
    return config


def grade_command(submission: Path, exercise_file: Path, platform: str, output: Path,
                  strict: bool, student=None, nobody=None) -> list:
    """The ``grade submit`` command line: who handed the file in as ``--student``, or, when the
    platform names no one, ``--no-student`` with the reason (never the file's own line)."""
    grade = Path(sys.executable).parent / "grade"
    if not grade.exists():
        raise GraderFault(
            f"bpe-autograder is not installed for {sys.executable} (no {grade}); "
            "the set-up script has not run or has failed"
        )
    command = [str(grade), "submit", str(submission), "--exercise", str(exercise_file),
               "--format", platform, "-o", str(output)]
    command += ["--strict-sandbox"] if strict else []
    if student:
        return command + [f"--student={student}"]
    return command + [f"--no-student={nobody or 'the platform names no one who handed it in'}"]


def grading_environment(config: dict, bundle_dir: Path) -> dict:
    """This process's environment, plus the bundle's seed secret for the generated inputs (and
    each student's variant): the one the bundle was built with, whatever the host sets."""
    environment = dict(os.environ)
    secret = config.get("seed_secret_file")
    if secret and (bundle_dir / secret).is_file():
        environment.pop("GRADE_SEED_SECRET", None)
        environment["GRADE_SEED_SECRET_FILE"] = str(bundle_dir / secret)
    return environment


def run_grader(command: list, timeout: float, workdir: str,
               environment: dict | None = None) -> subprocess.CompletedProcess:
    """Run ``command`` in its own process group, killed whole when it overruns ``timeout``."""
    print("$ " + " ".join(command), flush=True)
    process = subprocess.Popen(
        command, cwd=workdir, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True, env=environment,
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        process.communicate(timeout=KILL_GRACE_SECONDS)
        raise GraderFault(f"grading did not finish within {timeout:g} seconds") from None
    for name, text in (("stdout", stdout), ("stderr", stderr)):
        if text.strip():
            print(f"--- grader {name} ---\n{text[-STAFF_OUTPUT_LIMIT:]}", flush=True)
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()


def grader_messages(stderr: str) -> str:
    """The grader's own one-line messages (never tracebacks), for the student-visible reason.

    An internal error's text may quote any value the grader held, hidden cases included, so
    students only learn that one happened; staff read it in the log.
    """
    lines = []
    for line in stderr.splitlines():
        if not (line.startswith("grade submit: ") or line.startswith("Error: ")):
            continue
        if "internal error" in line:
            line = "grade submit: internal error of the grader (details in the staff log)"
        lines.append(line.strip())
    return "\n".join(dict.fromkeys(lines))[:STUDENT_REASON_LIMIT]


def read_results(path: Path, platform: str) -> str:
    """The grader's results file, checked to be what the platform needs."""
    try:
        text = path.read_text(encoding="utf-8")
        results = json.loads(text)
    except (OSError, ValueError) as error:
        raise GraderFault(f"the grader wrote no readable results ({error})") from None
    if not isinstance(results, dict):
        raise GraderFault("the grader's results are not a JSON object")
    if platform == "gradescope":
        usable = isinstance(results.get("score"), (int, float)) and isinstance(results.get("tests"), list)
    elif platform == "classroom":
        usable = isinstance(results.get("max_score"), (int, float)) and isinstance(results.get("tests"), list)
    else:
        usable = results.get("gradable") is False or (
            isinstance(results.get("score"), (int, float)) and 0 <= results["score"] <= 1
        )
    if not usable:
        raise GraderFault("the grader's results lack a valid score")
    return text


def grade(layout: Layout, config: dict, bundle_dir: Path, environ=None) -> str:
    """The results document for the submission under ``layout``."""
    environ = os.environ if environ is None else environ
    if layout.platform == "classroom":
        submission, why = classroom_submission(layout.submission_dir, config)
        print(f"graded file: {why}", flush=True)
    elif layout.platform == "prairielearn" and uploaded_notebook(layout.submission_dir, config):
        submission = uploaded_notebook(layout.submission_dir, config)
        print(f"graded file: {submission.name}, the uploaded notebook (not the editor's "
              f"{config['student_file']})", flush=True)
    else:
        submission = find_submission(layout.submission_dir, config["student_file"],
                                     tuple(config.get("submission_suffixes") or DEFAULT_SUFFIXES))
    student, nobody = who_handed_in(layout, environ, str(config.get("student_id") or "email"))
    print(f"grading {submission}" + (f", handed in by {student}" if student else
                                     f" ({nobody})"), flush=True)
    exercise_file = bundle_dir / config["exercise_file"]
    with tempfile.TemporaryDirectory(prefix="bpe-grading-") as scratch:
        output = Path(scratch) / "results.json"
        command = grade_command(submission, exercise_file, layout.platform, output,
                                bool(config["strict_sandbox"]), student, nobody)
        finished = run_grader(command, float(config["timeout_seconds"]), scratch,
                              grading_environment(config, bundle_dir))
        if finished.returncode != 0:
            reason = grader_messages(finished.stderr) or f"the grader exited with status {finished.returncode}"
            raise GraderFault(reason)
        return read_results(output, layout.platform)


# --------------------------------------------------------------------------- fallback results


def gradescope_failure(test_name: str, text: str, max_score: float, seconds: float) -> dict:
    return {
        "score": 0.0,
        "execution_time": round(seconds, 3),
        "output": text,
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": [{
            "name": test_name,
            "number": "0",
            "score": 0.0,
            "max_score": float(max_score),
            "status": "failed",
            "output": text,
            "output_format": "text",
            "visibility": "visible",
        }],
        "leaderboard": [],
    }


def prairielearn_failure(text: str) -> dict:
    # Not gradable: the student loses no attempt for a problem they may not have caused.
    return {"gradable": False, "format_errors": [text], "message": text, "output": text}


def classroom_failure(test_name: str, text: str, max_score: float) -> dict:
    # max_score must be positive: the grading reporter records nothing for a result without one.
    return {
        "version": 1,
        "status": "error",
        "max_score": max_score,
        "tests": [{"name": test_name, "status": "error", "score": 0, "message": text,
                   "test_code": "", "filename": "", "line_no": 0}],
    }


def failure_results(platform: str, test_name: str, text: str, max_score: float, seconds: float) -> str:
    if platform == "gradescope":
        results = gradescope_failure(test_name, text, max_score, seconds)
    elif platform == "classroom":
        results = classroom_failure(test_name, text, max_score)
    else:
        results = prairielearn_failure(text)
    return json.dumps(results, indent=2, ensure_ascii=False) + "\n"


def write_results(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


# --------------------------------------------------------------------------- secrets and the log


def protect_bundle(directory: Path) -> None:
    """Make the bundle's files readable by their owner (root) only.

    Best effort: a host that keeps the files on a read-only mount already decides who reads
    them, and grading goes on.
    """
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return
    for path in [directory, *directory.rglob("*")]:
        if path.is_symlink():
            continue
        try:
            mode = path.stat().st_mode
            path.chmod(mode & 0o700)
        except OSError as error:
            print(f"note: cannot restrict {path}: {error}", flush=True)


NOTE_TEST_NAME = "About your submission"  # the entries grader/report/classroom.py adds first


def classroom_log(document: str) -> str:
    """The job log's account of a Classroom result: every check, then the recorded score."""
    results = json.loads(document)
    tests = results.get("tests", [])
    lines = []
    for test in tests:
        if test.get("name") == NOTE_TEST_NAME:  # how the file was read: no check, no points
            lines.append(f"[NOTE] {test.get('message', '')}")
            continue
        mark = "PASS" if test.get("status") == "pass" else test.get("status", "fail").upper()
        lines.append(f"[{mark}] {test.get('name', '')} ({_points(test.get('score', 0))} points)")
        lines += ["    " + line for line in str(test.get("message", "")).splitlines()]
    recorded = round(sum(test.get("score", 0) for test in tests), 2)
    total = results.get("max_score", 0)
    lines.append("")
    lines.append(f"Score recorded by GitHub Classroom: {_points(recorded)}/{_points(total)} "
                 "(the sum of the points of the checks).")
    passed = sum(test.get("status") == "pass" for test in tests)
    notes = sum(test.get("name") == NOTE_TEST_NAME for test in tests)
    share = passed / len(tests) * 100 if tests else 0.0
    recorded_share = recorded / total * 100 if total else 0.0
    if tests and f"{share:.2f}" != f"{recorded_share:.2f}":
        lines.append(
            f"The grading reporter's \"Total points for bpe: {share:.2f}/100\" line counts passed "
            f"checks ({passed} of {len(tests)}"
            + (f", counting the {notes} note(s) about the submission as passed" if notes else "")
            + f") without their points; its \"Total points: "
            f"{_points(recorded)}/{_points(total)}\" line is the score that is recorded."
        )
    return "\n".join(lines)


def _number_or_zero(text) -> float:
    try:
        return max(0.0, float(text or 0))
    except ValueError:
        return 0.0


def _points(value) -> str:
    rounded = round(float(value), 2)
    return str(int(rounded)) if rounded == int(rounded) else f"{rounded:g}"


def hand_to_reporter(layout: Layout, document: str) -> None:
    """Print the Classroom result and pass it, base64-encoded, to the grading reporter."""
    print(classroom_log(document), flush=True)
    if layout.step_output:
        encoded = base64.b64encode(document.encode("utf-8")).decode("ascii")
        with open(layout.step_output, "a", encoding="utf-8") as handle:
            handle.write(f"result={encoded}\n")


# --------------------------------------------------------------------------- main


def main(argv: list) -> int:
    started = time.monotonic()
    platform = argv[1] if len(argv) > 1 else ""
    if platform not in PLATFORMS:
        print(f"usage: {argv[0]} {'|'.join(PLATFORMS)}", file=sys.stderr)
        return 2
    layout = Layout(platform, dict(os.environ))
    bundle_dir = Path(__file__).resolve().parent
    # What a failure result is out of when bundle.json cannot be read (Classroom's run_grader
    # passes it: the reporter records nothing for a result out of 0).
    max_score = _number_or_zero(os.environ.get("BPE_AUTOGRADER_MAX_SCORE"))
    try:
        if platform in SECRET_PLATFORMS:
            protect_bundle(bundle_dir)
        config = load_config(bundle_dir)
        max_score = float(config["max_score"])
        document = grade(layout, config, bundle_dir)
    except SubmissionProblem as problem:
        document = failure_results(platform, "Submission file", str(problem), max_score,
                                   time.monotonic() - started)
    except GraderFault as fault:
        print(f"autograder error: {fault}", flush=True)
        text = f"{GRADER_FAULT_TEXT}\n\nReason: {fault}"
        document = failure_results(platform, "Autograder error", text, max_score,
                                   time.monotonic() - started)
    except Exception as error:  # noqa: BLE001 - whatever happens, the platform gets a result
        traceback.print_exc(file=sys.stdout)
        text = f"{GRADER_FAULT_TEXT}\n\nReason: internal error ({type(error).__name__})"
        document = failure_results(platform, "Autograder error", text, max_score,
                                   time.monotonic() - started)
    write_results(layout.results_file, document)
    print(f"results written to {layout.results_file}", flush=True)
    if platform == "classroom":
        hand_to_reporter(layout, document)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
