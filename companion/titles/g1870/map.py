"""1870's board: destinations, the ports and cattle markers, and Kansas City's and St. Louis' labels.

What the 1870 map adds to the shared :class:`~companion.engine.map.GameMap`:

- each corporation has a destination hex (its ``assign_hexes`` ability); reaching it with a
  connection run puts a destination token there (the "Map" choice) or forfeits the bonus
  (the "Charter" choice), and a route ending at a reached destination counts that stop twice;
- the Southern Cattle Company (SCC) and Gulf Shipping Company (GSC, open and closed port)
  markers add $10 / $20 to a route through their hex;
- after a brown tile on Kansas City (B11) or St. Louis (C18), the gray upgrade needs the K / L tile;
- the original rules (or original tiles) take some tiles out of the supply.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from companion.engine.map import GameMap, MapError, Phase
from companion.engine.tiles import TileSpec

Node = tuple[str, int]

#: after a brown tile is laid on these hexes, the gray upgrade needs this label
AFTER_BROWN_LABEL = {"B11": ("K", "gray"), "C18": ("L", "gray")}
#: route bonus of each hex marker (the GSC open port pays $20 to its owner's charter, $10 to others)
SCC_BONUS, GSC_CLOSED_BONUS, GSC_OWN_BONUS, GSC_OTHER_BONUS = 10, 20, 20, 10


class Map1870(GameMap):
    """The 1870 board."""

    #: corporations whose destination bonus was forfeited ("Charter" choice)
    forfeited_destinations: set[str]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.forfeited_destinations = set()

    # -- construction hooks -------------------------------------------------------------------------
    @classmethod
    def corporation_destination(cls, corporation: dict[str, Any]) -> str | None:
        for ability in corporation.get("abilities", []):
            if ability.get("type") == "assign_hexes" and ability.get("hexes"):
                return str(ability["hexes"][0])
        return None

    @classmethod
    def removed_tiles_for(cls, title_data: dict[str, Any], rules: frozenset[str]) -> frozenset[str]:
        if {"original_rules", "original_tiles"} & rules:
            return frozenset(title_data.get("constants", {}).get("OPTION_TILES_REMOVE_ORIGINAL_GAME", []))
        return frozenset()

    def label_after_lay(self, hex_id: str, new: TileSpec) -> tuple[str, str] | None:
        return AFTER_BROWN_LABEL.get(hex_id) if new.color == "brown" else None

    def _copy_title_state(self, other: GameMap) -> None:
        assert isinstance(other, Map1870)
        other.forfeited_destinations = set(self.forfeited_destinations)

    # -- destinations --------------------------------------------------------------------------------
    def destination_hex(self, corp: str) -> str | None:
        """The destination of a corporation (``None`` once the bonus was forfeited)."""
        if corp in self.forfeited_destinations:
            return None
        return super().destination_hex(corp)

    def destination_reached(self, corp: str) -> bool:
        """The destination token is on the map (the bonus applies)."""
        dest = self.destination_hex(corp)
        return dest is not None and corp not in self.hex_assignments.get(dest, {})

    # -- the markers and the destination choices ----------------------------------------------------
    def close_port(self, hex_id: str, corp: str) -> None:
        """1870 GSC used again on its hex: the open port becomes the closed port of ``corp``."""
        if not self.assigned(hex_id, "GSC"):
            raise MapError(f"the open port is not on {hex_id}")
        del self.hex_assignments[hex_id]["GSC"]
        self.hex_assignments[hex_id]["GSCᶜ"] = corp
        markers = self.corp_assignments.setdefault(corp, set())
        markers.discard("GSC")
        markers.add("GSCᶜ")
        self._changed()

    def reach_destination(self, corp: str, *, station_wars: bool = False) -> None:
        """1870 'Map' choice: the destination marker is replaced by a token in the destination city."""
        dest = self.corporations[corp].destination if corp in self.corporations else None
        if dest is None or corp not in self.hex_assignments.get(dest, {}):
            raise MapError(f"{corp} has no destination marker on the map")
        st = self.state[dest]
        cities = st.spec.city_indices
        if not cities:
            raise MapError(f"{dest} has no city for the destination token")
        if st.tokened_by(cities[0], corp):
            raise MapError(f"{corp} already has a token on {dest}")
        del self.hex_assignments[dest][corp]
        node = cities[0]
        if station_wars:
            slot = self._get_slot(st.tokens[node], st.reservations[node], corp)
            if slot is None:
                st.tokens[node].append(corp)
                st.reservations[node].append(None)
            else:
                st.tokens[node][slot] = corp
        else:
            st.extra_tokens.setdefault(node, []).append(corp)
        self._changed()

    def forfeit_destination(self, corp: str) -> None:
        """1870 'Charter' choice: the marker leaves the map and the bonus is lost."""
        dest = self.corporations[corp].destination if corp in self.corporations else None
        if dest is None:
            raise MapError(f"{corp} has no destination")
        self.hex_assignments.get(dest, {}).pop(corp, None)
        self.forfeited_destinations.add(corp)
        self._changed()

    # -- route bonuses -----------------------------------------------------------------------------------
    def route_bonus(
        self, corp: str, stops: Sequence[Node], values: list[int], paid: list[int], phase: Phase
    ) -> int:
        bonus = 0
        hexes = [s[0] for s in stops]
        markers = self.corp_assignments.get(corp, set())
        if "SCC" in markers and any(self.assigned(h, "SCC") for h in hexes):
            bonus += SCC_BONUS
        if "GSCᶜ" in markers and any(self.assigned(h, "GSCᶜ") for h in hexes):
            bonus += GSC_CLOSED_BONUS
        if any(self.assigned(h, "GSC") for h in hexes):
            bonus += GSC_OWN_BONUS if "GSC" in markers else GSC_OTHER_BONUS
        if len(stops) >= 2 and self.destination_reached(corp):
            dest = self.destination_hex(corp)
            for end in (0, len(stops) - 1):
                if hexes[end] == dest:
                    bonus += values[paid[end]]
                    break
        return bonus

    def route_bonus_cap(self, corp: str, phase: Phase, multiplier: int) -> int:
        best_stop = max(
            (node.revenue_for(phase.tiles) for st in self.state.values() for node in st.spec.nodes),
            default=0,
        )
        return SCC_BONUS + GSC_CLOSED_BONUS + GSC_OWN_BONUS + best_stop * multiplier

    def stop_bonus_valuer(
        self, corp: str, phase: Phase, multiplier: int
    ) -> Callable[[Sequence[Node]], int] | None:
        markers = self.corp_assignments.get(corp, set())
        marked = self.hex_assignments.items()
        scc = {h for h, m in marked if "SCC" in m} if "SCC" in markers else set()
        gscc = {h for h, m in marked if "GSCᶜ" in m} if "GSCᶜ" in markers else set()
        gsc = {h for h, m in marked if "GSC" in m}
        gsc_bonus = GSC_OWN_BONUS if "GSC" in markers else GSC_OTHER_BONUS
        dest = self.destination_hex(corp) if self.destination_reached(corp) else None
        if not (scc or gscc or gsc or dest):
            return None

        def bonus(stops: Sequence[Node]) -> int:
            total = 0
            hexes = [s[0] for s in stops]
            if scc and any(h in scc for h in hexes):
                total += SCC_BONUS
            if gscc and any(h in gscc for h in hexes):
                total += GSC_CLOSED_BONUS
            if gsc and any(h in gsc for h in hexes):
                total += gsc_bonus
            if dest is not None:
                for end in (stops[0], stops[-1]):
                    if end[0] == dest:
                        total += self.state[end[0]].spec.nodes[end[1]].revenue_for(phase.tiles) * multiplier
                        break
            return total

        return bonus
