"""The table process's garbage collector settling (companion/runtime.py)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from companion.runtime import TABLE_GC_THRESHOLD, settle_collector


@pytest.fixture
def collector() -> Iterator[None]:
    """The test process's collector put back as it was."""
    before = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*before)


def test_settling_freezes_what_is_alive_and_raises_the_first_threshold(collector: None) -> None:
    kept = [[i] for i in range(1000)]  # tracked objects alive at the moment of settling
    before = gc.get_threshold()
    frozen = settle_collector()
    assert frozen == gc.get_freeze_count() and frozen >= len(kept)
    assert gc.get_threshold() == (TABLE_GC_THRESHOLD, before[1], before[2])
    assert TABLE_GC_THRESHOLD > 700  # Python's default: fewer collections than without settling


def test_garbage_made_after_settling_is_still_collected(collector: None) -> None:
    settle_collector()

    class Node:
        partner: object

    a, b = Node(), Node()
    a.partner, b.partner = b, a  # a cycle: only the collector frees it
    marker = id(a)
    del a, b
    gc.collect()
    assert all(id(o) != marker for o in gc.get_objects() if isinstance(o, Node))
