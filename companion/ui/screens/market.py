"""The Market screen: the stock market's cells and the corporations' tokens on them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kivy.uix.boxlayout import BoxLayout
from kivy.uix.gridlayout import GridLayout
from kivy.uix.widget import Widget

from companion.ui import viewmodels as vm
from companion.ui.screens.base import (
    BaseScreen,
)
from companion.ui.widgets import (
    Text,
    paint,
    row,
)

if TYPE_CHECKING:  # the shell shows the screens
    from companion.ui.app import CompanionApp


class MarketScreen(BaseScreen):
    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(app, name="market", **kw)
        self.box = BoxLayout(orientation="vertical", padding=2, spacing=2)
        self.add_widget(self.box)

    def refresh(self) -> None:
        u = self.u
        mv = vm.market_view(self.app.session.g18)
        self.box.clear_widgets()
        grid = GridLayout(cols=mv.width, spacing=1)
        for cells in mv.rows:
            for i in range(mv.width):
                cell = cells[i] if i < len(cells) else None
                if cell is None:
                    grid.add_widget(Widget())
                    continue
                box = BoxLayout(orientation="vertical", padding=1, spacing=1)
                paint(box, cell.color, border="#9e9e9e" if not cell.par else "#1b5e20")
                price = Text(f"{cell.price}", size=11 * u, bold=cell.par, halign="center", fill=True)
                box.add_widget(_fitted(price, 11 * u))
                for sym in cell.tokens[:3]:
                    bg, fg = mv.token_colors.get(sym, ("#888888", "#ffffff"))
                    tok = Text(
                        sym,
                        size=9 * u,
                        bold=True,
                        color=fg,
                        halign="center",
                        id_name=f"token:{sym}",
                        fill=True,
                    )
                    paint(tok, bg)
                    box.add_widget(_fitted(tok, 9 * u))
                grid.add_widget(box)
        self.box.add_widget(grid)
        legend = row(height=20 * u)
        for color, words in mv.legend:
            chip = Text(words, size=11 * u, halign="center", fill=True)
            paint(chip, color)
            legend.add_widget(chip)
        self.box.add_widget(legend)


def _fitted(label: Text, largest: float) -> Text:
    """A cell's label whose letters fit its share of the cell: two or three corporations' tokens on
    one price share its height, each written smaller rather than over its neighbour."""

    def fit(*_: object) -> None:
        label.font_size = max(6.0, min(largest, label.height * 0.78))

    label.bind(height=fit)
    return label
