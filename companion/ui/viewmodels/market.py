"""The Market screen's view model: the stock market's cells and the corporations' tokens."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from companion.engine import Game
from companion.ui.viewmodels.common import PLAIN_CELL, ZONE_COLORS, ZONE_WORDS
from companion.ui.viewmodels.table import _text_color

# --------------------------------------------------------------------------------------------- market


@dataclass(frozen=True)
class MarketCell:
    row: int
    col: int
    price: int
    zones: tuple[str, ...]
    color: str
    par: bool
    tokens: tuple[str, ...]
    """Corporation symbols on the cell, in arrival order (the first one operates first)."""


@dataclass(frozen=True)
class MarketView:
    rows: tuple[tuple[MarketCell | None, ...], ...]
    legend: tuple[tuple[str, str], ...]
    """(colour, words) for every zone present."""
    token_colors: dict[str, tuple[str, str]] = field(default_factory=dict)
    """sym -> (background, text colour) for drawing the corporation tokens."""

    @property
    def width(self) -> int:
        return max((len(r) for r in self.rows), default=0)

    def cell_of(self, sym: str) -> MarketCell | None:
        for row in self.rows:
            for cell in row:
                if cell is not None and sym in cell.tokens:
                    return cell
        return None


def _zone_color(zones: Iterable[str]) -> str:
    zs = set(zones)
    for zone, color in ZONE_COLORS.items():
        if zone in zs:
            return color
    return PLAIN_CELL


def market_view(game: Game) -> MarketView:
    rows: list[tuple[MarketCell | None, ...]] = []
    present: set[str] = set()
    for row in game.market.grid:
        cells: list[MarketCell | None] = []
        for cell in row:
            if cell is None:
                cells.append(None)
                continue
            zones = tuple(sorted(cell.types))
            present.update(zones)
            cells.append(
                MarketCell(
                    row=cell.row,
                    col=cell.col,
                    price=cell.price,
                    zones=zones,
                    color=_zone_color(zones),
                    par=cell.can_par,
                    tokens=tuple(c.sym for c in cell.corporations if not c.closed),
                )
            )
        rows.append(tuple(cells))
    legend = tuple((ZONE_COLORS[z], ZONE_WORDS[z]) for z in ZONE_COLORS if z in present)
    colors = {c.sym: (c.color, _text_color(game, c.sym)) for c in game.corporations}
    return MarketView(tuple(rows), legend, colors)
