"""Grading policies: which of a student's gradings the exports (grades.csv, Canvas) take.

- ``latest`` (the default): the latest grading, whatever it gives.
- ``no-decrease``: the latest grading, unless it gives fewer points than the grade already
  exported (or failed outright): then the exported grading stays. Whatever changed (the
  student's file, the spec, the grader or the settings), an exported grade never goes down.
- ``keep-best``: the best of the student's submissions (files), each counted at its latest
  grading: a new, worse file does not lower the grade, but a re-grade of the same file (a
  spec, grader or settings change) does. A file no longer handed in cannot be graded again,
  so it keeps the points of its last grading.

The policy is recorded in the gradebook (``meta``'s ``policy``) by the first run that writes
the exports; a later run without ``--policy`` follows the recorded one, so a class never
switches policy because an option was left off.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from grader.batch.gradebook import Gradebook, Grading
from grader.report.summary import points

POLICIES = ("latest", "keep-best", "no-decrease")
DEFAULT_POLICY = "latest"
META_KEY = "policy"


class PolicyError(ValueError):
    """A policy name that is not one of :data:`POLICIES`."""


@dataclass(frozen=True)
class Policy:
    """The policy a run follows and the one the gradebook recorded before it (None: none)."""

    name: str
    recorded: str | None

    @property
    def switched(self) -> bool:
        return self.recorded is not None and self.recorded != self.name

    def line(self, dry_run: bool = False) -> str:
        if self.switched:
            verb = "would switch" if dry_run else "switched"
            return (f"policy: {self.name} ({verb} from {self.recorded}, the policy this "
                    "gradebook's exports followed until now)")
        if self.recorded is None:
            return f"policy: {self.name}" + ("" if dry_run else " (recorded in the gradebook: "
                                             "later runs follow it unless given --policy)")
        return f"policy: {self.name} (as recorded in the gradebook)"


def resolve_policy(book: Gradebook | None, asked: str | None) -> Policy:
    """The policy asked for, else the recorded one, else :data:`DEFAULT_POLICY`."""
    if asked is not None and asked not in POLICIES:
        raise PolicyError(f"no policy {asked!r}; the policies are {', '.join(POLICIES)}")
    recorded = book.meta(META_KEY) if book is not None else None
    return Policy(asked or recorded or DEFAULT_POLICY, recorded)


@dataclass(frozen=True)
class Choice:
    """The grading a student's exported grade is taken from, and why it is not the latest
    (empty when it is)."""

    grading: Grading
    note: str = ""


def choose(policy: str, latest: Grading, before: Grading | None,
           history: Sequence[Grading]) -> Choice:
    """The grading the exports take under ``policy``: ``latest`` is the student's newest
    grading, ``before`` the one the exports took until now, ``history`` every grading of this
    student and exercise, oldest first (``latest`` among them)."""
    if policy == "no-decrease":
        kept = _usable(before) and not same_grading(before, latest) and (
            not _usable(latest) or latest.score < before.score)
        return Choice(before, _kept_note(policy, before, latest)) if kept else Choice(latest)
    if policy == "keep-best":
        best = _best_submission(history) or latest
        if not same_grading(best, latest) and (not _usable(latest) or best.score > latest.score):
            return Choice(best, _kept_note(policy, best, latest))
        return Choice(latest)
    return Choice(latest)


def same_grading(first: Grading, second: Grading) -> bool:
    """The same row of the same gradebook (a dry run's gradings are in a gradebook of their
    own, whose ids may repeat the class gradebook's)."""
    return first.id == second.id and first.book is second.book


def _usable(grading: Grading | None) -> bool:
    return grading is not None and grading.outcome != "grader-error"


def _best_submission(history: Iterable[Grading]) -> Grading | None:
    """The highest-scoring of the submissions' latest gradings (the most recent on a tie)."""
    by_file: dict[str, tuple[int, Grading]] = {}
    for order, grading in enumerate(history):
        if _usable(grading):
            by_file[grading.submission_sha256] = (order, grading)  # the last one stays
    ranked = sorted(by_file.values(), key=lambda pair: (pair[1].score, pair[0]))
    return ranked[-1][1] if ranked else None


def _kept_note(policy: str, kept: Grading, latest: Grading) -> str:
    new = ("the new grading failed (a grader error)" if not _usable(latest)
           else f"the new grading gives {points(latest.score)}")
    if policy == "no-decrease":
        return (f"kept {points(kept.score)} from the grading of {kept.graded_at} "
                f"(no-decrease): {new}")
    earlier = ("an earlier file" if kept.submission_sha256 != latest.submission_sha256
               else "this file's earlier grading")
    return (f"kept {points(kept.score)}, the best of the files handed in ({earlier}, graded "
            f"{kept.graded_at}; keep-best): {new}")
