"""Title data (maps, tiles, market, trains, companies, corporations).

The JSON files beside this module were extracted from the public 18xx.games
engine; see ``PROVENANCE.md``.  They are loaded as data, never retyped.  This
module only loads and parses; it holds no game state and is shared by the
engine and by ``vision`` (which must not import the engine).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from companion.data.tilecode import Part, TileDef, parse_code

__all__ = ["Part", "TileDef", "parse_code", "load_title", "load_tiles", "tile_def", "TITLES"]

TITLES = ("1870", "1861", "1867", "1833NE")


@cache
def _read(name: str) -> str:
    return resources.files("companion.data").joinpath(name).read_text(encoding="utf-8")


def load_title(title: str) -> dict[str, Any]:
    """Return a fresh copy of a title's data (callers may mutate it)."""
    if title not in TITLES:
        raise KeyError(f"unknown title {title!r}; known titles: {', '.join(TITLES)}")
    data: dict[str, Any] = json.loads(_read(f"titles/{title}.json"))
    return data


def load_tiles() -> dict[str, Any]:
    """All tile ids of the shared tile set: ``{id: {color, code, titles}}``."""
    tiles: dict[str, Any] = json.loads(_read("tiles.json"))
    return tiles


def tile_def(title: str, tile_id: str) -> TileDef:
    """The definition (colour and parsed code) of a tile id as used by a title."""
    title_tiles = load_title(title)["map"]["tiles"]
    entry = title_tiles.get(tile_id)
    if isinstance(entry, dict) and "code" in entry:
        return TileDef(tile_id, entry["color"], parse_code(entry["code"]))
    shared = load_tiles().get(tile_id)
    if shared is None:
        raise KeyError(f"tile {tile_id!r} is not defined for {title}")
    return TileDef(tile_id, shared["color"], parse_code(shared["code"]))
