"""The sandbox: the only way student code runs, in worker processes behind a data-only pipe.

Stage 2 of the flow (see docs/architecture.md). ``api`` is the :class:`Sandbox` the grading
stage uses; ``wire`` encodes the values that cross the pipe; ``process`` is the trusted side's
handle on one worker; ``layers``, ``cgroups`` and ``seccomp`` set up the host's isolation;
``worker.py`` is the untrusted side, a standard-library-only script never imported here.
"""

from grader.sandbox.api import (
    CallOutcome,
    LoadOutcome,
    Sandbox,
    SandboxError,
    SandboxLimits,
    SandboxUnavailable,
    layers_notice,
    remove_leftovers,
)

__all__ = ["CallOutcome", "LoadOutcome", "SandboxError", "Sandbox", "SandboxLimits", "SandboxUnavailable", "layers_notice",
           "remove_leftovers"]
