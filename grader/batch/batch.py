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
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, Union

from grader.batch.discovery import Accepts, Discovered, Submission, Unusable, discover
from grader.batch.fingerprints import content_hash, grader_version, settings_hash, spec_hash
from grader.batch.gradebook import (
    COMMIT_EVERY,
    COMMIT_SECONDS,
    GRADING_COLUMNS,
    SCHEMA_VERSION,
    Fingerprint,
    Gradebook,
    GradebookError,
    Grading,
)
from grader.batch.outputs import Exports, OutputSettings, Written, write_outputs, write_text
from grader.batch.policy import META_KEY as POLICY_KEY
from grader.batch.policy import Policy, choose, resolve_policy, same_grading
from grader.batch.regrade import Change, Impact, why_regraded
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
from grader.spec.registry import families

GRADEBOOK = "gradebook.sqlite"
PREVIEW = "regrade-preview.sqlite"  # the gradings of a dry run, until a real run takes them
DRY_RUN_CSV = "regrade-dry-run.csv"

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
    # Which grading the exports take (grader.batch.policy); None: the one the gradebook
    # recorded, else "latest".
    policy: str | None = None
    # Grade what changed and show the impact, leaving the gradebook and the exports as they
    # are (the gradings go to PREVIEW, where the next real run takes them from).
    dry_run: bool = False
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
    from_preview: int = 0
    impact: Impact | None = None
    policy: Policy | None = None
    dry_run: bool = False

    def lines(self) -> list[str]:
        lines = [f"{self.students} submission(s) ({self.layout} layout): "
                 f"{self.graded} graded"
                 + (f" ({self.from_preview} of them taken from the dry run)"
                    if self.from_preview else "")
                 + f", {self.reused} unchanged since the last run"
                 + (f", {self.not_graded} not graded yet" if self.not_graded else "")
                 + f"; {len(self.unusable)} unusable; {self.seconds:.1f} s"]
        if self.impact is not None:
            lines += self.impact.lines()
        elif self.policy is not None:
            lines.append(self.policy.line(self.dry_run))
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
    """Grade ``submissions`` into ``out``; raises ``DiscoveryError``, ``GradebookError``,
    ``PolicyError`` or ``GradingSetupError`` (a bad ``--exercise``) for unusable arguments."""
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
    dry_run = options.dry_run
    with ExitStack() as books:
        book = _main_book(out, options, books)
        preview = (books.enter_context(Gradebook(out / PREVIEW)) if dry_run
                   or (out / PREVIEW).exists() else None)
        target = preview if dry_run else book
        assert target is not None
        policy = resolve_policy(book, options.policy)
        prepared = _prepare(found.submissions, fixed, settings_digest,
                            summary.unusable, summary.warnings)
        summary.students = len(prepared)
        first_run = book is None or book.count() == 0
        before = {(g.student, g.exercise): g for g in book.latest()} if book else {}
        tasks, by_key = [], {}
        regraded: dict[tuple[str, str], int] = {}  # graded in this run: the grading's id
        fresh: set[int] = set()
        for key, item in enumerate(prepared):
            identity = (item.submission.student, item.exercise.id)
            if (not options.regrade and book is not None
                    and book.reusable(item.fingerprint) is not None):
                summary.reused += 1
            elif (previewed_id := preview.reusable(item.fingerprint)
                  if preview is not None else None) is not None:
                grading_id = previewed_id
                if not dry_run:  # graded by the dry run: the gradebook takes that grading
                    grading_id = _copy(preview, grading_id, target)
                    fresh.add(grading_id)
                summary.graded += 1
                summary.from_preview += 1
                regraded[identity] = grading_id
            else:
                # Who handed it in is as the batch's door names them, never a line of the file.
                tasks.append(Task(key, item.path, item.exercise,
                                  {**options.grading_options,
                                   "submitter": item.submission.submitter}))
                by_key[key] = item
        progress = Progress(len(tasks), enabled=options.progress)

        def finished(outcome: Outcome) -> None:
            item = by_key[outcome.key]
            try:
                grading_id = target.record(_row(item, outcome), outcome.summary,
                                           outcome.report_json)
            except Exception as error:  # noqa: BLE001 - one student's row, never the batch
                failed = Outcome(outcome.key, error=bounded_text(
                    f"the grading could not be stored: {type(error).__name__}: {error}", 500),
                    seconds=outcome.seconds)
                grading_id = target.record(_row(item, failed))
            fresh.add(grading_id)
            regraded[(item.submission.student, item.exercise.id)] = grading_id
            summary.graded += 1
            progress.advance(failed=outcome.outcome == "grader-error", student=item.submission.student)

        progress.draw(force=True)
        summary.interrupted = run_tasks(tasks, options.jobs or os.cpu_count() or 1, finished,
                                        on_tick=target.commit_if_due)
        target.commit()
        progress.phase("working out what changed" if dry_run
                       else "writing grades.csv, the reports and the class report")
        summary.not_graded = len(tasks) - (summary.graded - summary.from_preview)
        wanted = {(p.submission.student, p.exercise.id): p for p in prepared}
        latest = {(g.student, g.exercise): g for g in (book.latest() if book else [])}
        if dry_run:
            previewed = {g.id: g for g in target.history()}
            latest.update({key: previewed[grading_id] for key, grading_id in regraded.items()})
        gradings = [latest[key] for key in sorted(latest) if key in wanted]
        _collect_problems(gradings, summary)
        history = _history(book, [latest[key] for key in regraded] if dry_run else [])
        exports, impact = _exports(gradings, wanted, before, book, history, set(regraded),
                                   policy, options.regrade, dry_run)
        summary.impact = None if first_run else impact
        summary.policy, summary.dry_run = policy, dry_run
        try:
            if dry_run:
                if impact.changes and not first_run:
                    write_text(out / DRY_RUN_CSV, impact.csv(), summary.written)
                return summary
            assert book is not None
            book.set_unusable((u.entry, u.student, u.reason) for u in summary.unusable)
            if policy.recorded != policy.name:
                book.set_meta(POLICY_KEY, policy.name)
            book.set_exported(exports.gradings)
            if first_run or not impact.changes:  # the last regrade's files stay as they were
                exports.changes = None
            else:
                exports.regrade_csv = impact.csv()
            if policy.switched:  # every report's note on a kept grade may have changed
                fresh.update(g.id for g in gradings)
            leads = options.similarity(Path(submissions), out) if options.similarity else None
            summary.written = write_outputs(out, book, gradings, options.output, fresh,
                                            {p.exercise.id: p.exercise for p in prepared}, leads,
                                            exports)
            if not summary.interrupted:
                _forget_preview(out, books, preview)
        finally:
            progress.finish()
            summary.unusable.sort(key=lambda u: (u.entry, u.student))
            summary.seconds = time.monotonic() - started
    return summary


def _main_book(out: Path, options: BatchOptions, books: ExitStack) -> Gradebook | None:
    """The gradebook, opened to be written; in a dry run only read, and None if absent."""
    path = out / GRADEBOOK
    if not options.dry_run:
        return books.enter_context(Gradebook(path, commit_every=options.commit_every,
                                             commit_seconds=options.commit_seconds))
    if not path.exists():
        return None
    book = books.enter_context(Gradebook(path, read_only=True))
    if book.meta("schema_version") != str(SCHEMA_VERSION):
        raise GradebookError(f"{path} was written by an older grader: run once without "
                             "--dry-run to bring it up to date")
    return book


def _copy(source: Gradebook, grading_id: int, target: Gradebook) -> int:
    """Record in ``target`` the grading ``grading_id`` of ``source``; return its new id."""
    full = source.db.execute("SELECT * FROM gradings WHERE id = ?", (grading_id,)).fetchone()
    values = {column: full[column] for column in GRADING_COLUMNS}
    values["report"] = None
    return target.record(values, report_json=full["report"] or None)


def _forget_preview(out: Path, books: ExitStack, preview: Gradebook | None) -> None:
    """A real run has taken what the dry run graded: its gradebook and CSV go."""
    if preview is not None:
        preview.close()
    for name in (PREVIEW, PREVIEW + "-wal", PREVIEW + "-shm", DRY_RUN_CSV):
        (out / name).unlink(missing_ok=True)


def _history(book: Gradebook | None, extra: Sequence[Grading]) -> dict[tuple[str, str], list[Grading]]:
    """Every grading of each student and exercise, oldest first; ``extra`` after them."""
    grouped: dict[tuple[str, str], list[Grading]] = {}
    for grading in [*(book.history() if book else []), *extra]:
        grouped.setdefault((grading.student, grading.exercise), []).append(grading)
    return grouped


def _exports(gradings: Sequence[Grading], wanted: Mapping[tuple[str, str], "_Prepared"],
             before_latest: Mapping[tuple[str, str], Grading], book: Gradebook | None,
             history: Mapping[tuple[str, str], list[Grading]], regraded: set[tuple[str, str]],
             policy: Policy, forced: bool, dry_run: bool) -> tuple[Exports, Impact]:
    """What the exports take under ``policy`` and how that differs from what they held."""
    exported_ids = book.exported() if book else {}
    by_id = {g.id: g for rows in history.values() for g in rows if g.book is book}
    chosen, notes = [], {}
    impact = Impact(policy, dry_run=dry_run)
    for after in gradings:
        key = (after.student, after.exercise)
        before = by_id.get(exported_ids[key]) if key in exported_ids else None
        before = before or before_latest.get(key)
        choice = choose(policy.name, after, before, history.get(key, [after]))
        chosen.append(choice.grading)
        if choice.note:
            notes[key] = choice.note
        moved = before is None or not same_grading(choice.grading, before)
        if key in regraded or moved:
            why = (why_regraded(before_latest.get(key), wanted[key].fingerprint, forced)
                   if key in regraded else ["policy"])
            impact.changes.append(Change(after.student, after.exercise, before, after, choice,
                                         why, key in regraded))
    return Exports(chosen, notes, impact.section()), impact


def accepts(exercise: Exercise | None) -> Accepts:
    """The files that are submissions: those of ``exercise``'s kind of submission; without an
    exercise (each file names its own), Python files and notebooks, and the suffixes of the
    other kinds are told to need ``--exercise``."""
    if exercise is None:
        code = Accepts()
        others = {suffix for family in families() if family.submission is not None
                  for suffix in family.submission.suffixes} - set(code.suffixes)
        return Accepts(need_exercise=tuple(sorted(others)))
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
