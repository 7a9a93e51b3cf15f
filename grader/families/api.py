"""The grader's public surface for exercise families: the one module a family imports.

Every family, shipped or a course's own, imports the grader only from here (besides
``reference/``, its own modules and the families its record ``builds_on``); a test holds the
shipped ones to it. The names below are the stable contract: each is documented where it is
defined, and docs/families.md walks through a family that uses them.

- **The record**: :class:`Family`, :class:`Role`, :class:`FamilyError`, ``every_case``.
- **What hooks take and give**: the student's :class:`Calls` and a call's
  :class:`StudentAnswer`; :class:`Verdict`, :class:`CaseItem`, :class:`CaseLabel` (cases);
  :class:`Generated`, :class:`Failure`, :class:`Shown`, ``Judge`` (generated inputs);
  :class:`Property` (laws); :class:`CheckContext`, :class:`CheckKind` (a check kind of the
  family's own), :class:`CheckResult`, :class:`Diagnosis`, :class:`GradeReport` (results);
  :class:`SubmissionKind`, :class:`Opened` (opening a submission); :class:`StubText`,
  :class:`Doctest`, :class:`StubNeedsStudent` (stubs); :class:`Verification` (``grade check``);
  :class:`AuditReport`, :class:`MistakeAudit`, :class:`ReferenceAudit`,
  :class:`UnknownMistake`, ``points_earned`` (``grade audit``); :class:`ShapeError`.
- **Mistakes**: :class:`Mistake`, :class:`MistakeBook`, :class:`StudentMistake`,
  :class:`Students`, :class:`Observation`, ``observed`` (note a failing call so the milestone
  names its mistake), ``NOT_COMPARABLE``, ``run_bounded`` (a computation of the grader's own,
  given up after a time limit); the truth check: :class:`Claim` (a sentence of fact
  and how to show it true) and ``said`` (a message of parts, false claims left out).
- **Spec models**: :class:`Exercise`, :class:`Case`, :class:`Milestone`,
  :class:`FunctionSpec`, :class:`SpecModel`, ``Field``, ``ConfigDict``, ``WithJsonSchema``,
  ``milestone_model``, ``functions_field``, ``Identifier``, ``ID_PATTERN``, ``Pair``; problems:
  :class:`Problem`, ``Loc``, :class:`SpecError`, :class:`NewSpecError`, ``in_file_order``,
  ``describe_spec_value``, ``quote_hint``; ``load_exercise``, ``parse_exercise``.
- **Feedback and points**: ``graded``, ``show``, ``literal``, ``json_pair``, ``json_pairs``,
  ``first_differing_index``, ``describe``, ``finite_float``, ``is_str_pair``, ``MAX_SHOWN``, ``cap``,
  ``check_points``, ``split_evenly``.
- **Generated inputs and laws**: ``st`` (Hypothesis's strategies, imported on first use),
  ``structural_reductions``, ``fewer_items``, ``smaller_int``, ``shorter_words``, ``deterministic``,
  ``inputs_unmodified``, ``failed_call``.
- **Timing** (an efficiency check's run): :class:`Clocks`, ``best_clocks``, ``best_time``,
  ``call_clocks``, ``call_failure_message``, ``clock_of``, ``clocked_details``,
  ``limits_text``, ``measured``, ``over_ratio``, ``speed_verdict``, ``stuck_run``, ``timing_details``,
  :class:`Rounds`, ``interleaved_rounds``, ``rounds_details`` (a run near the bound measured again),
  ``settled_by_one_reference_run``,
  ``untimed_milestone_title``, ``wall_timeout``; work a grading's helper prepares:
  ``collect_prepared``, ``start_prepared``, ``corpus_key``, ``timing_key``; ``corpus_seed``.
- **Data files** (students hand in YAML answers): :class:`DataFile`, :class:`HandedFile`,
  :class:`NotGradable`, :class:`DataFileError`, ``parse_data_file``, ``yaml_quoted``; per-student variants:
  :class:`VariantError`, ``check_student``, ``course_secret``, ``variant_seed``; their audit:
  ``AUDIT_STUDENTS``, ``chosen_mistakes``, ``judge_answers_mistake``, ``reference_audit``.
- **Running and grading**: :class:`Sandbox` with its :class:`SandboxLimits` (a second sandbox
  a role's check opens, or the one a family's own submission kind opens; its
  ``call`` takes a :class:`Feed`, an argument handed to the call item by item and counted on
  the grader's side, and :class:`Served`, trusted functions a test file imports and calls,
  answered on the grader's side and logged as :class:`ServedCall` items), ``grade_submission`` (an audit grades its files through it), ``deferred`` (a hook whose
  module is imported on first call), ``data_dir``, ``jinja_environment``.
"""

from __future__ import annotations

from grader.grading.ahead import collect as collect_prepared
from grader.grading.ahead import corpus_key, timing_key
from grader.grading.ahead import go as start_prepared
from grader.grading.checks.properties import deterministic, failed_call, inputs_unmodified
from grader.grading.data_file import (
    DataFile,
    DataFileError,
    HandedFile,
    NotGradable,
    parse_data_file,
    yaml_quoted,
)
from grader.grading.data_file_audit import (
    AUDIT_STUDENTS,
    chosen_mistakes,
    judge_answers_mistake,
    reference_audit,
)
from grader.grading.engine import grade_submission
from grader.grading.feedback import (
    first_differing_index,
    graded,
    json_pair,
    json_pairs,
    literal,
    show,
)
from grader.grading.lazy_module import deferred
from grader.grading.naming import observed
from grader.mistakes.diagnosis import run_bounded
from grader.mistakes.truth import Claim, said
from grader.grading.scoring import check_points, split_evenly
from grader.grading.search import st
from grader.grading.secrets import corpus_seed
from grader.grading.shapes import MAX_SHOWN, describe, finite_float, is_str_pair
from grader.grading.shrink import fewer_items, shorter_words, smaller_int
from grader.grading.shrink import structural as structural_reductions
from grader.grading.student_calls import cap
from grader.grading.student_ids import VariantError, check_student, course_secret, variant_seed
from grader.grading.timing import (
    Clocks,
    Rounds,
    interleaved_rounds,
    rounds_details,
    settled_by_one_reference_run,
    best_clocks,
    best_time,
    call_clocks,
    call_failure_message,
    clock_of,
    clocked_details,
    limits_text,
    measured,
    over_ratio,
    speed_verdict,
    stuck_run,
    timing_details,
    untimed_milestone_title,
    wall_timeout,
)
from grader.package_data import data_dir, jinja_environment
from grader.result import CheckResult, Diagnosis, GradeReport
from grader.sandbox import Feed, Sandbox, SandboxLimits, Served, ServedCall
from grader.spec.family import Family, FamilyError, Role, every_case
from grader.spec.hooks import (
    AuditReport,
    Calls,
    CaseItem,
    CaseLabel,
    CheckContext,
    CheckKind,
    Doctest,
    Failure,
    Generated,
    Judge,
    MistakeAudit,
    Opened,
    Property,
    ReferenceAudit,
    SandboxLike,
    ShapeError,
    Shown,
    StubText,
    StudentAnswer,
    SubmissionKind,
    UnknownMistake,
    Verdict,
    Verification,
    points_earned,
)
from grader.spec.loading import load_exercise, parse_exercise
from grader.spec.mistake_book import (
    NOT_COMPARABLE,
    Mistake,
    MistakeBook,
    Observation,
    StudentMistake,
    Students,
)
from grader.spec.models import (
    ID_PATTERN,
    Case,
    Exercise,
    FunctionSpec,
    Identifier,
    Milestone,
    Pair,
    SpecModel,
    functions_field,
    milestone_model,
)
from grader.spec.problems import Loc, NewSpecError, Problem, SpecError, in_file_order
from grader.spec.records import ConfigDict, Field, WithJsonSchema
from grader.spec.stubs import StubNeedsStudent

# Spec-validation helpers load only when a spec is validated, never in a grading.
describe_spec_value = deferred("grader.spec.messages", "describe")
quote_hint = deferred("grader.spec.messages", "quote_hint")

__all__ = [
    "AUDIT_STUDENTS", "AuditReport", "Calls", "Case", "CaseItem", "CaseLabel", "CheckContext", "Claim",
    "CheckKind", "CheckResult", "Clocks", "ConfigDict", "DataFile", "DataFileError", "Diagnosis",
    "Doctest", "Exercise", "Failure", "Family", "Feed", "FamilyError", "Field", "FunctionSpec",
    "Generated", "GradeReport", "HandedFile", "ID_PATTERN", "Identifier", "Judge", "Loc",
    "MAX_SHOWN", "Milestone", "Mistake", "MistakeAudit", "MistakeBook", "NOT_COMPARABLE",
    "NewSpecError", "NotGradable", "Observation", "Opened", "Pair", "Problem", "Property",
    "ReferenceAudit", "Role", "Sandbox", "SandboxLike", "SandboxLimits", "Served", "ServedCall", "ShapeError", "Shown", "SpecError",
    "SpecModel", "StubNeedsStudent", "StubText", "StudentAnswer", "StudentMistake", "Students",
    "SubmissionKind", "UnknownMistake", "VariantError", "Verdict", "Verification",
    "WithJsonSchema", "best_clocks", "best_time", "call_clocks", "call_failure_message", "cap",
    "check_points", "check_student", "chosen_mistakes", "clock_of", "clocked_details",
    "collect_prepared", "corpus_key", "corpus_seed", "course_secret", "data_dir", "deferred",
    "describe", "describe_spec_value", "deterministic", "every_case", "failed_call",
    "fewer_items", "finite_float", "first_differing_index", "functions_field", "grade_submission", "graded",
    "in_file_order", "inputs_unmodified", "is_str_pair", "jinja_environment", "run_bounded",
    "json_pair", "json_pairs", "judge_answers_mistake", "limits_text", "literal", "load_exercise",
    "measured", "milestone_model", "observed", "over_ratio", "parse_data_file", "parse_exercise",
    "points_earned", "quote_hint", "reference_audit", "said", "shorter_words", "show", "smaller_int", "speed_verdict", "stuck_run",
    "Rounds", "interleaved_rounds", "rounds_details", "settled_by_one_reference_run",
    "split_evenly", "st", "start_prepared", "structural_reductions", "timing_details", "timing_key",
    "untimed_milestone_title", "variant_seed", "wall_timeout", "yaml_quoted",
]
