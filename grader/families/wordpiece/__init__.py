"""WordPiece: merges chosen by score ``count(ab) / (count(a) * count(b))``, and where that
parts from BPE.

Builds on the bpe family (the same corpus conventions, cases, generated corpora, prose and
student-program parts, as HF tokenizers' WordPiece trainer builds on its BPE trainer). Its
folder holds the spec model (``spec``), expected values (``expected``), the stub (``stub``),
answer shapes (``shapes``), do-nothing submissions (``do_nothing``), the cases check's
judges (``judges``) and their feedback with scores (``feedback``), generated-input judges
(``differential``), its mistakes (``mistakes``) and the student-style submissions that make
them (``students``).
"""

from grader.families.bpe import prose, rules
from grader.families.wordpiece import do_nothing, mistakes, students, stub
from grader.families.wordpiece.roles import ROLES
from grader.families.wordpiece.spec import WordpieceExercise
from grader.mistakes.kinds import Students
from grader.spec import Family

FAMILY = Family(
    name="wordpiece",
    summary="WordPiece training by score, and the first step where it parts from BPE",
    roles=ROLES,
    exercise=WordpieceExercise,
    builds_on=("bpe",),
    spec_problems=rules.spec_problems,
    prose_problems=prose.prose_problems,
    conventions=stub.stub_text,
    mistakes=mistakes.BOOK,
    students=Students(applicable=students.applicable_mistakes, source=students.student_source),
    do_nothing=do_nothing.sources,
    placeholder_case=rules.placeholder_case,
)
