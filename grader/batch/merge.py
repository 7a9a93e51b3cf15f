"""``grade batch merge``: combine the gradebooks of several machines' shards into one folder.

Every grading row of every source is copied (rows already present, same student, exercise,
fingerprints and time, are not copied twice), in the order they were graded, so each
student's latest grading stays the latest. The unusable entries are united. The outputs are
then written exactly as ``grade batch`` writes them. A student graded in more than one source
with different results is reported: the later grading wins. The exports follow the grading
policy the sources recorded (they must agree), each student's exported grade taken as its
shard chose it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from grader.batch.fingerprints import spec_hash
from grader.batch.gradebook import GRADING_COLUMNS, Gradebook, GradebookError, Grading
from grader.batch.outputs import Exports, OutputSettings, Written, write_outputs
from grader.batch.policy import META_KEY, choose
from grader.spec import Exercise, SpecError, load_exercise

GRADEBOOK = "gradebook.sqlite"
IDENTITY = ("student", "exercise", "submission_sha256", "spec_sha256", "grader_version",
            "settings_sha256", "graded_at")


@dataclass
class MergeSummary:
    sources: int = 0
    copied: int = 0
    students: int = 0
    conflicts: list[str] = field(default_factory=list)
    written: Written = field(default_factory=Written)

    def lines(self) -> list[str]:
        lines = [f"merged {self.sources} gradebook(s): {self.copied} grading(s) copied, "
                 f"{self.students} student(s)"]
        lines += [f"conflict: {conflict}" for conflict in self.conflicts]
        lines += [f"wrote {path}" for path in self.written.files]
        return lines


def gradebook_path(source: Path) -> Path:
    """``source`` itself when it is a file, else ``source/gradebook.sqlite``."""
    path = source if source.is_file() else source / GRADEBOOK
    if not path.is_file():
        raise GradebookError(f"{source}: no {GRADEBOOK} there; give the output folders of "
                             "'grade batch' (or their gradebook files)")
    return path


def merge(sources: Sequence[Path], out: Path, settings: OutputSettings | None = None
          ) -> MergeSummary:
    paths = [gradebook_path(Path(source)) for source in sources]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    target_path = (out / GRADEBOOK).resolve()
    if any(path.resolve() == target_path for path in paths):
        raise GradebookError(f"{out} is one of the sources; merge into a new folder")
    summary = MergeSummary(sources=len(paths))
    books: list[Gradebook] = []
    try:
        books += [Gradebook(path, read_only=True) for path in paths]
        policy = _sources_policy(books)
        # Every row's identity and score first; each row in full only as it is copied.
        rows, unusable = [], set()
        for number, book in enumerate(books):
            rows.extend((dict(row), number) for row in book.db.execute(
                f"SELECT id, score, {', '.join(IDENTITY)} FROM gradings"))
            unusable.update(book.unusable())
        rows.sort(key=lambda item: (item[0]["graded_at"], str(paths[item[1]]), item[0]["id"]))
        with Gradebook(out / GRADEBOOK) as target:
            present = {tuple(row) for row in target.db.execute(
                f"SELECT {', '.join(IDENTITY)} FROM gradings")}
            fresh = set()
            for row, number in rows:
                identity = tuple(row[c] for c in IDENTITY)
                if identity in present:
                    continue
                present.add(identity)
                full = books[number].db.execute("SELECT * FROM gradings WHERE id = ?",
                                                (row["id"],)).fetchone()
                values = {column: full[column] for column in GRADING_COLUMNS}
                values["report"] = None
                fresh.add(target.record(values, report_json=full["report"] or None))
                summary.copied += 1
            target.set_unusable(sorted(unusable))
            summary.conflicts = _conflicts([(row, paths[number]) for row, number in rows])
            gradings = target.latest()
            summary.students = len({g.student for g in gradings})
            exports = _policy_exports(policy, books, target, gradings)
            target.commit()
            summary.written = write_outputs(out, target, gradings,
                                            settings or OutputSettings(), fresh,
                                            unchanged_exercises(gradings), exports=exports)
    finally:
        for book in books:
            book.close()
    return summary


def _sources_policy(books: Sequence[Gradebook]) -> str | None:
    """The grading policy the sources recorded (None: none did); sources that disagree are
    refused before anything is copied."""
    policies = {book.meta(META_KEY) for book in books} - {None}
    if len(policies) > 1:
        raise GradebookError("the sources' exports follow different grading policies ("
                             + ", ".join(sorted(str(p) for p in policies))
                             + "): grade every shard with the same --policy")
    return str(policies.pop()) if policies else None


def _policy_exports(policy: str | None, books: Sequence[Gradebook], target: Gradebook,
                    gradings: Sequence[Grading]) -> Exports | None:
    """What the exports take under the sources' ``policy``, each student's grade as its shard
    exported it, recorded in ``target`` (None: no policy recorded, the latest gradings)."""
    if policy is None:
        return None
    target.set_meta(META_KEY, policy)
    ids = {tuple(row[1:]): row[0] for row in target.db.execute(
        f"SELECT id, {', '.join(IDENTITY)} FROM gradings")}
    exported: dict[tuple[str, str], int] = {}
    for book in books:
        if book.exported():
            for row in book.db.execute(f"SELECT {', '.join('g.' + c for c in IDENTITY)} FROM "
                                       "exported e JOIN gradings g ON g.id = e.grading_id"):
                if tuple(row) in ids:
                    exported[(row[0], row[1])] = ids[tuple(row)]
    history: dict[tuple[str, str], list[Grading]] = {}
    for grading in target.history():
        history.setdefault((grading.student, grading.exercise), []).append(grading)
    by_id = {g.id: g for rows in history.values() for g in rows}
    chosen, notes = [], {}
    for latest in gradings:
        key = (latest.student, latest.exercise)
        before = by_id.get(exported.get(key, -1))
        choice = choose(policy, latest, before, history.get(key, [latest]))
        chosen.append(choice.grading)
        if choice.note:
            notes[key] = choice.note
    target.set_exported(chosen)
    return Exports(chosen, notes)


def unchanged_exercises(gradings: Sequence[Grading]) -> dict[str, Exercise]:
    """The specs the gradings were made with, where the search path still holds them as they
    were (the class report then names hidden checks by their case ids); others are left out."""
    found: dict[str, Exercise] = {}
    for exercise_id in sorted({grading.exercise for grading in gradings}):
        try:
            exercise = load_exercise(exercise_id)
        except (SpecError, OSError, ValueError):
            continue
        digest = spec_hash(exercise)
        if all(g.spec_sha256 == digest for g in gradings if g.exercise == exercise_id):
            found[exercise_id] = exercise
    return found


def _conflicts(rows: list[tuple[dict, Path]]) -> list[str]:
    """Students whose latest gradings in two sources differ in score."""
    latest: dict[tuple[str, str], dict[Path, dict]] = {}
    for row, path in rows:
        latest.setdefault((row["student"], row["exercise"]), {})[path] = row
    found = []
    for (student, exercise), by_source in sorted(latest.items()):
        scores = {(r["score"], r["submission_sha256"]) for r in by_source.values()}
        if len(scores) > 1:
            sources = ", ".join(str(p.parent) for p in by_source)
            found.append(f"{student} ({exercise}) graded differently in {sources}; "
                         "the later grading is kept")
    return found
