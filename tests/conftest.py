"""Fixtures shared by the screen tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.commands.demo import virtual_display

# The tests import ``devtools`` (the board looks, the benches: not installed) from the repository's
# root, as pytest's ``pythonpath`` setting makes it; the programs the tests start as children (the
# app driven under Xvfb, the demo, the benches) find it the same way.
_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in os.environ.get("PYTHONPATH", "").split(os.pathsep):
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (_ROOT, os.environ.get("PYTHONPATH")) if p)


@pytest.fixture(scope="module")
def display() -> Iterator[str]:
    """A private Xvfb for the module's screen tests (big enough for both window sizes); its name."""
    with virtual_display((1280, 720)) as name:
        yield name


#: test files long in all without a slow test of their own (seconds each, summed, in a -n 2 run on
#: a loaded 2-core machine: docs/TESTING.md); they start first too
LONG_FILES = frozenset(
    {
        "test_vision_maps",
        "test_deploy",
        "test_ui_tsr",
        "test_vision_recognition",
        "test_ui_run",
        "test_g1833ne",
    }
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules with slow tests, and LONG_FILES, first; each kept whole and otherwise in the
    order collected.

    ``make test`` hands whole files to its workers (``--dist loadfile``) in this order; the files
    with the long replays, renders and demo runs are mostly late in the alphabet (test_ui_*,
    test_vision_*), and one of them handed out last keeps a worker busy alone at the end of the
    run.  Started first, the short files fill in behind them and both workers finish together."""
    long = {item.module.__name__ for item in items if item.module and item.get_closest_marker("slow")}
    long |= {
        item.module.__name__
        for item in items
        if item.module and item.module.__name__.rsplit(".", 1)[-1] in LONG_FILES
    }
    order = {id(item): n for n, item in enumerate(items)}
    items.sort(key=lambda item: (item.module is None or item.module.__name__ not in long, order[id(item)]))
