"""``grade batch``: grade a folder of submissions into a gradebook and the class's files.

:func:`run_batch` finds the submissions (:mod:`~grader.batch.discovery`), keeps this machine's
shard, prepares each one (the exercise comes from the options or the file's ``# exercise:`` line), reuses every gradebook row whose
fingerprints are unchanged, grades the rest in parallel (:mod:`~grader.batch.runner`),
recording each grading as it finishes (committed a few at a time: a killed batch grades
again only what was not committed), then writes the outputs
(:mod:`~grader.batch.outputs`). Nothing the folder holds is skipped silently: every entry
that cannot be graded is in ``BatchSummary.unusable`` with the reason.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, Union

from grader.batch.discovery import Accepts, Discovered, Submission, Unusable, discover
from grader.batch.fingerprints import content_hash, grader_version, settings_hash, spec_hash
from grader.batch.gradebook import COMMIT_EVERY, COMMIT_SECONDS, Fingerprint, Gradebook, Grading
from grader.batch.outputs import OutputSettings, Written, write_outputs
from grader.batch.progress import Progress
from grader.batch.runner import Outcome, Task, run_tasks
from grader.batch.sharding import Shard
from grader.grading.engine import GradingSetupError, exercise_header, resolve_exercise
from grader.grading.submission_file import (
    SubmissionFileError,
    header_mismatch,
    read_submission,
)
from grader.grading.submissions import submission_kind
from grader.report.bounds import bounded_text
from grader.report.class_report import SimilarityLeads
from grader.spec import Exercise

GRADEBOOK = "gradebook.sqlite"

ExerciseArg = Union[Exercise, str, os.PathLike, None]


@dataclass
class BatchOptions:
    exercise: ExerciseArg = None
    jobs: int | None = None
    regrade: bool = False
    shard: Shard | None = None
    grading_options: Mapping[str, Any] = field(default_factory=dict)
    output: OutputSettings = field(default_factory=OutputSettings)
    progress: bool | None = None  # None: draw only on a terminal
    # Called with the submissions and output folders once the class is graded, before the
    # class report is written: what it returns becomes the report's similarity section.
    similarity: Callable[[Path, Path], SimilarityLeads] | None = None
    # Gradings are committed together, this many or this many seconds' worth at a time.
    commit_every: int = COMMIT_EVERY
    commit_seconds: float = COMMIT_SECONDS
    # Which id of a Gradescope export names the student who handed a file in (the course's
    # student id setting, as the Gradescope door reads it): "email" or "sid".
    student_id: str = "email"


@dataclass
class BatchSummary:
    out: Path
    layout: str
    students: int = 0
    graded: int = 0
    reused: int = 0
    interrupted: bool = False
    not_graded: int = 0
    unusable: list[Unusable] = field(default_factory=list)
    not_gradable: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    grader_errors: list[tuple[str, str]] = field(default_factory=list)
    written: Written = field(default_factory=Written)
    seconds: float = 0.0

    def lines(self) -> list[str]:
        lines = [f"{self.students} submission(s) ({self.layout} layout): "
                 f"{self.graded} graded, {self.reused} unchanged since the last run"
                 + (f", {self.not_graded} not graded yet" if self.not_graded else "")
                 + f"; {len(self.unusable)} unusable; {self.seconds:.1f} s"]
        if self.interrupted:
            lines.append("interrupted: every grading that finished is in the gradebook; "
                         "run the same command again to grade the rest")
        lines += [f"warning: {warning}" for warning in self.warnings]
        lines += [f"unusable: {item.line()}" for item in self.unusable]
        lines += [f"not gradable: {student}: {reason}" for student, reason in self.not_gradable]
        lines += [f"grader error: {student}: {error}" for student, error in self.grader_errors]
        lines += [f"wrote {path}" for path in self.written.files]
        return lines


@dataclass
class _Prepared:
    submission: Submission
    path: Path
    exercise: Exercise
    fingerprint: Fingerprint


def run_batch(submissions: Path, out: Path, options: BatchOptions | None = None) -> BatchSummary:
    """Grade ``submissions`` into ``out``; raises ``DiscoveryError``, ``GradebookError`` or
    ``GradingSetupError`` (a bad ``--exercise``) for unusable arguments."""
    options = options or BatchOptions()
    started = time.monotonic()
    fixed = _fixed_exercise(options.exercise, submissions)
    found = discover(Path(submissions), exclude=(Path(out),), accepts=accepts(fixed),
                     student_id=options.student_id)
    if options.shard is not None:
        found = _shard(found, options.shard)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary = BatchSummary(out=out, layout=found.layout, unusable=list(found.unusable))
    settings_digest = settings_hash({**options.grading_options, "student_id": options.student_id}
                                    if options.student_id != "email" else options.grading_options)
    with Gradebook(out / GRADEBOOK, commit_every=options.commit_every,
                   commit_seconds=options.commit_seconds) as book:
        prepared = _prepare(found.submissions, fixed, settings_digest,
                            summary.unusable, summary.warnings)
        summary.students = len(prepared)
        tasks, by_key = [], {}
        for key, item in enumerate(prepared):
            if not options.regrade and book.reusable(item.fingerprint) is not None:
                summary.reused += 1
            else:
                # Who handed it in is as the batch's door names them, never a line of the file.
                tasks.append(Task(key, item.path, item.exercise,
                                  {**options.grading_options,
                                   "submitter": item.submission.submitter}))
                by_key[key] = item
        progress = Progress(len(tasks), enabled=options.progress)
        fresh: set[int] = set()

        def finished(outcome: Outcome) -> None:
            item = by_key[outcome.key]
            try:
                grading_id = book.record(_row(item, outcome), outcome.summary, outcome.report_json)
            except Exception as error:  # noqa: BLE001 - one student's row, never the batch
                failed = Outcome(outcome.key, error=bounded_text(
                    f"the grading could not be stored: {type(error).__name__}: {error}", 500),
                    seconds=outcome.seconds)
                grading_id = book.record(_row(item, failed))
            fresh.add(grading_id)
            summary.graded += 1
            progress.advance(failed=outcome.outcome == "grader-error", student=item.submission.student)

        progress.draw(force=True)
        summary.interrupted = run_tasks(tasks, options.jobs or os.cpu_count() or 1, finished,
                                        on_tick=book.commit_if_due)
        book.commit()
        progress.phase("writing grades.csv, the reports and the class report")
        summary.not_graded = len(tasks) - summary.graded
        book.set_unusable((u.entry, u.student, u.reason) for u in summary.unusable)
        wanted = {(p.submission.student, p.exercise.id) for p in prepared}
        gradings = [g for g in book.latest() if (g.student, g.exercise) in wanted]
        _collect_problems(gradings, summary)
        leads = options.similarity(Path(submissions), out) if options.similarity else None
        try:
            summary.written = write_outputs(out, book, gradings, options.output, fresh,
                                            {p.exercise.id: p.exercise for p in prepared}, leads)
        finally:
            progress.finish()
    summary.unusable.sort(key=lambda u: (u.entry, u.student))
    summary.seconds = time.monotonic() - started
    return summary


def accepts(exercise: Exercise | None) -> Accepts:
    """The files that are submissions: those of ``exercise``'s kind of submission; without an
    exercise (each file names its own), Python files and notebooks."""
    if exercise is None:
        return Accepts()
    kind = submission_kind(exercise)
    return Accepts(tuple(kind.suffixes), exercise.student_file, kind.noun)


def _fixed_exercise(exercise: ExerciseArg, submissions: Path) -> Exercise | None:
    if exercise is None or isinstance(exercise, Exercise):
        return exercise
    return resolve_exercise(Path(submissions), exercise)


def _shard(found: Discovered, shard: Shard) -> Discovered:
    return Discovered(
        layout=found.layout,
        submissions=[s for s in found.submissions if shard.holds(s.student)],
        unusable=[u for u in found.unusable if shard.holds(u.student or u.entry)],
    )


def _prepare(submissions: Sequence[Submission], fixed: Exercise | None,
             settings_digest: str, unusable: list[Unusable],
             warnings: list[str]) -> list[_Prepared]:
    exercises: dict[str, Exercise] = {}
    digests: dict[int, str] = {}
    version = grader_version()
    prepared = []
    for submission in submissions:
        try:
            path, source = _graded_file(submission)
            exercise = fixed or _header_exercise(path, exercises)
        except (OSError, SubmissionFileError, GradingSetupError) as error:
            reason = (f"cannot read it: {error.strerror or error}" if isinstance(error, OSError)
                      else str(error))
            unusable.append(Unusable(submission.entry, reason, student=submission.student))
            continue
        if fixed is not None:  # as grade submit --exercise warns
            mismatch = header_mismatch(path, fixed.id)
            if mismatch:
                warnings.append(f"{submission.student}: {mismatch}")
        digest = digests.setdefault(id(exercise), spec_hash(exercise))
        fingerprint = Fingerprint(submission.student, exercise.id, content_hash(source), digest,
                                  version, settings_digest)
        prepared.append(_Prepared(submission, path, exercise, fingerprint))
    return prepared


def _graded_file(submission: Submission) -> tuple[Path, bytes]:
    """The file to grade and its bytes; raise SubmissionFileError when it cannot be read as a
    submission (the engine reads notebooks, byte-order marks and CRLF the same way)."""
    read_submission(submission.path)
    return submission.path, submission.path.read_bytes()


def _header_exercise(path: Path, cache: dict[str, Exercise]) -> Exercise:
    header = exercise_header(path)
    if header is not None and header in cache:
        return cache[header]
    exercise = resolve_exercise(path, None)
    cache[header or exercise.id] = exercise
    return exercise


def _row(item: _Prepared, outcome: Outcome) -> dict[str, Any]:
    graded = outcome.report_json is not None
    fingerprint = item.fingerprint
    error = bounded_text(outcome.error, 2_000) if outcome.error else ""
    return {
        "student": item.submission.student, "name": item.submission.name,
        "email": item.submission.email, "exercise": item.exercise.id,
        "entry": item.submission.entry,
        "submission_sha256": fingerprint.submission_sha256,
        "spec_sha256": fingerprint.spec_sha256, "grader_version": fingerprint.grader_version,
        "settings_sha256": fingerprint.settings_sha256, "outcome": outcome.outcome,
        "score": outcome.score if graded else 0.0,
        "max_score": outcome.max_score if graded else float(sum(
            m.points for m in item.exercise.milestones)),
        "student_output": outcome.student_output, "error": error,
        "seconds": round(outcome.seconds, 3),
    }


def _collect_problems(gradings: list[Grading], summary: BatchSummary) -> None:
    for grading in gradings:
        if grading.outcome == "grader-error":
            summary.grader_errors.append((grading.student, grading.error))
        elif grading.outcome == "not-gradable":
            summary.not_gradable.append((grading.student, grading.not_gradable))
