"""WordPiece: merges chosen by score ``count(ab) / (count(a) * count(b))``, and where that
parts from BPE.

Builds on the bpe family (the same corpus conventions, cases, generated corpora, prose and
student-program parts, as HF tokenizers' WordPiece trainer builds on its BPE trainer). Its
folder holds the spec model (``spec``), expected values (``expected``), the stub (``stub``),
answer shapes (``shapes``), do-nothing submissions (``do_nothing``), the cases check's
judges (``judges``) and their feedback with scores (``feedback``), generated-input judges
(``differential``), its mistakes (``mistakes``, with those of published code in
``real_code``), the student-style submissions that make them (``students``), and its
training step by step (``steps``).
"""

from grader.families.wordpiece import mistakes
from grader.families.wordpiece.roles import ROLES
from grader.families.wordpiece.spec import WordpieceExercise
from grader.families.api import Family, Students, deferred

HERE = __name__

FAMILY = Family(
    name="wordpiece",
    summary="WordPiece training by score, and the first step where it parts from BPE",
    roles=ROLES,
    exercise=WordpieceExercise,
    builds_on=("bpe",),
    spec_problems=deferred("grader.families.bpe.rules", "spec_problems"),
    prose_problems=deferred("grader.families.bpe.prose", "prose_problems"),
    conventions=deferred(f"{HERE}.stub", "stub_text"),
    mistakes=mistakes.BOOK,
    students=Students(applicable=deferred(f"{HERE}.students", "applicable_mistakes"),
                      source=deferred(f"{HERE}.students", "student_source")),
    do_nothing=deferred(f"{HERE}.do_nothing", "sources"),
    placeholder_case=deferred("grader.families.bpe.rules", "placeholder_case"),
    trace=deferred(f"{HERE}.steps", "trace"),
)
"""The authoring, checking and audit helpers are named, not imported (as in the bpe family)."""
