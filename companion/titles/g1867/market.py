"""1867's stock markets: the column market (one row) and the optional grid market.

On the column market "up" is a step right and "down" a step left.  A minor on a
maximum-price cell does not rise further.  On the grid a major that hits the ceiling
moves right and down one (its price unchanged).
"""

from __future__ import annotations

from companion.engine.entities import Corporation
from companion.engine.market import Cell, StockMarket


def corp_type(corporation: Corporation | None) -> str:
    return str(getattr(corporation, "type", "major"))


class Market1867(StockMarket):
    @property
    def one_d(self) -> bool:
        return len(self.grid) == 1

    def step_right(self, corporation: Corporation | None, rc: tuple[int, int]) -> tuple[int, int]:
        cell = self.cell(*rc)
        if corp_type(corporation) == "minor" and cell is not None and cell.is_("max_price"):
            return rc if self.one_d else self.step_up(corporation, rc)
        r, c = rc
        if self.one_d:
            return (r, c + 1) if c + 1 < len(self.grid[r]) else rc
        if c + 1 >= len(self.grid[r]):
            return self.step_up(corporation, rc)
        return (r, c + 1)

    def step_left(self, corporation: Corporation | None, rc: tuple[int, int]) -> tuple[int, int]:
        r, c = rc
        if self.one_d:
            return (r, c - 1) if c - 1 >= 0 else rc
        if c > 0 and self.cell(r, c - 1) is not None:
            return (r, c - 1)
        return self.step_down(corporation, rc)

    def step_up(self, corporation: Corporation | None, rc: tuple[int, int]) -> tuple[int, int]:
        if self.one_d:
            return self.step_right(corporation, rc)
        r, c = rc
        if r - 1 >= 0:
            return (r - 1, c)
        if corp_type(corporation) == "major":
            return (r + 1, c + 1)
        return rc

    def step_down(self, corporation: Corporation | None, rc: tuple[int, int]) -> tuple[int, int]:
        if self.one_d:
            return self.step_left(corporation, rc)
        r, c = rc
        return (r + 1, c) if r + 1 < len(self.grid) else rc

    def move_right(self, corporation: Corporation) -> None:
        assert corporation.share_price is not None
        self.move(corporation, self.step_right(corporation, corporation.share_price.coordinates))

    def move_left(self, corporation: Corporation) -> None:
        assert corporation.share_price is not None
        self.move(corporation, self.step_left(corporation, corporation.share_price.coordinates))

    def move_up(self, corporation: Corporation) -> None:
        assert corporation.share_price is not None
        self.move(corporation, self.step_up(corporation, corporation.share_price.coordinates))

    def move_down(self, corporation: Corporation) -> None:
        assert corporation.share_price is not None
        self.move(corporation, self.step_down(corporation, corporation.share_price.coordinates))

    def prices_with_types(self, types: tuple[str, ...]) -> list[Cell]:
        """Cells of any of ``types``, highest price first (18xx.games ``share_prices_with_types``;
        found once per ``types``: the grid's cells do not change once built)."""
        found: dict[tuple[str, ...], tuple[Cell, ...]] | None = getattr(self, "_cells_of_types", None)
        if found is None:
            found = {}
            self._cells_of_types = found
        cells = found.get(types)
        if cells is None:
            wanted = set(types)
            listed = [c for row in self.grid for c in row if c is not None and c.types & wanted]
            cells = found[types] = tuple(sorted(listed, key=lambda c: (c.price, c.col, -c.row), reverse=True))
        return list(cells)

    def relative(self, corporation: Corporation, moves: list[str]) -> tuple[int, int]:
        assert corporation.share_price is not None
        rc = corporation.share_price.coordinates
        for m in moves:
            rc = getattr(self, f"step_{m}")(corporation, rc)
        return rc
