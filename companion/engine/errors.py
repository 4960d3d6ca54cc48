"""Errors the engine raises.  Every one names what was wrong; the state is unchanged."""

from __future__ import annotations


class GameError(Exception):
    """An illegal action: ``str(err)`` is the reason to show the player."""


class GameOver(GameError):
    """The game has ended; no further actions (except messages) are accepted."""
