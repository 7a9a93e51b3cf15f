"""Known mistakes: what one is, and naming the ones a submission's outputs match.

Stage 3 of the flow (see docs/architecture.md), consulted by grading when a check fails.
``kinds`` says what a known mistake is (a runnable wrong implementation with a hint and a
witness) and what a family hands over about its mistakes (a ``MistakeBook``) and the
student-style submissions that make them (``Students``); ``diagnosis`` finds the mistakes that
reproduce one output exactly, and ``narrowing`` the ones that explain all of a milestone's
failing inputs and contradict none. The mistakes themselves are each family's, in its folder
(``grader/families/``); a new known mistake is one entry in its family's catalogue.
"""
