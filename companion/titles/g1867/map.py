"""The 1867 (and 1861) board: route values counted the 1867 way, with capital and company bonuses.

The game tells the map which corporations own a bonus company (:meth:`Map1867.set_hex_bonuses`);
the rest is the title's rule (see :mod:`companion.titles.g1867.routes`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Self

from companion.data import parse_code
from companion.engine.map import GameMap, MapError, Phase, SpecialLay
from companion.titles.g1867.routes import counted_stops, route_valuer

Node = tuple[str, int]


class Map1867(GameMap):
    #: the capitals and the hex whose route with a capital earns $40 more (set by the game)
    capitals: frozenset[str] = frozenset()
    bonus_hex: str = ""
    CAPITAL_BONUS = 40
    COSTED_BORDERS = True  # the rivers' $80
    REFERENCE_TRACK_RULES = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.hex_bonuses: dict[str, dict[str, int]] = {}
        #: hex → the edges of the stubs printed on it (Peterborough, St. Jerome, Cornwall)
        self.stubs: dict[str, frozenset[int]] = {}

    @classmethod
    def for_title(cls, title_data: dict[str, Any], optional_rules: Iterable[str] = ()) -> Self:
        board = super().for_title(title_data, optional_rules)
        for hexes in title_data["map"]["hexes"].values():
            for hex_id, code in hexes.items():
                edges = frozenset(p.int("edge") for p in parse_code(code) if p.type == "stub")
                if edges:
                    board.stubs[hex_id] = edges
        return board

    def validate_lay(
        self,
        corp: str,
        hex_id: str,
        tile_name: str,
        rotation: int,
        phase: Phase,
        *,
        special: SpecialLay | None = None,
    ) -> int:
        """A printed stub must be continued: the first tile on the hex has track on its edge."""
        stubs = self.stubs.get(hex_id)
        if stubs and self.state[hex_id].preprinted:
            _, new = self._parse_tile_name(tile_name)
            if isinstance(rotation, int) and not stubs <= new.exits_at(rotation % 6):
                edges = ", ".join(map(str, sorted(stubs)))
                raise MapError(
                    f"tile {tile_name} at rotation {rotation} does not continue the stub of {hex_id} (edge {edges})"
                )
        return super().validate_lay(corp, hex_id, tile_name, rotation, phase, special=special)

    def set_hex_bonuses(self, bonuses: dict[str, dict[str, int]]) -> None:
        """``{corporation: {hex: extra revenue}}`` from the companies each corporation owns."""
        if bonuses != self.hex_bonuses:
            self.hex_bonuses = bonuses
            self._changed()

    def bonus(self, corp: str, multiplier: int) -> Callable[[Sequence[Node]], int]:
        amounts = self.hex_bonuses.get(corp, {})
        capitals, bonus_hex, extra = self.capitals, self.bonus_hex, self.CAPITAL_BONUS * multiplier
        if not amounts:  # no bridge or tunnel company: only the capital bonus (the optimiser asks often)

            def capital_bonus(stops: Sequence[Node]) -> int:
                timmins = capital = False
                for h, _ in stops:
                    if h == bonus_hex:
                        timmins = True
                    if h in capitals:
                        capital = True
                return extra if timmins and capital else 0

            return capital_bonus

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

    def route_valuer(self, corp: str, train: Any, phase: Phase) -> Callable[[Sequence[Node]], int] | None:
        return route_valuer(self, corp, train, phase)

    def stop_bonus_valuer(
        self, corp: str, phase: Phase, multiplier: int
    ) -> Callable[[Sequence[Node]], int] | None:
        # the bonus of all of a route's stops: no less than that of those a train counts
        return self.bonus(corp, multiplier)

    def route_bonus_cap(self, corp: str, phase: Phase, multiplier: int) -> int:
        return sum(self.hex_bonuses.get(corp, {}).values()) + self.CAPITAL_BONUS * multiplier + 1

    def _copy_title_state(self, other: GameMap) -> None:
        assert isinstance(other, Map1867)
        other.hex_bonuses = {k: dict(v) for k, v in self.hex_bonuses.items()}
        other.capitals, other.bonus_hex = self.capitals, self.bonus_hex
        other.stubs = self.stubs
