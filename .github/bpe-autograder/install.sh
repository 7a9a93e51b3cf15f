#!/usr/bin/env bash
# Install bpe-autograder 0.1.0 from the wheels beside this script, without network
# access: a virtual environment without pip (ensurepip is missing from some base images),
# then pip run straight from its own wheel, reading only ./wheels (--no-index).
#
# Environment (all optional):
#   BPE_AUTOGRADER_VENV    where to create the environment (default: ${RUNNER_TEMP:-/tmp}/bpe-venv)
#   BPE_AUTOGRADER_PYTHON  the Python 3.12 to build it from (default: python3)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${BPE_AUTOGRADER_VENV:-${RUNNER_TEMP:-/tmp}/bpe-venv}"
PYTHON="${BPE_AUTOGRADER_PYTHON:-python3}"
WHEELS="$HERE/wheels"

if ! command -v "$PYTHON" >/dev/null 2>&1; then
    echo "setup: $PYTHON not found; install Python 3.12 or set BPE_AUTOGRADER_PYTHON" >&2
    exit 1
fi
PIP_WHEEL="$(ls "$WHEELS"/pip-*.whl 2>/dev/null | head -n 1 || true)"
if [ -z "$PIP_WHEEL" ]; then
    echo "setup: no pip wheel in $WHEELS; rebuild the bundle with 'grade bundle'" >&2
    exit 1
fi

"$PYTHON" -m venv --without-pip "$VENV"
PIP_DISABLE_PIP_VERSION_CHECK=1 "$VENV/bin/python" "$PIP_WHEEL/pip" install \
    --no-index --find-links "$WHEELS" --no-cache-dir --quiet \
    "bpe-autograder==0.1.0"
"$VENV/bin/grade" --version
