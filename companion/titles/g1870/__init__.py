"""1870: Railroading across the Trans Mississippi (Bill Dixon, Mayfair Games).

The title package: its registry entry (:data:`TITLE`), its game (:class:`Game1870`, in
``game.py``) and its board (:class:`Map1870`, in ``map.py``).
"""

from __future__ import annotations

from companion.data import load_title
from companion.titles import TitleInfo, optional_rules_of
from companion.titles.g1870.game import Game1870
from companion.titles.g1870.map import AFTER_BROWN_LABEL, Map1870

__all__ = ["GAME_CLASS", "TITLE", "Game1870", "Map1870"]

GAME_CLASS = Game1870

TITLE = TitleInfo(
    name="1870",
    display_name="1870: Railroading across the Trans Mississippi",
    min_players=2,
    max_players=7,
    optional_rules=optional_rules_of(load_title("1870")["meta"]),
    playable=True,
    complete=True,
    upgrade_labels=tuple(
        (hex_id, colour, label) for hex_id, (label, colour) in sorted(AFTER_BROWN_LABEL.items())
    ),
)
