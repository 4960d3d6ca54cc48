"""``companion demo``'s scenes for this title: its rules build on 1867's, and so does its demo
(:mod:`companion.titles.g1867.demo`)."""

from __future__ import annotations

from companion.titles.g1867.demo import DEMO_SCRIPT

__all__ = ["DEMO_SCRIPT"]
