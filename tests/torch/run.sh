#!/bin/sh
# The tests that need PyTorch 2.13 (differential tests against PyTorch, the
# Python package).  They are not part of `make check`, which never needs
# PyTorch; `sh ./quickstart check` runs this script after it.
#
#   sh tests/torch/run.sh BUILDDIR [PYTEST-ARGS...]
#
# The Python is $SYMCUT_PYTHON (default python3).  When it cannot import
# torch 2.13 and pytest, the script says so and exits 0 (skipped);
# SYMCUT_TORCH_REQUIRED=1 makes that a failure (CI sets it).  Every
# tests/torch/test_*.py runs with pytest; they find the build through
# $SYMCUT_BUILDDIR and the sources through $SYMCUT_SRCDIR.
set -u
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
builddir=$(cd "${1:-$srcdir/build}" && pwd) || exit 2
[ $# -gt 0 ] && shift
python=${SYMCUT_PYTHON:-python3}

why=$("$python" - <<'PY' 2>&1
import sys
try:
    import torch
except Exception as e:
    print("cannot import torch (%s)" % e.__class__.__name__); sys.exit(1)
if not torch.__version__.startswith("2.13."):
    print("torch is %s, not 2.13" % torch.__version__); sys.exit(1)
try:
    import pytest, numpy
except Exception as e:
    print("cannot import %s" % getattr(e, "name", "pytest/numpy")); sys.exit(1)
PY
) || {
    echo "torch tests: SKIPPED: $python: $why."
    echo "  To run them: python3 -m venv venv && venv/bin/pip install torch==2.13.0 numpy pytest"
    echo "  then SYMCUT_PYTHON=venv/bin/python sh ./quickstart check"
    [ "${SYMCUT_TORCH_REQUIRED:-0}" = 1 ] && exit 1
    exit 0
}

echo "torch tests: running with $python (torch 2.13)"
SYMCUT_BUILDDIR=$builddir SYMCUT_SRCDIR=$srcdir \
    "$python" -m pytest -q -p no:cacheprovider "$@" "$srcdir/tests/torch"
status=$?
# pytest's 5 is "no tests collected".
[ $status = 5 ] && { echo "torch tests: none collected"; status=0; }
exit $status
