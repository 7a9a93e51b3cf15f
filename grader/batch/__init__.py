"""Grading a whole class: find every student's submission, grade them in parallel, keep a
gradebook, and write the class's grades, reports and class report.

Comes after the report stage and before the commands (see docs/architecture.md).
``discovery`` turns a submissions folder (files, one folder per student, or a Gradescope
export) into submissions and the reasons others are unusable; ``fingerprints`` hashes submissions, specs, the grader and the grading
settings; ``gradebook`` is the sqlite record of every grading, with the ``summaries`` of its reports
that ``class_stats`` counts the class report from; ``runner`` grades in parallel
worker processes; ``progress`` draws the terminal progress bar; ``stored`` rebuilds a report
from the gradebook's JSON; ``exports`` writes the CSV files and per-student reports;
``outputs`` writes every output file; ``policy`` picks the grading each student's exported grade
is taken from (latest, keep-best, no-decrease); ``regrade`` works out what a run changed
(``regrade.csv``, the class report's "What changed"); ``sharding`` splits a class across
machines; ``merge`` combines gradebooks; ``batch`` ties them together behind ``grade batch``.
"""
