"""City of the Big Shoulders (Ryan Lopez DeVinaspre, Parallel Games): the title package.

Its registry entry (:data:`TITLE`), its game (:class:`CobsGame`, in ``game.py``, with the phases
as steps in ``steps.py`` and its companies, certificates and factories in ``entities.py``) and
its components (``data.json``, provenance in ``PROVENANCE.md``).  No map, no trains: it plays on
the title-neutral core (docs/CoBS.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from companion.titles import TitleInfo, optional_rules_of
from companion.titles.cobs.game import CobsGame

__all__ = ["GAME_CLASS", "TITLE", "CobsGame", "load_data"]

DATA_PATH = Path(__file__).with_name("data.json")


def load_data() -> dict[str, Any]:
    """A fresh copy of the title's components."""
    data: dict[str, Any] = json.loads(DATA_PATH.read_text())
    return data


GAME_CLASS = CobsGame

_META = load_data()["meta"]

TITLE = TitleInfo(
    name="CoBS",
    display_name="City of the Big Shoulders",
    min_players=int(_META["player_range"][0]),
    max_players=int(_META["player_range"][1]),
    optional_rules=optional_rules_of(_META),
    playable=True,
    complete=False,
    has_map=False,
)
