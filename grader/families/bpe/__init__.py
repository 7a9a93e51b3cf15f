"""Character-level Byte-Pair Encoding: train merges, encode words, count sequence lengths,
tabulate the vocabulary-size trade-off.

The family of the lessons' BPE. Its folder holds everything about it: the spec fields and
rules (``spec``, ``rules``), expected values (``expected``), the texts that state conventions
and what ``grade check`` verifies (``prose``, ``verify``), the stub's conventions and doctests
(``stub``), ``grade new`` (``new_spec``), answer shapes (``shapes``), the judges of the cases
check (``judges``), generated inputs (``generated``, ``differential``), properties, the timed
run (``efficiency``, ``zipf_corpus``, ``merge_replay``), which answers show no work
(``evidence``, ``do_nothing``), follow-through (``follow_through``), the trade-off role
(``tradeoff``, ``tradeoff_checks``, ``tradeoff_mistakes``), the catalogue of known
mistakes (``catalogue``, ``wrong_bpe``, ``real_code``, ``compound``, ``witnesses``, ``book``)
and the student-style submissions that make them (``students``, ``real_students``); the two runs step by step behind a report's step view
and ``grade trace --html`` (``steps``).
"""

from grader.families.bpe import book, efficiency
from grader.families.bpe.roles import ROLES
from grader.families.bpe.spec import BpeExercise
from grader.families.api import Family, Students, deferred

HERE = __name__

FAMILY = Family(
    name="bpe",
    summary="character-level Byte-Pair Encoding: train merges, encode words, count tokens",
    roles=ROLES,
    exercise=BpeExercise,
    spec_problems=deferred(f"{HERE}.rules", "spec_problems"),
    prose_problems=deferred(f"{HERE}.prose", "prose_problems"),
    verify=deferred(f"{HERE}.verify", "verify"),
    conventions=deferred(f"{HERE}.stub", "stub_text"),
    mistakes=book.BOOK,
    students=Students(applicable=deferred(f"{HERE}.students", "applicable_mistakes"),
                      source=deferred(f"{HERE}.students", "student_source"),
                      combined=deferred(f"{HERE}.students", "combined_mistakes"),
                      combination=deferred(f"{HERE}.compound", "combination_by_id")),
    do_nothing=deferred(f"{HERE}.do_nothing", "sources"),
    ahead=efficiency.ahead_work,
    new_spec=deferred(f"{HERE}.new_spec", "new_spec_text"),
    placeholder_case=deferred(f"{HERE}.rules", "placeholder_case"),
    trace=deferred(f"{HERE}.steps", "trace"),
)
"""The authoring, checking and audit helpers are named, not imported: grading a submission
against a kept spec loads none of them."""
