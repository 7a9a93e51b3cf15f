"""LMS bundles: everything a course uploads to Gradescope, PrairieLearn or GitHub Classroom.

Stage 6 of the flow (see docs/architecture.md). ``common`` is what every bundle shares
(rendered templates, grading files), ``wheels`` the offline wheel set, and one module per
platform.
"""
