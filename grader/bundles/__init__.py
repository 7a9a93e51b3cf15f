"""LMS bundles: everything a course uploads to Gradescope, PrairieLearn or GitHub Classroom.

Stage 6 of the flow (see docs/architecture.md). ``common`` is what every bundle shares
(rendered templates, grading files), ``wheels`` the offline wheel set, ``instructions`` the
exercise's Markdown as HTML for PrairieLearn's page, and one module per platform
(``gradescope``, ``prairielearn``, ``classroom``). Every bundle runs the stdlib-only
``templates/lms/entrypoint.py`` on the grading host, which always leaves a result.
"""
