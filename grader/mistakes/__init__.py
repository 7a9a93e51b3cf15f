"""Known mistakes: wrong BPEs as students write them, and naming the one a submission made.

Stage 3 of the flow (see docs/architecture.md), consulted by grading when a check fails.
``catalogue`` holds each mistake as a wrong trainer or encoder with a witness input;
``students`` renders them as student-style submissions (for ``grade audit`` and the tests);
``diagnosis`` finds the mistakes that reproduce a student's output exactly. A new known mistake
is one entry here. ``reference/`` holds correct BPE only.
"""
