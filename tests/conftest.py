"""Fixtures shared by the screen tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from companion.commands.demo import virtual_display


@pytest.fixture(scope="module")
def display() -> Iterator[str]:
    """A private Xvfb for the module's screen tests (big enough for both window sizes); its name."""
    with virtual_display((1280, 720)) as name:
        yield name
