"""Who shares code with whom: the pairs of a class's submissions ranked by how much of each one's
code the other holds, found by ``copydetect`` (MOSS-style winnowing over normalised tokens, so
renamed variables, reordered functions and added comments do not hide a copy). The exercise's
stub is boilerplate: code every student was given counts for no one. A folder of known
sources (minbpe, the HF course's code, last year's solutions) adds pairs that read
"resembles SOURCE".

:func:`find_similar` compares; :func:`write_similarity` writes ``similarity.html`` (the ranked
pairs, each linked to a side-by-side page with the shared regions highlighted) and
``similarity.csv``. Every text a student wrote reaches the pages escaped.

Memory is bounded: each file is compared on its first :data:`MAX_COMPARED_CHARS` characters
(a solution is a few thousand; a file padded up to the 4 MB submission cap would otherwise
cost the comparison hundreds of MiB). Three files at the cap stay under
:data:`MEMORY_BOUND_MIB` MiB of peak memory; more files cost each about the same share more.
The page names the files that were cut.
"""

from __future__ import annotations

import html
import logging
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from grader.batch.batch import GRADEBOOK, accepts
from grader.batch.behaviour import SameBehaviour, same_behaviour
from grader.batch.discovery import Accepts, Unusable, discover
from grader.batch.exports import safe_csv
from grader.grading.submission_file import SubmissionFileError, read_submission
from grader.package_data import jinja_environment
from grader.report.class_report import SimilarityLeads
from grader.spec import Exercise
from grader.spec.stubs import render_stub

DEFAULT_THRESHOLD = 0.5
NOISE_TOKENS = 25  # copydetect's k: shorter runs of shared tokens are never counted
GUARANTEE_TOKENS = 30  # its window: any shared run this long is always found
# copydetect marks the shared regions with these spans and escapes everything else.
MAX_COMPARED_CHARS = 200_000
MEMORY_BOUND_MIB = 256  # peak resident memory of a comparison of three files at the cap
HIGHLIGHT = re.compile(r"(<span class='highlight-(?:red|green)'>|</span>)")


class SimilarityError(ValueError):
    """The comparison cannot be made (an exercise whose submissions are not code...)."""


@dataclass(frozen=True)
class SimilarPair:
    """Two submissions (or a submission and a known source) and what they share."""

    first: str
    second: str
    first_share: float  # the part of ``first``'s code also in ``second``
    second_share: float
    tokens: int  # shared tokens
    source: bool  # ``second`` is a known source, not a classmate
    first_code: str = field(repr=False, default="")  # HTML: escaped, shared parts highlighted
    second_code: str = field(repr=False, default="")

    @property
    def share(self) -> float:
        return max(self.first_share, self.second_share)


@dataclass
class SimilarityReport:
    students: int
    sources: int
    threshold: float
    pairs: list[SimilarPair]
    unusable: list[Unusable]
    seconds: float
    behaviour: list[SameBehaviour] = field(default_factory=list)
    graded: bool = False  # whether a graded class's wrong answers were compared too
    cut: list[str] = field(default_factory=list)  # compared on their first characters only
    compared_chars: int = MAX_COMPARED_CHARS


def find_similar(submissions: Path, exercise: Exercise, *, sources: Path | None = None,
                 threshold: float = DEFAULT_THRESHOLD,
                 graded: Path | None = None) -> SimilarityReport:
    """Compare every two submissions under ``submissions`` (and each with ``sources``); keep
    the pairs where one shares at least ``threshold`` of its code with the other. ``graded``,
    the output folder of ``grade batch`` for this class, adds the pairs that give the same
    rare wrong answers (:mod:`grader.batch.behaviour`)."""
    from copydetect import CopyDetector  # heavy (numpy): only when comparing

    if not 0 < threshold <= 1:
        raise SimilarityError(f"the threshold is a share of the code, above 0 and at most 1; "
                              f"got {threshold}")
    started = time.monotonic()
    accepts = code_files(exercise)
    found = discover(Path(submissions), accepts=accepts)
    unusable = list(found.unusable)
    with tempfile.TemporaryDirectory(prefix="bpe-similarity-") as scratch:
        place = Path(scratch)
        names: dict[str, tuple[str, bool]] = {}  # copy on disk -> (student or source, source?)
        cut: list[str] = []
        for number, submission in enumerate(found.submissions):
            text = _code_of(submission.path, unusable, submission.student, cut)
            if text is not None:
                names[_write(place / "class", number, text)] = (submission.student, False)
        for number, path in enumerate(_source_files(sources, accepts)):
            text = _code_of(path, unusable, "", cut, path.name)
            if text is not None:
                names[_write(place / "sources", number, text)] = (path.name, True)
        boilerplate = place / "stub" / "stub.py"
        boilerplate.parent.mkdir()
        boilerplate.write_text(render_stub(exercise), encoding="utf-8")
        detector = CopyDetector(noise_t=NOISE_TOKENS, guarantee_t=GUARANTEE_TOKENS,
                                display_t=threshold, silent=True, autoopen=False)
        for path, (_, is_source) in names.items():
            detector.add_file(path, type="ref" if is_source else "testref")
        detector.add_file(str(boilerplate), type="boilerplate")
        pairs = _compared(detector, names) if len(names) > 1 else []
    pairs.sort(key=lambda pair: (-pair.share, -pair.tokens, pair.first, pair.second))
    students = sum(not is_source for _, is_source in names.values())
    behaviour = same_behaviour(_gradebook(graded)) if graded is not None else []
    return SimilarityReport(students, len(names) - students, threshold, pairs, unusable,
                            time.monotonic() - started, behaviour, graded is not None, cut)


def _gradebook(graded: Path) -> Path:
    path = Path(graded)
    path = path if path.is_file() else path / GRADEBOOK
    if not path.is_file():
        raise SimilarityError(f"--graded {graded}: no gradebook there; give the output "
                              "folder of 'grade batch' for this class")
    return path


def write_similarity(report: SimilarityReport, out: Path, title: str) -> Path:
    """``similarity.html``, one page per pair under ``similarity/`` and ``similarity.csv``."""
    out = Path(out)
    pages = out / "similarity"
    pages.mkdir(parents=True, exist_ok=True)
    environment = jinja_environment()
    pair_page = environment.get_template("similarity_pair.html.j2")
    for rank, pair in enumerate(report.pairs, start=1):
        (pages / f"pair-{rank}.html").write_text(
            pair_page.render(pair=pair, rank=rank, title=title), encoding="utf-8")
    index = out / "similarity.html"
    index.write_text(environment.get_template("similarity.html.j2").render(
        report=report, title=title), encoding="utf-8")
    rows = [["rank", "student", "other", "other_is_source", "student_share", "other_share",
             "shared_tokens"]]
    rows += [[str(rank), pair.first, pair.second, str(int(pair.source)),
              f"{pair.first_share:.3f}", f"{pair.second_share:.3f}", str(pair.tokens)]
             for rank, pair in enumerate(report.pairs, start=1)]
    (out / "similarity.csv").write_text(safe_csv(rows), encoding="utf-8")
    return index


LEADS_SHOWN = 20  # rows of the class report's section; every pair is on the page


def class_report_leads(report: SimilarityReport, page: str = "similarity.html") -> SimilarityLeads:
    """The class report's section: the first pairs by shared code, then by wrong answers."""
    rows = [(pair.first, f"source {pair.second}" if pair.source else pair.second,
             f"{pair.first_share:.0%} / {pair.second_share:.0%} of their code "
             f"({pair.tokens} shared tokens)") for pair in report.pairs]
    rows += [(pair.first, pair.second, f"{len(pair.shared)} rare wrong answer"
              f"{'' if len(pair.shared) == 1 else 's'} in common") for pair in report.behaviour]
    return SimilarityLeads(rows[:LEADS_SHOWN], page, cut_note(report))


def cut_note(report: SimilarityReport) -> str:
    """What the comparison left out of the files it cut, or "" when it cut none."""
    if not report.cut:
        return ""
    return (f"Each file is compared on its first {report.compared_chars:,} characters at most; "
            f"{len(report.cut)} {'was' if len(report.cut) == 1 else 'were'} longer: "
            f"{', '.join(sorted(report.cut))}.")


def code_files(exercise: Exercise) -> Accepts:
    kind = accepts(exercise)  # the same files grade batch grades
    if not any(suffix in (".py", ".ipynb") for suffix in kind.suffixes):
        raise SimilarityError(f"exercise {exercise.id} takes {kind.noun}, not code: there is "
                              "no code to compare")
    return kind


def _source_files(sources: Path | None, accepts: Accepts) -> list[Path]:
    if sources is None:
        return []
    if not Path(sources).is_dir():
        raise SimilarityError(f"--sources {sources}: not a folder of known sources")
    return sorted(path for path in Path(sources).rglob("*")
                  if path.is_file() and not path.is_symlink()
                  and path.suffix.lower() in accepts.suffixes)


def _code_of(path: Path, unusable: list[Unusable], student: str, cut: list[str],
             name: str = "") -> str | None:
    """The code of ``path``, at most its first :data:`MAX_COMPARED_CHARS` characters (a file
    cut is named in ``cut``); None, said in ``unusable``, when it cannot be read."""
    try:
        text = read_submission(path).text
    except (SubmissionFileError, OSError, UnicodeError) as error:
        unusable.append(Unusable(path.name, f"not compared: {error}", student))
        return None
    if len(text) > MAX_COMPARED_CHARS:
        cut.append(name or student)
        text = text[:MAX_COMPARED_CHARS]
    return text


def _write(folder: Path, number: int, text: str) -> str:
    folder.mkdir(exist_ok=True)
    path = folder / f"{number:05d}.py"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _compared(detector, names: dict[str, tuple[str, bool]]) -> list[SimilarPair]:
    logging.getLogger().disabled, was = True, logging.getLogger().disabled
    try:
        detector.run()
        rows = detector.get_copied_code_list()
    finally:
        logging.getLogger().disabled = was
    pairs, seen = [], set()
    for first_share, second_share, first, second, first_code, second_code, tokens in rows:
        (one, one_source), (other, other_source) = names[first], names[second]
        if one_source:  # a source is only ever the second of a pair
            (one, other), (first_share, second_share) = (other, one), (second_share, first_share)
            first_code, second_code, other_source = second_code, first_code, True
        key = frozenset((one, other))
        if key in seen or one == other:
            continue
        seen.add(key)
        pairs.append(SimilarPair(one, other, float(first_share), float(second_share),
                                 int(tokens), other_source, _safe(first_code),
                                 _safe(second_code)))
    return pairs


def _safe(code: str) -> str:
    """copydetect's highlighted code with nothing but its own spans left as markup."""
    parts = HIGHLIGHT.split(code)
    return "".join(part if HIGHLIGHT.fullmatch(part) else
                   html.escape(html.unescape(part), quote=False) for part in parts)

