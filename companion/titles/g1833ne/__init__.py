"""1833NE: Railroading in New England (Tom Lehmann).

The title package: its registry entry (:data:`TITLE`) and its game (:class:`Game1833NE`, in
``game.py``).  What is implemented and what is not: docs/1833NE.md.
"""

from __future__ import annotations

from companion.data import load_title
from companion.titles import TitleInfo, optional_rules_of
from companion.titles.g1833ne.game import Game1833NE

__all__ = ["GAME_CLASS", "TITLE", "Game1833NE"]

GAME_CLASS = Game1833NE

TITLE = TitleInfo(
    name="1833NE",
    display_name="1833NE: Railroading in New England",
    min_players=3,
    max_players=5,
    optional_rules=optional_rules_of(load_title("1833NE")["meta"]),
    playable=True,
    complete=False,
)
