"""Finding every student's submission in a submissions folder, and saying why the rest are
unusable.

Three layouts are understood, detected from what the folder holds:

- **files**: one ``STUDENT.py`` or ``STUDENT.ipynb`` per student (the student id is the file
  name without its suffix);
- **folders**: one sub-folder per student (the folder name is the student id) holding one
  ``.py`` or ``.ipynb`` file, possibly further down; when it holds several, the one named
  ``student.py`` is taken if there is exactly one such file;

(those are the suffixes and name of code exercises: an exercise whose students hand in
another kind of file, an answers file say, has its own, :class:`Accepts`);
- **gradescope**: Gradescope's *Export Submissions* folder, recognised by its
  ``submission_metadata.yml``: one ``submission_NNN`` folder per submission, the students
  (id, name, e-mail) read from the metadata. A group submission counts for each submitter.
  A per-student exercise is graded on the variant of the e-mail, as the Gradescope door takes it.

Files and folders may be mixed. Names starting with ``.``, ``__MACOSX``, ``__pycache__`` and
``.ipynb_checkpoints`` are bookkeeping of other tools and are ignored; anything else that
cannot be graded (no file, several files, another kind of file, a student id seen twice, a
symbolic link: a link is never followed, as it could reach another student's file or one only
the grader's user may read) is returned as :class:`Unusable` with the reason, never dropped
silently.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from grader.spec.hooks import NoSubmitter, Submitter

METADATA_FILE = "submission_metadata.yml"
IGNORED_NAMES = {"__MACOSX", "__pycache__", ".ipynb_checkpoints"}


class DiscoveryError(ValueError):
    """The submissions argument itself is unusable (missing, not a folder, unreadable)."""


@dataclass(frozen=True)
class Accepts:
    """What a submission file of the exercise is: its suffixes, the name to prefer when a
    folder holds several, and what to call it in messages."""

    suffixes: tuple[str, ...] = (".py", ".ipynb")
    preferred: str = "student.py"
    noun: str = "a Python file or notebook"
    # Suffixes of other exercises' submissions, graded only when the batch names the exercise.
    need_exercise: tuple[str, ...] = ()

    @property
    def listed(self) -> str:
        return " or ".join(self.suffixes)

    def examples(self) -> str:
        return " or ".join(f"STUDENT{suffix}" for suffix in self.suffixes)


CODE = Accepts()


@dataclass(frozen=True)
class Submission:
    """One student's file to grade."""

    student: str
    path: Path
    entry: str  # the path as found, relative to the submissions folder
    name: str = ""
    email: str = ""
    gradescope: bool = False  # from a Gradescope export, where the e-mail or SID names who handed it in
    sid: str = ""
    student_id: str = "email"  # the course's setting: which id of the export names a student

    @property
    def is_notebook(self) -> bool:
        return self.path.suffix.lower() == ".ipynb"

    @property
    def submitter(self) -> Submitter:
        """Who handed the file in, as its door names them: the student id, except in a
        Gradescope export, where it is the e-mail or the SID, the course's setting, as the
        Gradescope door takes it (so a file is graded on the same variant either way), or no
        one when the export gives none."""
        if not self.gradescope:
            return self.student
        named, kind = (self.sid, "SID") if self.student_id == "sid" else (self.email, "e-mail")
        return named or NoSubmitter(f"Gradescope's export gives no {kind} for who "
                                    f"handed in {self.entry.split('/')[0]}")


@dataclass(frozen=True)
class Unusable:
    """Something in the submissions folder that cannot be graded, and why."""

    entry: str
    reason: str
    student: str = ""

    def line(self) -> str:
        who = f" (student {self.student})" if self.student and self.student != self.entry else ""
        return f"{self.entry}{who}: {self.reason}"


@dataclass
class Discovered:
    layout: str
    submissions: list[Submission] = field(default_factory=list)
    unusable: list[Unusable] = field(default_factory=list)


def discover(folder: Path, exclude: tuple[Path, ...] = (), accepts: Accepts = CODE,
             student_id: str = "email") -> Discovered:
    """Every submission under ``folder`` and every unusable entry, sorted by student id.
    Entries in ``exclude`` (the output folder, when it is inside) are not looked at;
    ``accepts`` says which files are submissions (the exercise's kind of submission);
    ``student_id`` which id of a Gradescope export names who handed a file in."""
    folder = Path(folder)
    if not folder.exists():
        raise DiscoveryError(f"no such folder: {folder}")
    if not folder.is_dir():
        raise DiscoveryError(f"{folder} is not a folder; give the folder holding one "
                             "submission per student (or grade one file with 'grade submit')")
    try:
        skipped = {path.resolve() for path in exclude}
        entries = sorted(p for p in folder.iterdir()
                         if not _ignored(p.name) and p.resolve() not in skipped)
    except OSError as error:
        raise DiscoveryError(f"cannot list {folder}: {error.strerror}") from None
    if (folder / METADATA_FILE).is_file():
        found = _gradescope(folder, entries, accepts, student_id)
    else:
        found = _files_and_folders(folder, entries, accepts)
    found.submissions, duplicates = _without_duplicates(found.submissions)
    found.unusable.extend(duplicates)
    found.submissions.sort(key=lambda s: s.student)
    found.unusable.sort(key=lambda u: (u.entry, u.student))
    if not found.submissions and not found.unusable:
        found.unusable.append(Unusable(".", f"the folder holds no submissions ({accepts.listed} "
                                            "files, or one folder per student)"))
    return found


def _ignored(name: str) -> bool:
    return name.startswith(".") or name in IGNORED_NAMES


def _files_and_folders(folder: Path, entries: list[Path], accepts: Accepts) -> Discovered:
    kinds = {"file" if p.is_file() else "folder" for p in entries}
    found = Discovered(layout="+".join(sorted(kinds)) or "empty")
    for path in entries:
        entry = path.name
        if path.is_symlink():
            found.unusable.append(Unusable(entry, LINK_REFUSED, student=_student_of(path)))
        elif path.is_dir():
            chosen = _one_submission(path, folder, accepts)
            if isinstance(chosen, str):
                found.unusable.append(Unusable(entry, chosen, student=entry))
            else:
                found.submissions.append(Submission(entry, chosen, _relative(chosen, folder)))
        elif path.suffix.lower() in accepts.suffixes and path.is_file():
            found.submissions.append(Submission(path.stem, path, entry))
        else:  # a student's file of another kind (notes.txt): their row says why it scored nothing
            found.unusable.append(Unusable(entry, _not_a_submission(path, accepts),
                                           student=_student_of(path)))
    return found


LINK_REFUSED = ("a symbolic link: a submission is read only as a regular file in the "
                "student's own folder, never through a link (it could point at another "
                "student's file or at the grader's); submit the file itself")


def _student_of(path: Path) -> str:
    return path.stem if path.suffix else path.name


def _not_a_submission(path: Path, accepts: Accepts) -> str:
    if path.is_symlink() and not path.exists():
        return "a broken symbolic link"
    if not path.is_file():
        return "neither a file nor a folder"
    suffix = path.suffix or "no suffix"
    if path.suffix.lower() in accepts.need_exercise:
        return (f"not {accepts.noun} ({suffix}): a folder of answers files is graded for one "
                "exercise; run grade batch again with --exercise ID (the id on the file's "
                "'# exercise:' line)")
    return f"not {accepts.noun} ({suffix}); submit {accepts.examples()}"


def _one_submission(directory: Path, root: Path, accepts: Accepts) -> Path | str:
    """The single submission file under ``directory``, or why there is none."""
    candidates, others, links = [], [], []
    for path in sorted(directory.rglob("*")):
        if any(_ignored(part) for part in path.relative_to(directory).parts):
            continue
        if _through_a_link(path, directory):
            links.append(_relative(path, directory))
            continue
        if path.is_file() and path.suffix.lower() in accepts.suffixes:
            candidates.append(path)
        elif path.is_file():
            others.append(path.name)
    if links and not candidates:
        return f"{LINK_REFUSED} ({', '.join(links[:3])})"
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        if not others:
            return f"an empty folder: no {accepts.listed} file in it"
        shown = ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
        return f"no {accepts.listed} file in it (found {shown})"
    preferred = [p for p in candidates if p.name == accepts.preferred]
    if len(preferred) == 1:
        return preferred[0]
    names = ", ".join(_relative(p, directory) for p in candidates[:5])
    return (f"{len(candidates)} submission files ({names}); keep exactly one, "
            f"or name the one to grade {accepts.preferred}")


def _through_a_link(path: Path, directory: Path) -> bool:
    """Whether ``path``, or a folder between ``directory`` and it, is a symbolic link."""
    current = path
    while current != directory:
        if current.is_symlink():
            return True
        current = current.parent
    return directory.is_symlink()


def _relative(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


def _without_duplicates(submissions: list[Submission]) -> tuple[list[Submission], list[Unusable]]:
    by_student: dict[str, list[Submission]] = defaultdict(list)
    for submission in submissions:
        by_student[submission.student].append(submission)
    kept, unusable = [], []
    for student, group in by_student.items():
        if len(group) == 1:
            kept.append(group[0])
            continue
        entries = ", ".join(sorted(s.entry for s in group))
        for submission in group:
            unusable.append(Unusable(submission.entry, f"student id {student!r} has "
                                     f"{len(group)} submissions ({entries}); none was graded: "
                                     "remove all but one", student=student))
    return kept, unusable


# --------------------------------------------------------------------------- Gradescope


def _gradescope(folder: Path, entries: list[Path], accepts: Accepts,
                student_id: str = "email") -> Discovered:
    found = Discovered(layout="gradescope")
    try:
        metadata = yaml.safe_load((folder / METADATA_FILE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise DiscoveryError(f"cannot read {folder / METADATA_FILE}: {error}") from None
    if not isinstance(metadata, dict):
        raise DiscoveryError(f"{folder / METADATA_FILE} is not a mapping of submissions; "
                             "is this Gradescope's 'Export Submissions' folder?")
    listed = set()
    for key, record in sorted(metadata.items(), key=lambda item: str(item[0])):
        entry = str(key)
        listed.add(entry)
        submitters = _submitters(record)
        directory = folder / entry
        if not directory.is_dir():
            found.unusable.append(Unusable(entry, f"listed in {METADATA_FILE} but its folder "
                                                  "is missing from the export"))
            continue
        chosen = _one_submission(directory, folder, accepts)
        if not submitters:
            submitters = [{"sid": "", "name": "", "email": ""}]
        for person in submitters:
            student = person["sid"] or person["email"] or entry
            if isinstance(chosen, str):
                found.unusable.append(Unusable(entry, chosen, student=student))
            else:
                found.submissions.append(Submission(student, chosen, _relative(chosen, folder),
                                                    name=person["name"], email=person["email"],
                                                    gradescope=True, sid=person["sid"],
                                                    student_id=student_id))
    for path in entries:
        if path.name == METADATA_FILE or path.name in listed:
            continue
        found.unusable.append(Unusable(path.name, f"not listed in {METADATA_FILE}; graded "
                                                  "submissions must come from the export"))
    return found


def _submitters(record: object) -> list[dict[str, str]]:
    if not isinstance(record, dict):
        return []
    fields = {_key(k): v for k, v in record.items()}
    people = fields.get("submitters")
    if not isinstance(people, list):
        return []
    result = []
    for person in people:
        if isinstance(person, dict):
            values = {_key(k): "" if v is None else str(v).strip() for k, v in person.items()}
            result.append({"sid": values.get("sid", ""), "name": values.get("name", ""),
                           "email": values.get("email", "")})
    return result


def _key(key: object) -> str:
    """Gradescope writes Ruby symbols (``:sid``); accept them with or without the colon."""
    return re.sub(r"^:", "", str(key))
