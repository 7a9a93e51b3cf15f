"""Which module writes the student-style submissions of an exercise, by its algorithm.

:mod:`grader.mistakes.students` writes BPE submissions itself; an exercise of another
algorithm (WordPiece, byte-level BPE) is handed to that algorithm's module, which offers the
same ``applicable_mistakes(exercise)`` and ``student_source(exercise, mistake_id)``.
"""

from __future__ import annotations

from types import ModuleType
from typing import Optional

from grader.spec import Exercise


def family_for(exercise: Exercise) -> Optional[ModuleType]:
    """The module writing ``exercise``'s submissions, or None when they are BPE's."""
    from grader.mistakes import byte_students, wordpiece_students  # they import students

    return next((module for module in (wordpiece_students, byte_students)
                 if module.handles(exercise)), None)
