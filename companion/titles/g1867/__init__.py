"""1867: Railways of Canada (Ian D. Wilson, Grand Trunk Games), and the base of 1861.

The title package: its registry entry (:data:`TITLE`), its game (:class:`Game1867`, in
``game.py``), its steps and rounds (``steps.py``: the private auction, minors auctioned in
the stock round, loans, nationalisation, the merger round) and its markets (``market.py``).
"""

from __future__ import annotations

from companion.data import load_title
from companion.titles import TitleInfo, optional_rules_of
from companion.titles.g1867.game import Game1867

__all__ = ["GAME_CLASS", "TITLE", "Game1867"]

GAME_CLASS = Game1867

TITLE = TitleInfo(
    name="1867",
    display_name="1867: Railways of Canada",
    min_players=2,
    max_players=6,
    optional_rules=optional_rules_of(load_title("1867")["meta"]),
    playable=True,
    complete=False,
)
