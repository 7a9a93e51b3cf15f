"""The starting file of a test-writing exercise: the contract, how grading works, two tests.

The two example tests' expected values are computed by the reference when the stub is made,
so they hold on the correct BPE.
"""

from __future__ import annotations

import textwrap
from typing import Optional

from grader.families.api import Exercise
from grader.families.bpe_tests.groups import GROUPS
from grader.families.bpe_tests.implementations import REFERENCE

EXAMPLE_CORPUS = ["low low low low low lower lower newest newest newest newest newest newest "
                  "widest widest widest"]
EXAMPLE_MERGES = 5
EXAMPLE_WORD = "lowest"


def _comment(text: str) -> str:
    return "\n".join(f"# {line}".rstrip() for line in textwrap.fill(
        " ".join(text.split()), 92).splitlines())


def test_stub(exercise: Exercise, student: Optional[str] = None,
              secret: Optional[str] = None) -> str:
    module = exercise.tests.module
    merges = REFERENCE.answer("train_bpe", (EXAMPLE_CORPUS, EXAMPLE_MERGES))
    tokens = REFERENCE.answer("encode", (EXAMPLE_WORD, merges))
    groups = "\n".join(f"#       * {group.title}" for group in GROUPS
                       if any(group.id in m.groups for m in exercise.milestones))
    return f'''# exercise: {exercise.id}
"""{exercise.title}

Write tests for a character-level BPE: test functions named test_... that call train_bpe and
encode and assert what they return. You do not write the BPE: the grader runs your tests
against the correct one and against known wrong ones.
"""
{_comment(exercise.instructions)}
#
# The functions under test (import them from `{module}`):
#   train_bpe(corpus, num_merges) -> list[tuple[str, str]]
#       corpus is a list of texts, split on whitespace; each word is its characters plus the
#       end-of-word marker "</w>" as a separate symbol; pair counts are weighted by how often
#       the word occurs; the most frequent pair is merged everywhere, left to right without
#       overlaps ("a a a" becomes "aa a"); ties go to the smallest pair compared as a tuple of
#       strings, (left, right): min(pairs, key=lambda p: (-counts[p], p)); training stops
#       after num_merges merges or earlier when no pair is left. The merges are returned in
#       the order learned, as (left, right) tuples.
#   encode(word, merges) -> list[str]
#       starts from the word's characters plus "</w>" and repeatedly merges the adjacent
#       pair with the lowest rank (earliest in merges) until none applies.
#
# How your file is graded:
#   - Valid: each test runs twice on the correct BPE, in separate runs. A test that fails
#     there, times out, or runs differently the second time (seed your random inputs) earns
#     nothing; a failing one is shown with what the correct BPE returns.
#   - Honest: a test that passes whatever the BPE does (it asserts nothing, or catches every
#     exception) earns nothing.
#   - Adequate: every valid test runs against the known wrong BPEs. A mistake is caught when
#     a test fails on it because it answered differently. Each group's points are the share
#     of its mistakes your tests catch:
{groups}
#   - At most {exercise.tests.max_tests} tests are run: plain functions without parameters, with
#     plain assert statements (pytest itself is not available where they run; check an error
#     with try/except ValueError). Keep each test fast: small corpora, few merges.

from {module} import encode, train_bpe


def test_problem_corpus():
    corpus = {EXAMPLE_CORPUS!r}
    assert train_bpe(corpus, {EXAMPLE_MERGES}) == {merges!r}


def test_encode_by_rank():
    merges = {merges!r}
    assert encode({EXAMPLE_WORD!r}, merges) == {tokens!r}


# TODO: your tests: ties, counting, the end-of-word marker, merging, stopping, encoding...
'''
