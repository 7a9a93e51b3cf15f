"""Byte-level BPE in the conventions of Stanford CS336 (GPT-2's pre-tokenizer, special tokens).

Builds on the bpe family (its conventions model, case rules and tie prose). Its folder holds
the spec model and rules (``spec``, ``rules``), expected values (``expected``), the stub
(``stub``), answer shapes in bytes (``shapes``), do-nothing submissions (``do_nothing``), the
cases check's judges (``judges``), generated inputs (``generated``), the differential and
property checks on them (``differential``, ``properties``), the timed run on a text drawn from
the secret (``efficiency``, ``stories``, ``honest_run``), the streaming milestone's judges
(``streaming``), its mistakes (``mistakes``, with those of real CS336 solutions in
``real_code``), the student-style submissions that make them (``students``,
``real_students``) and the fast correct submission the audit grades (``fast_student``).
"""

from grader.families.bpe import prose
from grader.families.bpe.rules import placeholder_case
from grader.families.byte_level import do_nothing, fast_student, mistakes, rules, students, stub
from grader.families.byte_level.roles import ROLES
from grader.families.byte_level.spec import ByteExercise
from grader.mistakes.kinds import Students
from grader.spec import Family

FAMILY = Family(
    name="byte",
    summary="byte-level BPE as in CS336: train on bytes, encode to ids, decode back",
    roles=ROLES,
    exercise=ByteExercise,
    builds_on=("bpe",),
    spec_problems=rules.spec_problems,
    prose_problems=prose.prose_problems,
    conventions=stub.stub_text,
    mistakes=mistakes.BOOK,
    students=Students(applicable=students.applicable_mistakes, source=fast_student.source),
    do_nothing=do_nothing.sources,
    placeholder_case=placeholder_case,
)
