"""Grading one submission: the student's functions called through the sandbox, each milestone's
checks run against the reference, points split and earned.

Stage 4 of the flow (see docs/architecture.md). ``engine`` is the whole grading behind ``grade
submit``; ``submissions`` opens what a student hands in (code in the sandbox, or a family's own
kind of file) and ``submission_file`` turns a code submission (BOM, CRLF, notebooks) into the
Python the sandbox imports; ``student_calls`` and ``shapes`` call the student and describe what
comes back, ``plain_words`` says what a sandbox failure means; ``checks/`` holds every check
kind behind one interface, each asking the milestone's role (its family's record) for what is
particular to it; ``search`` generates inputs and searches them, ``timing`` times a run
against the reference, ``ahead`` and ``prepared`` do work before the checks need it;
``feedback`` builds results and shared evidence; ``naming`` names the mistakes of a milestone
from all its failing inputs; ``evidence`` and ``scoring`` decide points; ``audit`` grades a
family's mistaken students to show the checks catch each mistake.
"""
