"""The Table screen (an 18xx title): the bank, the players, the corporations, the auction."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kivy.uix.gridlayout import GridLayout

from companion.ui import viewmodels as vm
from companion.ui.screens.base import (
    ListScreen,
    add_panel,
    vgrid,
)
from companion.ui.screens.history import add_charts, with_story
from companion.ui.viewmodels.history import Story
from companion.ui.widgets import (
    ACCENT,
    BAD,
    INK,
    Text,
    paint,
    row,
)

if TYPE_CHECKING:  # the shell shows the screens
    from companion.ui.app import CompanionApp


class TableScreen(ListScreen):
    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(app, "table", **kw)

    def refresh(self) -> None:
        u = self.u
        tv = vm.table_view(self.app.session.g18)
        g = self.grid
        g.clear_widgets()
        if tv.finished and tv.result:
            best = tv.result[0][1]
            g.add_widget(
                Text(
                    f"{tv.winner} wins with {tv.money(best)}",
                    size=22 * u,
                    bold=True,
                    id_name="winner",
                )
            )
            g.add_widget(
                Text(
                    "Final: "
                    + ", ".join(f"{n} {tv.money(v)}" for n, v in tv.result)
                    + (" · the bank broke" if tv.bank_broken else ""),
                    size=15 * u,
                    wrap=True,
                    id_name="final",
                )
            )
            story_box = vgrid(2)  # the game's story: net worth and share prices by round
            g.add_widget(story_box)

            def fill(shown: Story, box: GridLayout = story_box) -> None:
                box.clear_widgets()
                add_charts(self.app, box, shown, ("worth", "prices"))

            with_story(self.app, fill)
        for n, panel in enumerate(tv.panels):  # the title's own tables (1833NE's takeover offers)
            add_panel(g, panel, n, u, prefix="table:", kept=self.kept_panels)
        if tv.auction_under_way:
            g.add_widget(
                Text(tv.auction_under_way, size=16 * u, bold=True, wrap=True, id_name="auction-under-way")
            )
        if tv.auction:
            g.add_widget(Text("Private companies for sale", size=15 * u, bold=True))
            # two to a line, so every player is in sight below them at 800×480
            sale = GridLayout(cols=2, size_hint_y=None, spacing=(6 * u, 0))
            sale.bind(minimum_height=sale.setter("height"))
            for a in tv.auction:
                sale.add_widget(Text(a.text, size=13 * u, wrap=True, id_name=f"auction:{a.sym}"))
            g.add_widget(sale)
        head = row(
            Text("Player", size=14 * u, bold=True, fill=True),
            Text("Cash", size=14 * u, bold=True, size_hint_x=0.55, fill=True),
            Text("Worth", size=14 * u, bold=True, size_hint_x=0.6, fill=True),
            Text("Certs", size=14 * u, bold=True, size_hint_x=0.4, fill=True),
            Text("Certificates", size=14 * u, bold=True, size_hint_x=2.2, fill=True),
            height=24 * u,
        )
        g.add_widget(head)
        for p in tv.players:
            name = p.name + (" [PD]" if p.priority else "")
            certs = ", ".join(p.certificates + tuple(f"{c} private" for c in p.companies)) or "-"
            line = row(
                Text(name, size=19 * u, bold=p.acting, id_name=f"player:{p.name}", fill=True),
                Text(
                    tv.money(p.cash),
                    size=19 * u,
                    bold=True,
                    size_hint_x=0.55,
                    fill=True,
                    id_name=f"cash:{p.name}",
                ),
                Text(tv.money(p.value), size=16 * u, size_hint_x=0.6, fill=True, id_name=f"worth:{p.name}"),
                Text(
                    p.certs_text,
                    size=17 * u,
                    size_hint_x=0.4,
                    color=BAD if p.over_limit else INK,
                    fill=True,
                    id_name=f"certs:{p.name}",
                ),
                Text(certs, size=14 * u, size_hint_x=2.2, wrap=True, fill=True),
                height=40 * u,
            )
            paint(line, ACCENT if p.acting else "#ece6d6")
            g.add_widget(line)
        if tv.corporations:
            corps = GridLayout(cols=4 if self.app.width_px < 1000 else 5, size_hint_y=None, spacing=3)
            corps.bind(minimum_height=corps.setter("height"))
            for c in tv.corporations:
                price = tv.money(c.share_price) if c.share_price else "-"
                trains = " ".join(c.trains) or "no trains"
                ran = f" · ran {tv.money(c.last_revenue)}" if c.last_revenue is not None else ""
                status = f"{c.kind} · {c.status}" if c.kind else c.status
                loans = f"\n{c.loans_text}" if c.loans_text else ""
                shares = {"national": "run by the bank", "minor": f"held by {c.president}"}.get(
                    c.kind, c.shares_text
                )
                chip = Text(
                    f"[b]{c.sym}[/b] {tv.money(c.cash)} @ {price} · {status}\n"
                    f"{shares}{ran}\n{trains} · tokens {c.tokens_left}/{c.tokens_total}{loans}",
                    size=12 * u,
                    color=c.text_color,
                    markup=True,
                    halign="center",
                    wrap=True,
                    id_name=f"corp:{c.sym}",
                )
                paint(chip, c.color, border=ACCENT if c.acting else None)
                corps.add_widget(chip)
            g.add_widget(corps)
        limit = tv.train_limit_text or str(tv.train_limit)
        info = f"Phase {tv.phase} · train limit {limit} · certificate limit {tv.cert_limit}"
        if tv.next_trains:
            info += " · next trains: " + ", ".join(tv.next_trains)
        if tv.loans_left is not None:
            info += f" · loans left {tv.loans_left}"
        g.add_widget(Text(info, size=13 * u, wrap=True))
