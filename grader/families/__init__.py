"""The exercise families that ship with the grader: the one list that names them all.

Each family is a package here holding everything about one kind of exercise (its roles, spec
model and rules, expected values, stub examples, judges, generated inputs, properties, timed
run, mistakes and student-style submissions), and defines one ``FAMILY`` record
(:class:`grader.spec.family.Family`). Stages reach a family only through
:func:`grader.spec.registry.family_of`, which imports its package on first use. A family
imports the grader only through :mod:`grader.families.api`, and another family only when its
record names that one in ``builds_on``.
"""

FAMILIES: dict[str, str] = {
    "bpe": "grader.families.bpe",
    "bpe_tests": "grader.families.bpe_tests",
    "byte": "grader.families.byte_level",
    "concept": "grader.families.concept",
    "hand": "grader.families.hand",
    "unigram": "grader.families.unigram",
    "wordpiece": "grader.families.wordpiece",
}
"""Family name -> the package defining its ``FAMILY``."""

DEFAULT = "bpe"
"""The family of a spec that names none and whose functions say nothing either."""
