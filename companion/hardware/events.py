"""Events that hardware adapters deliver to the table service.

Every NFC reader implementation (serial, simulated) yields these; the table
service never sees bytes or device details.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class TagEvent:
    """A tag was placed on reader ``reader`` (``uid`` is upper-case hex, 4/7/10 bytes)."""

    reader: int
    uid: str


@dataclass(frozen=True)
class TagRemoved:
    """The tag ``uid`` was lifted off reader ``reader``."""

    reader: int
    uid: str


ReaderEvent = TagEvent | TagRemoved


class TagSource(Protocol):
    """Anything that delivers tag events: the serial reader or a simulated one."""

    def events(self) -> Iterator[ReaderEvent]:
        """Yield events as they arrive; ends when the source is closed or exhausted."""
        ...

    def close(self) -> None: ...
