"""The environment a platform's script runs in: this one, without any virtualenv on PATH.

Bundle scripts fall back to the ``python3`` on ``PATH`` when their own environment is missing;
with a virtualenv first on ``PATH`` (the tests' own, or one a developer activated) that
``python3`` could have the grader installed, hiding the fault the scripts must report.
"""

from __future__ import annotations

import os
from pathlib import Path


def host_environment() -> dict[str, str]:
    environment = dict(os.environ)
    kept = [part for part in environment.get("PATH", "").split(os.pathsep)
            if part and not (Path(part).parent / "pyvenv.cfg").is_file()]
    environment["PATH"] = os.pathsep.join(kept) or os.defpath
    environment.pop("VIRTUAL_ENV", None)
    return environment
