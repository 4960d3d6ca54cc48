"""This title at the table: its rules build on 1867's (:mod:`companion.titles.g1867`), and so do its
words — the merger round's and nationalisation's (:mod:`companion.titles.g1867.table`)."""

from __future__ import annotations

from companion.titles.g1867.table import TABLE

__all__ = ["TABLE"]
