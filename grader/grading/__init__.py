"""Grading one submission: the student's functions called through the sandbox, each milestone's
checks run against the reference, points split and earned.

Stage 4 of the flow (see docs/architecture.md). ``engine`` is the whole grading behind ``grade
submit``; ``submission_file`` turns the file students hand in (BOM, CRLF, notebooks) into the
Python the sandbox imports; ``student_calls`` and ``shapes`` call the student and check what
comes back, ``plain_words`` says what a sandbox failure means;
``generated_inputs`` and ``zipf_corpus`` make inputs; ``checks/`` holds every check kind behind
one interface; ``feedback`` turns outcomes into messages and evidence; ``naming`` names the
mistakes of a milestone from all its failing inputs; ``follow_through`` judges a function built
on another against the student's own version of it; ``scoring`` splits points;
``audit`` grades the catalogue's mistaken students to show the checks catch each mistake.
"""
