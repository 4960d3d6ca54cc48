"""1861: The Railways of the Russian Empire (Ian D. Wilson, Grand Trunk Games), built on 1867.

The title package: its registry entry (:data:`TITLE`) and its game (:class:`Game1861`, in
``game.py``: the Russian map and companies, roubles, and the national railway (RSR) that runs
on the priority-deal holder's turn from phase 4 to phase 7).
"""

from __future__ import annotations

from companion.data import load_title
from companion.titles import TitleInfo, optional_rules_of
from companion.titles.g1861.game import Game1861

__all__ = ["GAME_CLASS", "TITLE", "Game1861"]

GAME_CLASS = Game1861

TITLE = TitleInfo(
    name="1861",
    display_name="1861: The Railways of the Russian Empire",
    min_players=2,
    max_players=6,
    optional_rules=optional_rules_of(load_title("1861")["meta"]),
    playable=True,
    complete=False,
    currency="{}₽",
)
