"""Trans-Siberian Railroad (Todd Sanders, Winsome Games 2015): a title with no hexes, tiles or trains.

The title package: its registry entry (:data:`TITLE`), its game (:class:`GameTSR`, in ``game.py``)
and its components as data (``data.json``; where each fact came from: ``PROVENANCE.md``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from companion.titles import TitleInfo
from companion.titles.tsr.game import GameTSR, settings_of

__all__ = ["GAME_CLASS", "TITLE", "GameTSR", "load_data"]

DATA_PATH = Path(__file__).with_name("data.json")


def load_data() -> dict[str, Any]:
    """A fresh copy of the title's components (the board's links, the tracks, the railroads)."""
    data: dict[str, Any] = json.loads(DATA_PATH.read_text())
    return data


GAME_CLASS = GameTSR

TITLE = TitleInfo(
    name="TSR",
    display_name="Trans-Siberian Railroad",
    min_players=3,
    max_players=5,
    playable=True,
    complete=False,
    has_map=False,
    settings=settings_of(load_data()),
)
