"""The Shares screen: players by corporations, IPO, market, treasury, state, last run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kivy.uix.boxlayout import BoxLayout
from kivy.uix.gridlayout import GridLayout

from companion.ui import viewmodels as vm
from companion.ui.screens.base import (
    BaseScreen,
    scroll_of,
)
from companion.ui.widgets import (
    ACCENT,
    INK,
    PAPER,
    Text,
    paint,
)

if TYPE_CHECKING:  # the shell shows the screens
    from companion.ui.app import CompanionApp


class SharesScreen(BaseScreen):
    """The spreadsheet: players × corporations (as 18xx.games shows it), then each corporation's
    IPO and market shares, price, treasury, trains, tokens, state and last run."""

    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(app, name="shares", **kw)
        self.box = BoxLayout(orientation="vertical", padding=2)
        self.add_widget(self.box)

    def refresh(self) -> None:
        u = self.u
        tv = vm.table_view(self.app.session.g18)
        sheet = vm.spreadsheet(tv)
        self.box.clear_widgets()
        grid = GridLayout(cols=len(sheet.columns) + 1, size_hint_y=None, spacing=1)
        grid.bind(minimum_height=grid.setter("height"))
        height = 22 * u
        corp_colors = {c.sym: (c.color, c.text_color) for c in tv.corporations}

        def cell(
            text: str, *, bold: bool = False, bg: str = "#ece6d6", fg: str = INK, name: str = ""
        ) -> None:
            label = Text(
                text,
                size=12 * u,
                bold=bold,
                color=fg,
                halign="center",
                size_hint_y=None,
                height=height,
                id_name=name,
            )
            paint(label, bg)
            grid.add_widget(label)

        cell("", bg=PAPER)
        for col in sheet.columns:
            bg, fg = corp_colors.get(col, ("#cfd8dc", INK))
            cell(col, bold=True, bg=bg, fg=fg)
        for r in sheet.rows:
            bg = ACCENT if r.acting else ("#dcd3bd" if r.kind == "corporation" else "#ece6d6")
            cell(r.label, bold=True, bg=bg)
            for col, value in zip(sheet.columns, r.cells, strict=True):
                cell(value, bg=bg, name=f"sheet:{r.label}:{col}")
        self.box.add_widget(scroll_of(grid))
