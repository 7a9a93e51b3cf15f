"""Execute a notebook in a real IPython kernel (nbclient + ipykernel), as root or as an
ordinary user, the way Jupyter's "Run all" does with errors allowed.

    executed = run_notebook(path)                 # as the test run's user
    executed = run_notebook(path, as_nobody=True)  # as uid 65534, in a folder it can write

The notebook runs in a separate process (``setpriv`` for the ordinary user), with HOME, the
Jupyter runtime folder, IPython's folder and the grader's cache in a fresh folder of that
user's own, so nothing of the test run's own user is needed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

from .fixtures import ENVIRONMENTS, NOBODY, environment_unavailable

RUNNER = """
import json, os, sys, nbformat
from nbclient import NotebookClient
if not os.access(sys.executable, os.X_OK):
    # This interpreter is where the user may not execute it (a Python installed under root's
    # home): the kernel runs the system's Python of the same version with these packages.
    spec = os.path.join(os.environ["JUPYTER_PATH"], "kernels", "python3")
    os.makedirs(spec)
    system = "/usr/bin/python%d.%d" % sys.version_info[:2]
    start = ("import site; [site.addsitedir(p) for p in %r]; "
             "from ipykernel.kernelapp import launch_new_instance; launch_new_instance()"
             % [p for p in sys.path if p.endswith("site-packages")])
    with open(os.path.join(spec, "kernel.json"), "w") as handle:
        json.dump({"argv": [system, "-c", start, "-f", "{connection_file}"],
                   "display_name": "Python 3", "language": "python"}, handle)
book = nbformat.read(sys.argv[1], as_version=4)
# Every output is in once the last cell ran: the kernel is then stopped at once (asked to shut
# down, it lingers until the manager's terminate a few seconds later).
NotebookClient(book, timeout=180, kernel_name="python3", allow_errors=True,
               shutdown_kernel="immediate").execute()
nbformat.write(book, sys.argv[2])
"""


def kernel_unavailable(as_nobody: bool = False) -> str | None:
    """Why notebooks cannot be executed here (None when they can)."""
    try:
        import ipykernel  # noqa: F401
        import nbclient  # noqa: F401
    except ImportError as error:
        return f"nbclient and ipykernel are needed ({error}); pip install -e '.[dev]'"
    if not as_nobody:
        return None
    reason = environment_unavailable("host-nobody")
    if reason:
        return reason
    # The kernel is this interpreter, or (when the user may not execute it) the system's Python
    # of the same version: one of the two must be there for that user.
    probe = ("import os, sys; sys.exit(0 if os.access(sys.executable, os.X_OK) or "
             "os.access('/usr/bin/python%d.%d' % sys.version_info[:2], os.X_OK) else 3)")
    done = subprocess.run(ENVIRONMENTS["host-nobody"]([sys.executable, "-c", probe]),
                          capture_output=True, timeout=60)
    if done.returncode != 0:
        return (f"uid {NOBODY} can execute neither {sys.executable} nor the system's Python "
                f"{sys.version_info[0]}.{sys.version_info[1]}, so it cannot start a kernel")
    return None


def run_notebook(path: Path, *, as_nobody: bool = False,
                 in_container: bool = False) -> nbformat.NotebookNode:
    """``path`` executed in a fresh kernel; its outputs are in the notebook returned.
    ``in_container``: as root in the simulated default Docker container (no namespaces can be
    made there), as on hosted notebook services that run the kernel as root in a container."""
    folder = Path(tempfile.mkdtemp(prefix="kernel-"))
    try:
        folder.chmod(0o755)
        home = folder / "home"  # the user's own, as a home is (the grader's cache needs that)
        home.mkdir(mode=0o700)
        if as_nobody:
            os.chown(home, NOBODY, NOBODY)
        source, executed = home / "in.ipynb", home / "out.ipynb"
        shutil.copyfile(path, source)
        source.chmod(0o644)
        env = dict(os.environ, HOME=str(home), JUPYTER_RUNTIME_DIR=str(home / "runtime"),
                   IPYTHONDIR=str(home / "ipython"), GRADE_CACHE_DIR=str(home / "cache"),
                   JUPYTER_PATH=str(home / "jupyter"), JUPYTER_PLATFORM_DIRS="1")
        argv = [sys.executable, "-c", RUNNER, str(source), str(executed)]
        prefix = ENVIRONMENTS["host-nobody" if as_nobody else
                              "container" if in_container else "host-root"]
        done = subprocess.run(prefix(argv), env=env, cwd=home, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        return nbformat.read(executed, as_version=4)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def cell_text(cell: nbformat.NotebookNode, mime: str = "text/plain") -> str:
    """Everything a code cell showed: its streams, its displays in ``mime``, its error."""
    shown = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            shown.append(output.text)
        elif output.output_type in ("display_data", "execute_result"):
            shown.append(output.data.get(mime, ""))
        elif output.output_type == "error":
            shown.append(f"{output.ename}: {output.evalue}")
    return "\n".join(shown)
