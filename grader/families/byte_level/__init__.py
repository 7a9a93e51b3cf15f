"""Byte-level BPE in the conventions of Stanford CS336 (GPT-2's pre-tokenizer, special tokens).

Builds on the bpe family (its conventions model, case rules and tie prose). Its folder holds
the spec model and rules (``spec``, ``rules``), expected values (``expected``), the stub
(``stub``), answer shapes in bytes (``shapes``), do-nothing submissions (``do_nothing``), the
cases check's judges (``judges``), generated inputs (``generated``), the differential and
property checks on them (``differential``, ``properties``), the timed run on a text drawn from
the secret (``efficiency``, ``stories``, ``honest_run``), the streaming milestone's judges
(``streaming``), its mistakes (``mistakes``, with those of real CS336 solutions in
``real_code``), the student-style submissions that make them (``students``,
``real_students``) the fast correct submission the audit grades (``fast_student``), and its training
step by step for a report's step view and ``grade trace --html`` (``steps``).
"""

from grader.families.byte_level import mistakes
from grader.families.byte_level.roles import ROLES
from grader.families.byte_level.spec import ByteExercise
from grader.families.api import Family, Students, deferred

HERE = __name__

FAMILY = Family(
    name="byte",
    summary="byte-level BPE as in CS336: train on bytes, encode to ids, decode back",
    roles=ROLES,
    exercise=ByteExercise,
    builds_on=("bpe",),
    spec_problems=deferred(f"{HERE}.rules", "spec_problems"),
    prose_problems=deferred("grader.families.bpe.prose", "prose_problems"),
    conventions=deferred(f"{HERE}.stub", "stub_text"),
    mistakes=mistakes.BOOK,
    students=Students(applicable=deferred(f"{HERE}.students", "applicable_mistakes"),
                      source=deferred(f"{HERE}.fast_student", "source")),
    do_nothing=deferred(f"{HERE}.do_nothing", "sources"),
    placeholder_case=deferred("grader.families.bpe.rules", "placeholder_case"),
    trace=deferred(f"{HERE}.steps", "trace"),
)
"""The authoring, checking and audit helpers are named, not imported (as in the bpe family)."""
