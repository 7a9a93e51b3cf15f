"""The environment a platform's script runs in: this one, without the test run's virtualenv.

Bundle scripts fall back to the ``python3`` on ``PATH`` when their own environment is missing;
with the tests' virtualenv activated that ``python3`` would have the grader installed, hiding
the fault the scripts must report.
"""

from __future__ import annotations

import os
import sys


def host_environment() -> dict[str, str]:
    environment = dict(os.environ)
    venv_bin = os.path.join(sys.prefix, "bin")
    if sys.prefix != sys.base_prefix:
        kept = [part for part in environment.get("PATH", "").split(os.pathsep)
                if part and os.path.abspath(part) != os.path.abspath(venv_bin)]
        environment["PATH"] = os.pathsep.join(kept) or os.defpath
    environment.pop("VIRTUAL_ENV", None)
    return environment
