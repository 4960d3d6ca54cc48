"""The stock market grid: cells with a price and zone letters, and share price movement."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.engine.entities import Corporation

# Zone letters (see the title data README): meaning of each letter in a cell code.
ZONE_TYPES = {
    "p": "par",
    "c": "close",
    "y": "no_cert_limit",
    "o": "unlimited",
    "b": "multiple_buy",
    "i": "ignore_one_sale",
    "e": "endgame",
    "x": "par_1",
    "z": "par_2",
    "C": "convert_range",
    "m": "max_price",
}
FREE_OF_CERT_LIMIT = {"no_cert_limit", "unlimited", "multiple_buy"}


@dataclass(eq=False)
class Cell:
    row: int
    col: int
    price: int
    types: frozenset[str]
    corporations: list[Corporation] = field(default_factory=list)

    @property
    def coordinates(self) -> tuple[int, int]:
        return (self.row, self.col)

    @property
    def counts_for_limit(self) -> bool:
        return not (self.types & FREE_OF_CERT_LIMIT)

    @property
    def can_par(self) -> bool:
        return "par" in self.types

    def is_(self, kind: str) -> bool:
        return kind in self.types

    def __repr__(self) -> str:
        return f"<Cell {self.price} @{self.row},{self.col}>"

    def __deepcopy__(self, memo: dict[int, Any]) -> Cell:
        """A copy for a copy of the game: who sits here is copied, the rest (fixed) is shared."""
        other = copy.copy(self)
        memo[id(self)] = other
        other.corporations = copy.deepcopy(self.corporations, memo)
        return other


def parse_cell(code: str, row: int, col: int) -> Cell | None:
    if not code:
        return None
    m = re.fullmatch(r"(\d+)([A-Za-z]*)", code)
    if not m:
        raise ValueError(f"bad market cell {code!r} at row {row} column {col}")
    return Cell(row, col, int(m.group(1)), frozenset(ZONE_TYPES[ch] for ch in m.group(2)))


class StockMarket:
    """A two-dimensional market (1830-style).  Titles override the movement hooks."""

    def __init__(self, rows: list[list[str]]) -> None:
        self.grid: list[list[Cell | None]] = [
            [parse_cell(code, r, c) for c, code in enumerate(row)] for r, row in enumerate(rows)
        ]
        self.max_reached = False

    def snapshot_state(self) -> tuple[Callable[[], None], list[Any], list[Any]]:
        """This market's part of a game snapshot (companion.engine.snapshot): its attributes and
        who sits in each cell (the cells are otherwise fixed once built); the cells it covers; the
        corporations in them and its other attributes to look into.  Most cells are empty: they
        are noted as one shared empty tuple, so a snapshot makes few objects."""
        attrs = self.__dict__.copy()
        cells = [c for row in self.grid for c in row if c is not None]
        held: list[Any] = [c.corporations[:] if c.corporations else () for c in cells]

        def restore() -> None:
            self.__dict__.clear()
            self.__dict__.update(attrs)
            for cell, corporations in zip(cells, held, strict=True):
                cell.corporations[:] = corporations

        covered: list[Any] = [self.grid, *self.grid, *cells, *(c.corporations for c in cells)]
        refs = [v for k, v in attrs.items() if k != "grid"] + [x for corps in held for x in corps]
        return restore, covered, refs

    def cell(self, row: int, col: int) -> Cell | None:
        if row < 0 or row >= len(self.grid) or col < 0 or col >= len(self.grid[row]):
            return None
        return self.grid[row][col]

    def par_prices(self) -> list[Cell]:
        """The par cells, highest first (found once: the grid's cells do not change once built)."""
        cells: list[Cell] | None = getattr(self, "_par_cells", None)
        if cells is None:
            cells = [c for row in self.grid for c in row if c is not None and c.can_par]
            cells.sort(key=lambda c: (c.price, c.col, c.row), reverse=True)
            self._par_cells = cells
        return list(cells)

    def find_par(self, price: int) -> Cell | None:
        return next((c for c in self.par_prices() if c.price == price), None)

    # -- movement on coordinates (no side effects) ---------------------------------------------------
    def right(self, rc: tuple[int, int]) -> tuple[int, int]:
        r, c = rc
        if c + 1 >= len(self.grid[r]):
            return self.up(rc)
        return (r, c + 1)

    def left(self, rc: tuple[int, int]) -> tuple[int, int]:
        r, c = rc
        if c > 0 and self.cell(r, c - 1) is not None:
            return (r, c - 1)
        return self.down(rc)

    def up(self, rc: tuple[int, int]) -> tuple[int, int]:
        r, c = rc
        return (r - 1, c) if r - 1 >= 0 else (r, c)

    def down(self, rc: tuple[int, int]) -> tuple[int, int]:
        r, c = rc
        return (r + 1, c) if r + 1 < len(self.grid) else (r, c)

    def find_relative(self, corporation: Corporation, directions: list[str]) -> Cell:
        assert corporation.share_price is not None
        rc = corporation.share_price.coordinates
        found = corporation.share_price
        for d in directions:
            rc = getattr(self, d)(rc)
            found = self.cell(*rc) or found
        return found

    # -- moving a corporation ---------------------------------------------------------------------------
    def set_par(self, corporation: Corporation, cell: Cell) -> None:
        cell.corporations.append(corporation)
        corporation.share_price = cell
        corporation.par_price = cell

    def move(self, corporation: Corporation, rc: tuple[int, int]) -> None:
        target = self.cell(*rc)
        current = corporation.share_price
        if target is None or current is None or target is current:
            return
        current.corporations.remove(corporation)
        corporation.share_price = target
        target.corporations.append(corporation)
        if target.is_("endgame"):
            self.max_reached = True

    def move_right(self, corporation: Corporation) -> None:
        assert corporation.share_price is not None
        self.move(corporation, self.right(corporation.share_price.coordinates))

    def move_left(self, corporation: Corporation) -> None:
        assert corporation.share_price is not None
        self.move(corporation, self.left(corporation.share_price.coordinates))

    def move_up(self, corporation: Corporation) -> None:
        assert corporation.share_price is not None
        self.move(corporation, self.up(corporation.share_price.coordinates))

    def move_down(self, corporation: Corporation) -> None:
        assert corporation.share_price is not None
        self.move(corporation, self.down(corporation.share_price.coordinates))
