"""The sandbox: the only way student code runs, in worker processes behind a data-only pipe.

Stage 2 of the flow (see docs/architecture.md). ``api`` is the :class:`Sandbox` the grading
stage uses; ``wire`` encodes the values that cross the pipe and ``replies`` reads the
worker's replies into outcomes; ``process`` is the trusted side's handle on one worker;
``streams`` keeps a streamed call's lazy argument on the trusted side; ``served`` answers a
submission's calls to trusted functions (a test file's ``from bpe import train_bpe``) on the
trusted side; ``limits`` holds a sandbox's limits and errors;
``leftovers`` removes temporary directories; ``layers``, ``cgroups``, ``seccomp`` and
``landlock`` set up and probe the host's isolation; ``guarantees`` says what holds with the
layers found, which is what ``--strict-sandbox`` demands; ``worker.py`` is the untrusted
side, a standard-library-only fork server never imported here that runs every call in a
fresh child, placed by ``worker_code`` as the bytecode its interpreter made of it.
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
from grader.sandbox.served import Served, ServedCall
from grader.sandbox.streams import Feed, StreamTrace

__all__ = ["CallOutcome", "Feed", "LoadOutcome", "SandboxError", "Sandbox", "SandboxLimits", "SandboxUnavailable", "layers_notice",
           "remove_leftovers", "Served", "ServedCall", "StreamTrace"]
