"""Known mistakes: wrong BPEs as students write them, and naming the one a submission made.

Stage 3 of the flow (see docs/architecture.md), consulted by grading when a check fails.
``catalogue`` holds each mistake as a wrong trainer or encoder with a witness input (built on
``wrong_bpe``; the mistakes of published code are in ``real_code``); ``compound`` combines two
mistakes into one trainer or encoder; ``students`` and ``real_students`` render them as
student-style submissions (for ``grade audit`` and the tests); ``diagnosis`` finds the mistakes
that reproduce one output exactly, and ``narrowing`` the ones that explain all of a milestone's
failing inputs and contradict none. A new known mistake is one entry here. ``reference/``
holds correct BPE only.
"""
