"""The Cards screen (from Setup): the open game's cards by name, to tap on the simulated reader, to
enroll a tag on, or to name the card an unknown tag is on.

Every touch goes to the device runtime (:mod:`companion.devices`), as the reader's taps do:

* **Tap** (a simulated reader only): a card touched is put on the reader; the table service
  proposes what it means, the toast shows it as for a real tap;
* **Enroll**: a card touched waits for the next tap, which enrolls that tag on it (with the
  simulated reader, **A new tag** is a blank sticker put on the reader);
* an unknown tag tapped offers "Enroll this card" on its toast: this screen opens asking which
  card carries it, and a card touched gets it.

The cards are the open game's (its title, its optional rules, its players' names), or before a
game the title chosen on the New game screen; a corporation's certificates, companies, trains and
player cards each under their own button.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kivy.uix.boxlayout import BoxLayout
from kivy.uix.gridlayout import GridLayout

from companion.devices import Card, card_groups
from companion.ui.screens.base import BaseScreen, scroll_of
from companion.ui.widgets import ACCENT, GOOD, Text, button, row

if TYPE_CHECKING:  # the shell shows the screens
    from companion.ui.app import CompanionApp

#: what a touch on a card does
TAP = "tap"
ENROLL = "enroll"
NAME_TAG = "name_tag"
"""A tag no card carries was tapped: the card touched gets it."""

#: a tagged card's button says so
TAGGED = " · tag"


class CardsScreen(BaseScreen):
    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(app, name="cards", **kw)
        self.mode = TAP
        self.unknown: str | None = None
        """The unknown tag being named (``NAME_TAG``)."""
        self.group: str | None = None
        self.cards: list[Card] = []
        box = BoxLayout(orientation="vertical", spacing=3, padding=(4, 2))
        self.heading = Text("", size=17 * self.u, bold=True, id_name="cards-heading")
        self.status = Text("", size=14 * self.u, wrap=True, id_name="cards-status")
        self.modes = row(height=44 * self.u, spacing=3)
        self.groups = GridLayout(cols=7, size_hint_y=None, spacing=2)
        self.groups.bind(minimum_height=self.groups.setter("height"))
        self.list = GridLayout(cols=3, size_hint_y=None, spacing=3, padding=(0, 2))
        self.list.bind(minimum_height=self.list.setter("height"))
        for w in (self.heading, self.modes, self.groups, self.status):
            box.add_widget(w)
        box.add_widget(scroll_of(self.list))
        self.add_widget(box)

    # -- what the screen is asked to do ------------------------------------------------------------------
    def open(self, mode: str, uid: str | None = None) -> None:
        """Show the cards for ``mode`` (``NAME_TAG``: which card carries tag ``uid``)."""
        self.mode = mode
        self.unknown = uid
        if mode == TAP and not self.app.devices.simulated:
            self.mode = ENROLL  # a real board is tapped by hand, not from here
        self.status.text = self.hint()
        self.app.show("cards")

    def hint(self) -> str:
        devices = self.app.devices
        if self.mode == NAME_TAG:
            return f"Which card carries tag {self.unknown}? Touch it to enroll the tag on it."
        if self.mode == ENROLL:
            waiting = devices.enrolling
            if waiting is not None:
                more = " (or touch A new tag)" if devices.simulated else ""
                return f"Tap the tag of {waiting.label} on the reader{more}; Cancel stops."
            return "Touch a card, then tap its tag on the reader."
        return "Touch a card to put it on the reader; its proposal appears below."

    def said(self, text: str) -> None:
        """What the device runtime answered (an enrollment, a refusal)."""
        self.status.text = text

    def touched(self, card: Card) -> None:
        devices = self.app.devices
        if self.mode == NAME_TAG:
            notice = devices.enroll(self.unknown, card.item)
            if notice.ok:
                self.mode, self.unknown = (TAP if devices.simulated else ENROLL), None
                self.app.hide_toast()
            self.status.text = notice.text[:1].upper() + notice.text[1:]
            self.refresh()
            return
        if self.mode == ENROLL:
            devices.enroll_next(card.item)
            self.status.text = self.hint()
            self.refresh()
            return
        try:
            devices.tap_card(card.item)
        except (ValueError, OSError) as err:
            self.status.text = str(err)
            return
        self.status.text = f"{card.name} put on the reader"

    def new_tag(self) -> None:
        try:
            uid = self.app.devices.tap_new_tag()
        except ValueError as err:
            self.status.text = str(err)
            return
        self.status.text = f"A new tag {uid} put on the reader"

    def leave_enrollment(self) -> None:
        if self.app.devices.enrolling is not None:
            self.app.devices.enroll_next(None)
        self.status.text = self.hint()

    def set_mode(self, mode: str) -> None:
        if mode != ENROLL:
            self.leave_enrollment()
        self.mode, self.unknown = mode, None
        self.status.text = self.hint()
        self.refresh()

    def choose_group(self, group: str) -> None:
        self.group = group
        self.refresh()

    # -- drawing -----------------------------------------------------------------------------------------
    def refresh(self) -> None:
        u = self.u
        app = self.app
        simulated = app.devices.simulated
        self.cards = app.game_cards()
        title = app.table_title()
        self.heading.text = {
            TAP: f"Tap a card: {title} (simulated reader)",
            ENROLL: f"Enroll tags: {title}",
            NAME_TAG: f"Enroll tag {self.unknown}: {title}",
        }[self.mode]
        self.modes.clear_widgets()
        if simulated:
            self.modes.add_widget(
                button(
                    "Tap",
                    lambda: self.set_mode(TAP),
                    size=15 * u,
                    color=ACCENT if self.mode == TAP else "#546e7a",
                )
            )
        self.modes.add_widget(
            button(
                "Enroll",
                lambda: self.set_mode(ENROLL),
                size=15 * u,
                color=ACCENT if self.mode != TAP else "#546e7a",
            )
        )
        if simulated:
            self.modes.add_widget(button("A new tag", self.new_tag, size=15 * u, color="#546e7a"))
        if self.mode == ENROLL:
            self.modes.add_widget(button("Cancel", self.leave_enrollment, size=15 * u, color="#546e7a"))
        self.modes.add_widget(button("Back to Setup", self.back, size=15 * u, color="#37474f"))
        waiting = app.devices.enrolling
        groups = card_groups(self.cards)
        if self.group not in groups:
            self.group = next(iter(groups), None)
        self.groups.clear_widgets()
        for name, cards in groups.items():
            tagged = sum(c.uid is not None for c in cards)
            label = name if self.mode == TAP else f"{name} {tagged}/{len(cards)}"
            b = button(
                label,
                lambda n=name: self.choose_group(n),
                size=13 * u,
                color=ACCENT if name == self.group else "#607d8b",
                size_hint_y=None,
                height=40 * u,
            )
            b.card_group = name
            self.groups.add_widget(b)
        self.list.clear_widgets()
        for card in groups.get(self.group or "", []):
            text = card.short + (TAGGED if card.uid is not None and self.mode != TAP else "")
            b = button(
                text,
                lambda c=card: self.touched(c),
                size=14 * u,
                color=GOOD if self.mode == NAME_TAG else ACCENT if waiting == card.item else "#455a64",
                size_hint_y=None,
                height=48 * u,
            )
            b.card = card.name
            self.list.add_widget(b)

    def back(self) -> None:
        self.leave_enrollment()
        self.app.show("setup")
