"""What the demo's scenes share: a finger on the screen, an action compared as a button carries it,
the made-up tag of a card."""

from __future__ import annotations

from typing import Any


class _Finger:
    """A touch at a window position, as the map's touch handler sees it."""

    def __init__(self, pos: tuple[float, float]) -> None:
        self.pos = pos


def same_action(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two actions do the same thing (ignoring bookkeeping fields; any copy of a tile)."""
    keys = (
        "type",
        "entity",
        "entity_type",
        "shares",
        "corporation",
        "share_price",
        "company",
        "price",
        "train",
        "hex",
        "rotation",
        "city",
        "target",
        "link",
        "links",
        "jumps",
        "bonus",
        # the fields a title without a map names too (City of the Big Shoulders: the action space,
        # the capital asset's slot, the factories, the resources, the demand space, what was drawn)
        "space",
        "slot",
        "factory",
        "worker_factories",
        "manager_factories",
        "first",
        "resource",
        "resources",
        "building",
        "demand",
        "spot",
        "give",
        "take",
        "asset",
        "kind",
        "place",
        "item",
        "variant",  # a double-sided train card's side (1833NE)
        "payment",  # a takeover's (1833NE)
    )

    def tile(x: dict[str, Any]) -> str:
        name = str(x.get("tile", ""))
        return name.rpartition("-")[0] or name

    return all(a.get(k) == b.get(k) for k in keys) and tile(a) == tile(b)


def uid_for(index: int) -> str:
    """A deterministic 7-byte tag UID for the ``index``-th card of the demo."""
    return f"04{0xA10000 + index:06X}{index * 7919 % 0xFFFFFF:06X}"
