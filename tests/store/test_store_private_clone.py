"""The permission-sensitive tests pass wherever the clone lives (issue 44).

``mktemp -d`` makes a mode-700 folder: a clone in it cannot be entered by any other user, so a
read-only check that switched to another user failed there for a reason that has nothing to do with
the store.  This runs tests/store/test_store_faults.py from a copy of the code and the tests inside such a
folder, with this interpreter, and wants every test of it to pass."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.support.paths import ROOT

REPO = ROOT
#: the store-fault tests and what they import (tests/support for the tag ids, conftest for pytest,
#: the packages' __init__.py)
TEST_FILES = ("__init__.py", "conftest.py", "store/__init__.py", "store/test_store_faults.py")


@pytest.mark.slow
def test_the_store_fault_tests_pass_from_a_clone_in_a_mode_700_folder() -> None:
    private = Path(tempfile.mkdtemp(prefix="companion-private-"))  # mode 700, as `mktemp -d` makes it
    try:
        assert private.stat().st_mode & 0o777 == 0o700
        clone = private / "p"
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
        for package in ("companion", "vision"):
            shutil.copytree(REPO / package, clone / package, ignore=ignore)
        (clone / "tests" / "store").mkdir(parents=True)
        for name in TEST_FILES:
            shutil.copy2(REPO / "tests" / name, clone / "tests" / name)
        shutil.copytree(REPO / "tests" / "support", clone / "tests" / "support", ignore=ignore)
        shutil.copy2(REPO / "pyproject.toml", clone / "pyproject.toml")
        env = {**os.environ, "PYTHONPATH": str(clone), "PYTHONDONTWRITEBYTECODE": "1"}
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "tests/store/test_store_faults.py",
                "-p",
                "no:xdist",
                "-p",
                "no:cacheprovider",
            ],
            cwd=clone,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
        assert " passed" in out.stdout and "failed" not in out.stdout and "skipped" not in out.stdout
        assert (
            str(clone)
            in subprocess.run(
                [sys.executable, "-c", "import companion; print(companion.__file__)"],
                cwd=clone,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )  # the run above tested the copy in the private folder, not this checkout
    finally:
        shutil.rmtree(private, ignore_errors=True)
