"""Running an LMS bundle's entry point as the platform does: its folder layout, its
environment, and the points it reports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from grader.bundles.common import write_grading_files
from support.host import host_environment

LAYOUTS = {  # platform: (root variable, bundle folder, submission folder, results), under the root
    "gradescope": ("AUTOGRADER_ROOT", "source", "submission", "results/results.json"),
    "prairielearn": ("GRADE_ROOT", "tests", "student", "results/results.json"),
    "classroom": ("GITHUB_WORKSPACE", ".bpe-autograder", ".", "runner/bpe-results/results.json"),
}


def run_door(root: Path, platform: str, exercise, files: dict, *, secret: str = "course-secret",
             extra_env: dict | None = None, metadata: dict | None = None,
             student_id: str | None = None) -> tuple[dict, str]:
    """Lay out ``platform``'s root with ``files`` submitted, run the entry point, return the
    results and the staff log; ``student_id`` is the bundle's student id setting."""
    variable, bundle_name, submission_name, results_name = LAYOUTS[platform]
    bundle = root / bundle_name
    write_grading_files(bundle, exercise, sandbox="best-effort", seed_secret=secret,
                        student_id=student_id)
    submission = root / submission_name
    submission.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (submission / name).write_text(text, encoding="utf-8")
    for name, document in (metadata or {}).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(json.dumps(document), encoding="utf-8")
    environment = dict(host_environment(), **{variable: str(root), "RUNNER_TEMP": str(root / "runner")})
    for name in ("GRADE_SEED_SECRET", "GITHUB_OUTPUT", "GITHUB_ACTOR"):
        environment.pop(name, None)
    environment.update(extra_env or {})
    finished = subprocess.run([sys.executable, str(bundle / "entrypoint.py"), platform],
                              env=environment, capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    return json.loads((root / results_name).read_text()), finished.stdout


def handed_in_by(platform: str, student: str | None = None, *, group: tuple = ()) -> dict:
    """``run_door``'s keywords for a submission the platform says ``student`` handed in (with
    ``group``: together with those others), or, with neither, one it names no one for."""
    if platform == "gradescope":
        users = [{"email": email, "id": number, "name": "", "sid": f"s{number}"}
                 for number, email in enumerate(([student] if student else []) + list(group))]
        return {"metadata": {"submission_metadata.json": {"users": users}}}
    if platform == "prairielearn":
        params = {"bpe_student": student} if student else {}
        return {"metadata": {"data/data.json": {"params": params}}}
    return {"extra_env": {"GITHUB_ACTOR": student}} if student else {}


def points(platform: str, results: dict, total: float) -> float:
    if platform == "gradescope":
        return results["score"]
    if platform == "prairielearn":
        return round(results["score"] * total, 6)
    return sum(test.get("score", 0) for test in results["tests"])
