"""Title data (maps, tiles, market, trains, companies, corporations).

Each map title's components (``data.json`` in its folder under ``companion/titles``) and the shared
tile set beside this module (``tiles.json``) were extracted from the public 18xx.games engine; see
``PROVENANCE.md``.  They are loaded as data, never retyped.  This
module only loads and parses; it holds no game state and is shared by the
engine and by ``vision`` (which must not import the engine).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from companion.data.tilecode import Part, TileDef, parse_code
from companion.titles import data_text, map_titles

__all__ = ["Part", "TileDef", "parse_code", "load_title", "load_tiles", "map_titles", "tile_def"]


@cache
def _read(name: str) -> str:
    return resources.files("companion.data").joinpath(name).read_text(encoding="utf-8")


def load_title(title: str) -> dict[str, Any]:
    """Return a fresh copy of a map title's data (callers may mutate it), read from the title's
    folder (``companion/titles/<package>/data.json``)."""
    if title not in map_titles():
        raise KeyError(f"unknown title {title!r}; known titles: {', '.join(map_titles())}")
    data: dict[str, Any] = json.loads(_title_text(title))
    return data


@cache
def _title_text(title: str) -> str:
    return data_text(title)


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
