"""The gradebook: an sqlite file with one row per grading, written as gradings finish.

Tables (``sqlite3 OUT/gradebook.sqlite .schema`` shows them):

- ``gradings``: one row per grading: ``student``, ``name``, ``email``, ``exercise``,
  ``entry`` (the submission as found), ``submission_sha256`` (of the graded source),
  ``spec_sha256``, ``grader_version``, ``settings_sha256``, ``outcome`` (``graded``,
  ``not-gradable``: the file did not load, ``grader-error``: grading itself failed),
  ``score``, ``max_score``, ``report`` (the JSON report, ``GradeReport.to_json``, with
  each visible check's step view under ``steps``: :mod:`~grader.batch.stored`),
  ``student_output``, ``error``, ``seconds``, ``graded_at`` (UTC, ISO 8601), ``title`` (the
  report's), ``gradable`` and ``not_gradable`` (why not; for a gradable one, what its report
  notes about the file, such as a classmate's file graded under the submitter's name);
- ``milestone_scores``: ``grading_id``, ``position``, ``milestone``, ``score``, ``max_score``,
  ``title``;
- ``mistakes``: ``grading_id``, ``mistake`` (a diagnosis id), ``milestone``, ``check_id``,
  ``title``, in the report's order;
- ``checks``, ``timings``, ``problems``: each check's outcome, the timed runs, the crashes
  and time-outs (:mod:`~grader.batch.summaries`), which the class report counts;
- ``unusable``: what the last run found but could not grade (``entry``, ``student``,
  ``reason``);
- ``exported``: the grading each student's exported grade (grades.csv, Canvas) was last
  taken from, per exercise: the latest one, or an earlier one that the grading policy kept
  (:mod:`~grader.batch.policy`; the policy itself is ``meta``'s ``policy``);
- the view ``latest``: each student's most recent grading per exercise.

Older gradings stay (the history of re-grades); a student's current grade is the latest row.
A row is reused instead of re-grading while its four fingerprints are unchanged
(:meth:`Gradebook.reusable`). The file is in WAL mode and gradings are committed together,
every ``commit_every`` gradings or ``commit_seconds`` seconds and when the gradebook is
closed, so a batch killed outright loses at most the gradings since the last commit and
grades them again next time. A gradebook of schema 1 is brought up to date when opened.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from grader.batch.summaries import Summary, summarize

SCHEMA_VERSION = 2

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS gradings (
    id INTEGER PRIMARY KEY,
    student TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    email TEXT NOT NULL DEFAULT '',
    exercise TEXT NOT NULL,
    entry TEXT NOT NULL,
    submission_sha256 TEXT NOT NULL,
    spec_sha256 TEXT NOT NULL,
    grader_version TEXT NOT NULL,
    settings_sha256 TEXT NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('graded', 'not-gradable', 'grader-error')),
    score REAL NOT NULL,
    max_score REAL NOT NULL,
    report TEXT,
    student_output TEXT NOT NULL DEFAULT '',
    error TEXT NOT NULL DEFAULT '',
    seconds REAL,
    graded_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS gradings_student ON gradings (student, exercise, id);
CREATE TABLE IF NOT EXISTS milestone_scores (
    grading_id INTEGER NOT NULL REFERENCES gradings (id),
    position INTEGER NOT NULL,
    milestone TEXT NOT NULL,
    score REAL NOT NULL,
    max_score REAL NOT NULL,
    PRIMARY KEY (grading_id, milestone)
);
CREATE TABLE IF NOT EXISTS mistakes (
    grading_id INTEGER NOT NULL REFERENCES gradings (id),
    mistake TEXT NOT NULL,
    milestone TEXT NOT NULL,
    check_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS unusable (
    entry TEXT NOT NULL,
    student TEXT NOT NULL DEFAULT '',
    reason TEXT NOT NULL,
    PRIMARY KEY (entry, student)
);
CREATE TABLE IF NOT EXISTS exported (
    student TEXT NOT NULL,
    exercise TEXT NOT NULL,
    grading_id INTEGER NOT NULL REFERENCES gradings (id),
    PRIMARY KEY (student, exercise)
);
CREATE VIEW IF NOT EXISTS latest AS
    SELECT g.* FROM gradings g
    WHERE g.id = (SELECT MAX(h.id) FROM gradings h
                  WHERE h.student = g.student AND h.exercise = g.exercise);
"""

# Schema 2: the summary columns and tables the class report is counted from.
SUMMARY_SCHEMA = """
ALTER TABLE gradings ADD COLUMN title TEXT NOT NULL DEFAULT '';
ALTER TABLE gradings ADD COLUMN gradable INTEGER NOT NULL DEFAULT 1;
ALTER TABLE gradings ADD COLUMN not_gradable TEXT NOT NULL DEFAULT '';
ALTER TABLE milestone_scores ADD COLUMN title TEXT NOT NULL DEFAULT '';
ALTER TABLE mistakes ADD COLUMN title TEXT NOT NULL DEFAULT '';
CREATE INDEX mistakes_grading ON mistakes (grading_id);
CREATE TABLE checks (
    grading_id INTEGER NOT NULL REFERENCES gradings (id),
    position INTEGER NOT NULL,
    key TEXT NOT NULL,
    title TEXT NOT NULL,
    hidden INTEGER NOT NULL,
    passed INTEGER NOT NULL,
    counted INTEGER NOT NULL,
    PRIMARY KEY (grading_id, position)
);
CREATE TABLE timings (
    grading_id INTEGER NOT NULL REFERENCES gradings (id),
    position INTEGER NOT NULL,
    ratio, limit_ratio, passed INTEGER NOT NULL, score, max_score,
    PRIMARY KEY (grading_id, position)
);
CREATE TABLE problems (
    grading_id INTEGER NOT NULL REFERENCES gradings (id),
    position INTEGER NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL,
    PRIMARY KEY (grading_id, position)
);
"""

GRADING_COLUMNS = (
    "student", "name", "email", "exercise", "entry", "submission_sha256", "spec_sha256",
    "grader_version", "settings_sha256", "outcome", "score", "max_score", "report",
    "student_output", "error", "seconds", "graded_at",
)
SUMMARY_COLUMNS = ("title", "gradable", "not_gradable")
# What a Grading holds: every column but the report and the student's output, which are
# read one grading at a time when a report is rendered.
LIGHT_COLUMNS = ("id",) + tuple(c for c in GRADING_COLUMNS if c not in ("report", "student_output")
                                ) + SUMMARY_COLUMNS

COMMIT_EVERY = 10
COMMIT_SECONDS = 2.0


class GradebookError(Exception):
    """The gradebook file cannot be used; the message says why."""


@dataclass(frozen=True)
class Fingerprint:
    """What a grading depends on; equal fingerprints mean the grading can be reused."""

    student: str
    exercise: str
    submission_sha256: str
    spec_sha256: str
    grader_version: str
    settings_sha256: str


@dataclass
class Grading:
    """One row of ``gradings``: its columns, milestone scores, and its report and printed
    output (read from the open gradebook when asked for, one grading at a time)."""

    id: int
    student: str
    name: str
    email: str
    exercise: str
    entry: str
    submission_sha256: str
    spec_sha256: str
    grader_version: str
    settings_sha256: str
    outcome: str
    score: float
    max_score: float
    error: str
    seconds: float | None
    graded_at: str
    title: str = ""
    gradable: bool = True
    not_gradable: str = ""
    milestone_scores: list[tuple[str, float, float]] = field(default_factory=list)
    has_report: bool = False
    book: "Gradebook | None" = field(default=None, repr=False, compare=False)
    held: tuple[dict[str, Any] | None, str] | None = field(default=None, repr=False,
                                                           compare=False)

    @classmethod
    def in_memory(cls, report: dict[str, Any] | None, student_output: str = "",
                  **columns: Any) -> "Grading":
        """A grading held in memory rather than read from a gradebook."""
        summary = summarize(report)
        columns.setdefault("title", summary.title)
        columns.setdefault("gradable", summary.gradable)
        columns.setdefault("not_gradable", summary.not_gradable)
        columns.setdefault("milestone_scores", [(m[1], m[3], m[4]) for m in summary.milestones])
        return cls(**columns, has_report=report is not None, held=(report, student_output))

    def stored(self) -> tuple[dict[str, Any] | None, str]:
        """(the report, or None when grading failed; what the student printed)."""
        if self.held is not None:
            return self.held
        if self.book is None:
            return None, ""
        return self.book.stored(self.id)

    @property
    def report(self) -> dict[str, Any] | None:
        return self.stored()[0] if self.has_report else None

    @property
    def student_output(self) -> str:
        if self.held is not None or self.book is None:
            return self.stored()[1]
        return self.book.stored(self.id, report=False)[1]


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Gradebook:
    """An open gradebook file; use as a context manager. Gradings are committed every
    ``commit_every`` gradings, ``commit_seconds`` seconds (:meth:`commit_if_due`) and on
    :meth:`close`."""

    def __init__(self, path: Path, *, commit_every: int = COMMIT_EVERY,
                 commit_seconds: float = COMMIT_SECONDS, read_only: bool = False) -> None:
        """``read_only``: only its gradings and unusable entries are read (a merge's
        sources), from a file of either schema, which is left as it is."""
        self.path = Path(path)
        self.commit_every = max(1, commit_every)
        self.commit_seconds = commit_seconds
        self.pending = 0
        self.closed = False
        self._since: float | None = None
        try:
            self.db = sqlite3.connect(str(self.path), isolation_level=None)
        except sqlite3.DatabaseError as error:
            raise GradebookError(f"{self.path} is not a usable gradebook: {error}") from None
        self.db.row_factory = sqlite3.Row
        try:
            if read_only:
                self.db.execute("PRAGMA query_only = ON")
                self._check_readable()
            else:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
                self._open_schema()
        except sqlite3.DatabaseError as error:
            self.db.close()
            raise GradebookError(f"{self.path} is not a usable gradebook: {error}") from None
        except BaseException:
            self.db.close()
            raise

    def _check_readable(self) -> None:
        row = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None or row[0] not in ("1", str(SCHEMA_VERSION)):
            version = row[0] if row else "unknown"
            raise GradebookError(f"{self.path} has gradebook schema {version}; this grader "
                                 f"reads schema {SCHEMA_VERSION}")

    def _open_schema(self) -> None:
        new = self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'gradings'").fetchone() is None
        self.db.executescript(SCHEMA)
        row = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        version = SCHEMA_VERSION if new or row is None else row[0]
        if str(version) not in ("1", str(SCHEMA_VERSION)):
            raise GradebookError(f"{self.path} has gradebook schema {version}; this grader "
                                 f"reads schema {SCHEMA_VERSION}: grade into a new folder")
        if row is not None and row[0] == str(SCHEMA_VERSION):
            return
        try:
            self.db.executescript("BEGIN IMMEDIATE;" + SUMMARY_SCHEMA)
            if not new and str(version) == "1":
                self._summarize_every_row()
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)",
                            (str(SCHEMA_VERSION),))
            self.db.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise

    def _summarize_every_row(self) -> None:
        """Schema 1 had no summaries: fill them in from every stored report, once."""
        self.db.execute("DELETE FROM milestone_scores")
        self.db.execute("DELETE FROM mistakes")
        ids = [row[0] for row in self.db.execute("SELECT id FROM gradings ORDER BY id")]
        for grading_id in ids:  # one report in memory at a time
            data, _ = self.stored(grading_id)
            self._insert_summary(grading_id, summarize(data), update=True)

    def __enter__(self) -> "Gradebook":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Commit what is pending and close the file (once: closing again does nothing)."""
        if self.closed:
            return
        self.closed = True
        try:
            self.commit()
        finally:
            self.db.close()

    # ----------------------------------------------------------------------- writing

    def record(self, values: dict[str, Any], summary: Summary | None = None,
               report_json: str | None = None) -> int:
        """Insert one grading (``values`` keyed by :data:`GRADING_COLUMNS`, ``report`` as a
        mapping, or already encoded as ``report_json``) with its summary (made from the report
        unless given); committed with the next batch of gradings. A grading whose insert fails
        leaves nothing behind."""
        row = dict(values)
        report = row.get("report")
        if report_json is None:
            report_json = json.dumps(report, ensure_ascii=False) if report is not None else None
        row["report"] = report_json
        row.setdefault("graded_at", now())
        if summary is None:
            summary = summarize(report if report is not None or report_json is None
                                else json.loads(report_json))
        columns = ", ".join(GRADING_COLUMNS + SUMMARY_COLUMNS)
        marks = ", ".join("?" for _ in GRADING_COLUMNS + SUMMARY_COLUMNS)
        self._begin()
        self.db.execute("SAVEPOINT grading")
        try:
            cursor = self.db.execute(
                f"INSERT INTO gradings ({columns}) VALUES ({marks})",
                [row.get(column, "") for column in GRADING_COLUMNS]
                + [summary.title, int(summary.gradable), summary.not_gradable])
            grading_id = int(cursor.lastrowid)
            self._insert_summary(grading_id, summary)
        except BaseException:
            self.db.execute("ROLLBACK TO grading")
            self.db.execute("RELEASE grading")
            raise
        self.db.execute("RELEASE grading")
        self.pending += 1
        if self.pending >= self.commit_every:
            self.commit()
        else:
            self.commit_if_due()
        return grading_id

    def _insert_summary(self, grading_id: int, summary: Summary, update: bool = False) -> None:
        db = self.db
        db.executemany("INSERT INTO milestone_scores (grading_id, position, milestone, score, "
                       "max_score, title) VALUES (?, ?, ?, ?, ?, ?)",
                       [(grading_id, p, i, s, m, t) for p, i, t, s, m in summary.milestones])
        db.executemany("INSERT INTO mistakes (grading_id, mistake, title, milestone, check_id) "
                       "VALUES (?, ?, ?, ?, ?)", [(grading_id, *row) for row in summary.mistakes])
        db.executemany("INSERT INTO checks VALUES (?, ?, ?, ?, ?, ?, ?)",
                       [(grading_id, p, k, t, int(h), int(ok), int(c))
                        for p, k, t, h, ok, c in summary.checks])
        db.executemany("INSERT INTO timings VALUES (?, ?, ?, ?, ?, ?, ?)",
                       [(grading_id, p, r, lim, int(ok), s, m)
                        for p, r, lim, ok, s, m in summary.timings])
        db.executemany("INSERT INTO problems VALUES (?, ?, ?, ?)",
                       [(grading_id, *row) for row in summary.problems])
        if update:
            db.execute("UPDATE gradings SET title = ?, gradable = ?, not_gradable = ? "
                       "WHERE id = ?", (summary.title, int(summary.gradable),
                                        summary.not_gradable, grading_id))

    def _begin(self) -> None:
        if not self.db.in_transaction:
            self.db.execute("BEGIN")
            self._since = time.monotonic()

    def commit(self) -> None:
        """Commit every grading recorded so far."""
        if self.db.in_transaction:
            self.db.execute("COMMIT")
        self.pending = 0
        self._since = None

    def commit_if_due(self) -> None:
        """Commit when the oldest uncommitted grading is ``commit_seconds`` old."""
        if self._since is not None and time.monotonic() - self._since >= self.commit_seconds:
            self.commit()

    def set_unusable(self, entries: Iterable[tuple[str, str, str]], *, replace: bool = True) -> None:
        """Record ``(entry, student, reason)`` triples; ``replace`` forgets earlier ones."""
        self._begin()
        if replace:
            self.db.execute("DELETE FROM unusable")
        self.db.executemany("INSERT OR REPLACE INTO unusable VALUES (?, ?, ?)", list(entries))
        self.commit()

    # ----------------------------------------------------------------------- reading

    def reusable(self, fingerprint: Fingerprint) -> int | None:
        """The id of the student's latest grading of this exercise when it has exactly this
        fingerprint, unless grading itself failed. An earlier grading of the same file is not
        reused: a student who hands in an earlier file again is graded again, so the latest
        grading is always of the file handed in."""
        row = self.db.execute(
            "SELECT id, outcome, submission_sha256, spec_sha256, grader_version, settings_sha256"
            " FROM gradings WHERE student = ? AND exercise = ? ORDER BY id DESC LIMIT 1",
            (fingerprint.student, fingerprint.exercise),
        ).fetchone()
        if row is None or row["outcome"] == "grader-error":
            return None
        if (row["submission_sha256"], row["spec_sha256"], row["grader_version"],
                row["settings_sha256"]) != (fingerprint.submission_sha256, fingerprint.spec_sha256,
                                            fingerprint.grader_version, fingerprint.settings_sha256):
            return None
        return int(row["id"])

    def latest(self) -> list[Grading]:
        """Each student's latest grading per exercise, by student then exercise; the reports
        stay in the file until one is asked for."""
        return self._light("latest", "ORDER BY student, exercise")

    def history(self) -> list[Grading]:
        """Every grading, oldest first (light, as :meth:`latest` gives them)."""
        return self._light("gradings", "ORDER BY id")

    def _light(self, table: str, order: str) -> list[Grading]:
        columns = ", ".join(LIGHT_COLUMNS)
        rows = self.db.execute(f"SELECT {columns}, report IS NOT NULL AS has_report FROM {table} "
                               + order).fetchall()
        scores: dict[int, list[tuple[str, float, float]]] = {}
        for grading_id, milestone, score, max_score in self.db.execute(
                "SELECT s.grading_id, s.milestone, s.score, s.max_score FROM milestone_scores s"
                f" JOIN {table} l ON l.id = s.grading_id ORDER BY s.grading_id, s.position"):
            scores.setdefault(grading_id, []).append((milestone, score, max_score))
        gradings = []
        for row in rows:
            values = dict(row)
            values["gradable"] = bool(values["gradable"])
            values["has_report"] = bool(values["has_report"])
            gradings.append(Grading(**values, milestone_scores=scores.get(row["id"], []),
                                    book=self))
        return gradings

    def exported(self) -> dict[tuple[str, str], int]:
        """(student, exercise) -> the id of the grading its exported grade was last taken
        from; empty for a gradebook written before exports were recorded."""
        if not self._has_table("exported"):
            return {}
        return {(student, exercise): grading_id for student, exercise, grading_id
                in self.db.execute("SELECT student, exercise, grading_id FROM exported")}

    def set_exported(self, chosen: Iterable[Grading]) -> None:
        """Record the gradings the exports were just written from."""
        self._begin()
        self.db.executemany("INSERT OR REPLACE INTO exported VALUES (?, ?, ?)",
                            [(g.student, g.exercise, g.id) for g in chosen])
        self.commit()

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self._begin()
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
        self.commit()

    def _has_table(self, name: str) -> bool:
        return self.db.execute("SELECT 1 FROM sqlite_master WHERE name = ?",
                               (name,)).fetchone() is not None

    def stored(self, grading_id: int, report: bool = True) -> tuple[dict[str, Any] | None, str]:
        """The decoded report (None when grading failed, or not asked for) and printed output
        of one grading."""
        try:
            row = self.db.execute(f"SELECT {'report' if report else 'NULL'}, student_output "
                                  "FROM gradings WHERE id = ?", (grading_id,)).fetchone()
        except sqlite3.ProgrammingError:
            raise GradebookError(f"{self.path} is closed: read reports while it is open"
                                 ) from None
        if row is None:
            return None, ""
        return (json.loads(row[0]) if row[0] else None), row[1]

    def choose(self, gradings: Sequence[Grading]) -> None:
        """Make ``gradings``, in this order, the temporary table ``chosen`` (``id``, ``ord``)
        the class statistics are counted over."""
        self.db.execute("CREATE TEMP TABLE IF NOT EXISTS chosen "
                        "(id INTEGER PRIMARY KEY, ord INTEGER NOT NULL)")
        self._begin()
        self.db.execute("DELETE FROM chosen")
        self.db.executemany("INSERT INTO chosen VALUES (?, ?)",
                            [(g.id, order) for order, g in enumerate(gradings)])
        self.commit()

    def all_rows(self) -> Iterator[sqlite3.Row]:
        yield from self.db.execute("SELECT * FROM gradings ORDER BY id")

    def unusable(self) -> list[tuple[str, str, str]]:
        rows = self.db.execute("SELECT entry, student, reason FROM unusable ORDER BY entry, student")
        return [tuple(row) for row in rows]

    def count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM gradings").fetchone()[0])
