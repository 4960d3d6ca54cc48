"""The toast: a proposal with what it moves, its options and price steps, Confirm and Cancel; or
why it is not possible, with OK.  It takes the action bar's place while it is shown."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from kivy.uix.boxlayout import BoxLayout

from companion.ui import viewmodels as vm
from companion.ui.widgets import (
    ACCENT,
    BAD,
    GOOD,
    Text,
    button,
    paint,
    row,
)

if TYPE_CHECKING:
    from companion.ui.app import CompanionApp


#: buttons a toast offers besides its own (the unknown tag's "Enroll this card"): label, what it does
Extra = Sequence[tuple[str, Callable[[], None]]]


def show_toast(app: CompanionApp, prop: vm.Proposal, extra: Extra = ()) -> None:
    """The proposal with Confirm / Cancel (and its options), or its error with OK (and ``extra``
    buttons before it), over the bottom."""
    u = app.u
    app.hide_toast()
    stepper = prop.ok and prop.price is not None
    # a long sentence (a two-link build) is written smaller on two lines rather than cut off
    long = len(prop.text) * 20 * u * 0.55 > app.width_px - 24
    height = (150 + (26 if long else 0) + (44 if prop.options else 0) + (44 if stepper else 0)) * u
    toast = BoxLayout(orientation="vertical", size_hint=(1, None), height=height)
    toast.padding = (10, 6)
    toast.spacing = 4
    paint(toast, "#212121" if prop.ok else "#4e1111", border=ACCENT)
    toast.add_widget(
        Text(prop.text, size=(17 if long else 20) * u, bold=True, color="#ffffff", id_name="toast", wrap=long)
    )
    detail = "; ".join(prop.details) if prop.ok else f"Not possible: {prop.error}"
    toast.add_widget(Text(detail, size=14 * u, color="#eeeeee", wrap=True, fill=True))
    if prop.options:
        options = row(height=40 * u, spacing=3)
        for i, label in enumerate(prop.options[:10]):
            color = ACCENT if i == prop.selected else "#455a64"
            options.add_widget(button(label, lambda i=i: app.session.choose(i), size=15 * u, color=color))
        toast.add_widget(options)
    if stepper:
        prices = row(height=40 * u, spacing=3)
        for steps in (-5, -1, 1, 5):
            price = prop.stepped_price(steps)
            label = ("+" if steps > 0 else "−") + app.session.service.money(
                abs(steps) * max(1, prop.price_step)
            )
            b = button(
                label,
                lambda p=price: app.session.set_price(int(p)) if p is not None else None,
                size=15 * u,
                color="#455a64",
            )
            b.price_step = steps
            prices.add_widget(b)
        toast.add_widget(prices)
    if prop.ok:
        toast.add_widget(
            row(
                button("Confirm", app.confirm, size=20 * u, color=GOOD),
                button("Cancel", app.cancel, size=20 * u, color=BAD),
                height=56 * u,
                spacing=12,
            )
        )
    else:
        offered = [button(label, do, size=20 * u, color=GOOD) for label, do in extra]
        toast.add_widget(
            row(
                *offered,
                button("OK", app.dismiss, size=20 * u, color="#616161"),
                height=56 * u,
                spacing=12,
            )
        )
    app.toast = toast
    # the toast takes the action bar's place and the screen above it shrinks (it scrolls), so
    # the toast never covers what it talks about: the player, the map, the log entry
    if app.actions_bar.parent is app.main:
        app.main.remove_widget(app.actions_bar)
    app.main.add_widget(toast)
    app.changed_on_screen()
