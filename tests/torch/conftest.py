"""Shared fixtures for the tests that need PyTorch 2.13.

The build directory comes from $SYMCUT_BUILDDIR (tests/torch/run.sh sets
it), the source tree from $SYMCUT_SRCDIR.
"""
import os
import pathlib
import subprocess

import pytest

SRCDIR = pathlib.Path(os.environ.get(
    "SYMCUT_SRCDIR", pathlib.Path(__file__).resolve().parents[2]))
BUILDDIR = pathlib.Path(os.environ.get("SYMCUT_BUILDDIR", SRCDIR / "build"))


@pytest.fixture(scope="session")
def srcdir():
    return SRCDIR


@pytest.fixture(scope="session")
def symcut():
    """A function running the built symcut: symcut(*args, input=None)."""
    exe = BUILDDIR / "symcut"
    if not exe.exists():
        pytest.fail("no symcut binary at %s (build first)" % exe)

    def run(*args, input=None, check=False):
        return subprocess.run([str(exe), *map(str, args)], input=input,
                              capture_output=True, text=True, check=check)
    return run


def seed_from_env(default):
    """The seed of a randomized test: $SYMCUT_SEED, else default.  The
    caller prints it so that a failure can be replayed."""
    return int(os.environ.get("SYMCUT_SEED", default))


def cases_from_env(default):
    return int(os.environ.get("SYMCUT_CASES", default))
