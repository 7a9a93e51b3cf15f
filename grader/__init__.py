"""bpe-autograder's grader: specs, sandbox, checks, diagnosis, scoring, reports and the CLI."""
