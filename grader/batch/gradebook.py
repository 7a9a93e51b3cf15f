"""The gradebook: an sqlite file with one row per grading, written as each grading finishes.

Tables (``sqlite3 OUT/gradebook.sqlite .schema`` shows them):

- ``gradings``: one row per grading: ``student``, ``name``, ``email``, ``exercise``,
  ``entry`` (the submission as found), ``submission_sha256`` (of the graded source),
  ``spec_sha256``, ``grader_version``, ``settings_sha256``, ``outcome`` (``graded``,
  ``not-gradable``: the file did not load, ``grader-error``: grading itself failed),
  ``score``, ``max_score``, ``report`` (the JSON report, ``GradeReport.to_json``),
  ``student_output``, ``error``, ``seconds``, ``graded_at`` (UTC, ISO 8601);
- ``milestone_scores``: ``grading_id``, ``position``, ``milestone``, ``score``, ``max_score``;
- ``mistakes``: ``grading_id``, ``mistake`` (a diagnosis id), ``milestone``, ``check_id``;
- ``unusable``: what the last run found but could not grade (``entry``, ``student``,
  ``reason``);
- the view ``latest``: each student's most recent grading per exercise.

Older gradings stay (the history of re-grades); a student's current grade is the latest row.
A row is reused instead of re-grading while its four fingerprints are unchanged
(:meth:`Gradebook.reusable`). Each grading is committed on its own, so an interrupted batch
keeps every grading it finished.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator

SCHEMA_VERSION = 1

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
CREATE VIEW IF NOT EXISTS latest AS
    SELECT g.* FROM gradings g
    WHERE g.id = (SELECT MAX(h.id) FROM gradings h
                  WHERE h.student = g.student AND h.exercise = g.exercise);
"""

GRADING_COLUMNS = (
    "student", "name", "email", "exercise", "entry", "submission_sha256", "spec_sha256",
    "grader_version", "settings_sha256", "outcome", "score", "max_score", "report",
    "student_output", "error", "seconds", "graded_at",
)


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
    """One row of ``gradings`` with its report decoded."""

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
    report: dict[str, Any] | None
    student_output: str
    error: str
    seconds: float | None
    graded_at: str

    @property
    def milestone_scores(self) -> list[tuple[str, float, float]]:
        if not self.report:
            return []
        return [(m["id"], m["score"], m["max_score"]) for m in self.report.get("milestones", [])]


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def named_mistakes(report: dict[str, Any] | None) -> list[tuple[str, str, str]]:
    """``(mistake id, milestone, check id)`` for every diagnosis on a failed check."""
    found = []
    for milestone in (report or {}).get("milestones", []):
        for check in milestone.get("checks", []):
            if check.get("passed"):
                continue
            for diagnosis in check.get("diagnoses") or []:
                found.append((diagnosis["id"], milestone["id"], check["id"]))
    return found


class Gradebook:
    """An open gradebook file; use as a context manager."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        try:
            self.db = sqlite3.connect(str(self.path))
            self.db.row_factory = sqlite3.Row
            self.db.executescript(SCHEMA)
            self._check_version()
        except sqlite3.DatabaseError as error:
            raise GradebookError(f"{self.path} is not a usable gradebook: {error}") from None

    def _check_version(self) -> None:
        row = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None:
            with self.db:
                self.db.execute("INSERT INTO meta VALUES ('schema_version', ?)",
                                (str(SCHEMA_VERSION),))
        elif row[0] != str(SCHEMA_VERSION):
            raise GradebookError(f"{self.path} has gradebook schema {row[0]}; this grader "
                                 f"reads schema {SCHEMA_VERSION}: grade into a new folder")

    def __enter__(self) -> "Gradebook":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    # ----------------------------------------------------------------------- writing

    def record(self, values: dict[str, Any]) -> int:
        """Insert one grading (``values`` keyed by :data:`GRADING_COLUMNS`, ``report`` as a
        mapping) with its milestone scores and named mistakes; committed at once."""
        row = dict(values)
        report = row.get("report")
        row["report"] = json.dumps(report, ensure_ascii=False) if report is not None else None
        row.setdefault("graded_at", now())
        columns = ", ".join(GRADING_COLUMNS)
        marks = ", ".join("?" for _ in GRADING_COLUMNS)
        with self.db:
            cursor = self.db.execute(f"INSERT INTO gradings ({columns}) VALUES ({marks})",
                                     [row.get(column, "") for column in GRADING_COLUMNS])
            grading_id = cursor.lastrowid
            for position, milestone in enumerate((report or {}).get("milestones", [])):
                self.db.execute("INSERT INTO milestone_scores VALUES (?, ?, ?, ?, ?)",
                                (grading_id, position, milestone["id"], milestone["score"],
                                 milestone["max_score"]))
            self.db.executemany("INSERT INTO mistakes VALUES (?, ?, ?, ?)",
                                [(grading_id, *found) for found in named_mistakes(report)])
        return int(grading_id)

    def set_unusable(self, entries: Iterable[tuple[str, str, str]], *, replace: bool = True) -> None:
        """Record ``(entry, student, reason)`` triples; ``replace`` forgets earlier ones."""
        with self.db:
            if replace:
                self.db.execute("DELETE FROM unusable")
            self.db.executemany("INSERT OR REPLACE INTO unusable VALUES (?, ?, ?)", list(entries))

    # ----------------------------------------------------------------------- reading

    def reusable(self, fingerprint: Fingerprint) -> Grading | None:
        """The latest grading with exactly this fingerprint, unless grading itself failed."""
        row = self.db.execute(
            "SELECT * FROM gradings WHERE student = ? AND exercise = ? AND submission_sha256 = ?"
            " AND spec_sha256 = ? AND grader_version = ? AND settings_sha256 = ?"
            " ORDER BY id DESC LIMIT 1",
            (fingerprint.student, fingerprint.exercise, fingerprint.submission_sha256,
             fingerprint.spec_sha256, fingerprint.grader_version, fingerprint.settings_sha256),
        ).fetchone()
        if row is None or row["outcome"] == "grader-error":
            return None
        return _grading(row)

    def latest(self) -> list[Grading]:
        """Each student's latest grading per exercise, by student then exercise."""
        rows = self.db.execute("SELECT * FROM latest ORDER BY student, exercise").fetchall()
        return [_grading(row) for row in rows]

    def all_rows(self) -> Iterator[sqlite3.Row]:
        yield from self.db.execute("SELECT * FROM gradings ORDER BY id")

    def unusable(self) -> list[tuple[str, str, str]]:
        rows = self.db.execute("SELECT entry, student, reason FROM unusable ORDER BY entry, student")
        return [tuple(row) for row in rows]

    def count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM gradings").fetchone()[0])


def _grading(row: sqlite3.Row) -> Grading:
    values = dict(row)
    values["report"] = json.loads(values["report"]) if values["report"] else None
    return Grading(**values)
