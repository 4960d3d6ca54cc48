"""The 1867 (and 1861) board: route values counted the 1867 way, with capital and company bonuses.

The game tells the map which corporations own a bonus company (:meth:`Map1867.set_hex_bonuses`);
the rest is the title's rule (see :mod:`companion.engine.titles.g1867.routes`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from companion.engine.map import GameMap, Phase
from companion.engine.titles.g1867.routes import counted_stops

Node = tuple[str, int]


class Map1867(GameMap):
    #: the capitals and the hex whose route with a capital earns $40 more (set by the game)
    capitals: frozenset[str] = frozenset()
    bonus_hex: str = ""
    CAPITAL_BONUS = 40

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.hex_bonuses: dict[str, dict[str, int]] = {}

    def set_hex_bonuses(self, bonuses: dict[str, dict[str, int]]) -> None:
        """``{corporation: {hex: extra revenue}}`` from the companies each corporation owns."""
        if bonuses != self.hex_bonuses:
            self.hex_bonuses = bonuses
            self._changed()

    def bonus(self, corp: str, multiplier: int) -> Callable[[Sequence[Node]], int]:
        amounts = self.hex_bonuses.get(corp, {})
        capitals, bonus_hex, extra = self.capitals, self.bonus_hex, self.CAPITAL_BONUS * multiplier

        def value(stops: Sequence[Node]) -> int:
            hexes = {h for h, _ in stops}
            total = sum(amounts.get(h, 0) for h in hexes)
            if bonus_hex in hexes and hexes & capitals:
                total += extra
            return total

        return value

    def train_revenue(
        self, corp: str, train: Any, stops: Sequence[Node], values: list[int], phase: Phase
    ) -> int | None:
        hexes = [h for h, _ in stops]
        if len(set(hexes)) != len(hexes):
            raise ValueError("a route may not visit two cities of one hex")
        capitals, bonus_hex = self.capitals, self.bonus_hex
        _, revenue = counted_stops(
            self,
            corp,
            train,
            stops,
            values,
            self.bonus(corp, train.multiplier),
            special=lambda node: node[0] in capitals or node[0] == bonus_hex,
        )
        return revenue

    def route_bonus_cap(self, corp: str, phase: Phase, multiplier: int) -> int:
        return sum(self.hex_bonuses.get(corp, {}).values()) + self.CAPITAL_BONUS * multiplier + 1

    def _copy_title_state(self, other: GameMap) -> None:
        assert isinstance(other, Map1867)
        other.hex_bonuses = {k: dict(v) for k, v in self.hex_bonuses.items()}
        other.capitals, other.bonus_hex = self.capitals, self.bonus_hex
