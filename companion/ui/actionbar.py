"""The action bar under the screens: the title's buttons now, grouped, their popups (a tile lay
picked hex first, each tile drawn as it would lie), and the finger's way to them (the demo and
the tests touch an action as a finger would)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kivy.core.window import Window
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.floatlayout import FloatLayout
from kivy.uix.gridlayout import GridLayout
from kivy.uix.image import Image
from kivy.uix.popup import Popup

from companion.ui import viewmodels as vm
from companion.ui.screens.base import (
    TILE_LIST_MAX,
    _Finger,
    _hex_order,
    _tile_order,
    scroll_of,
)
from companion.ui.widgets import (
    BAD,
    GOOD,
    Text,
    button,
    texture_from_bgr,
)

if TYPE_CHECKING:
    from companion.ui.app import CompanionApp


def refresh_actions(app: CompanionApp) -> None:
    u = app.u
    bar = app.actions_bar
    bar.clear_widgets()
    app.bar_stale = False
    routes = None
    if app.session.has_map:  # the suggested routes of the Operating screen, when they are this turn's
        op = app.operating_screen
        routes = op.routes if op.routes_for == op.key() else None
    choices = vm.action_choices(app.session.game, routes=routes)
    groups: dict[str, list[vm.ActionChoice]] = {}
    for c in choices:
        groups.setdefault(c.group, []).append(c)
    if not choices:
        words = "Game over: Setup starts a new game" if app.session.game.finished else "No actions (waiting)"
        bar.add_widget(Text(words, size=15 * u, fill=True))
        return
    table = app.session.service.title
    colors = {"go": GOOD, "quiet": "#6d4c41"}
    for group, items in groups.items():
        look = table.group_look(group)
        if len(items) == 1 or look != "popup" and len(items) <= 3:
            for c in items:
                color = colors.get(look, "#37474f")
                b = button(c.label, lambda c=c: app.propose(c.action), size=14 * u, color=color)
                b.choices = [c]
                bar.add_widget(b)
        else:
            title = table.group_name(group)
            b = button(f"{title} ({len(items)})", lambda t=title, i=items: app.choose(t, i), size=14 * u)
            b.choices = items
            bar.add_widget(b)


def touch(app: CompanionApp, action: dict[str, Any]) -> bool:
    """Press the on-screen button for ``action`` (opening its group's list, and a tile lay's hex,
    if needed), as a finger would; False if no button offers it.  The demo and the tests play
    touch actions this way."""
    from companion.ui.demo import same_action

    for b in list(app.actions_bar.children):
        choices = getattr(b, "choices", [])
        if not any(same_action(c.action, action) for c in choices):
            continue
        b.dispatch("on_press")
        return len(choices) == 1 or app.touch_in_popup(action)
    return False


def touch_map(app: CompanionApp, place: str) -> bool:
    """Touch ``place``'s dot on the Board screen's drawn map (a title that offers one), as a
    finger would; False if there is no such place on the map."""
    board = app.screens.get("board")
    netmap = getattr(board, "netmap", None)
    if netmap is None or netmap.network is None:
        return False
    if app.sm.current != "board":
        app.show("board")
    try:
        x, y = netmap.to_window(*netmap.where(netmap.network.place(place)))
    except StopIteration:
        return False
    return bool(netmap.on_touch_down(_Finger(x / Window.width, y / Window.height)))


def touch_in_popup(app: CompanionApp, action: dict[str, Any]) -> bool:
    """Press the open list's entry for ``action`` (and in a hex's list, its tile)."""
    from companion.ui.demo import same_action

    if app.popup is None:
        return False
    for _level in range(3):  # a list, perhaps a hex's list in it
        item = next(
            (
                i
                for i in list(app.popup_grid.children)
                if any(same_action(c.action, action) for c in getattr(i, "choices", []))
            ),
            None,
        )
        if item is None:
            return False
        if isinstance(item, BoxLayout):  # a tile's picture and its button
            item = next(w for w in item.children if not isinstance(w, Image))
        item.dispatch("on_press")
        if len(item.choices) == 1:
            return True
    return False


def choose(app: CompanionApp, title: str, items: list[vm.ActionChoice]) -> None:
    """A list of choices in a popup.  Many tile lays are picked hex first: a button per hex, then
    that hex's tiles and rotations, each drawn as it would lie on the map."""
    if app.popup is not None:
        app.popup.dismiss()
    lays = [c for c in items if c.tile]
    by_hex: dict[str, list[vm.ActionChoice]] = {}
    for c in lays:
        by_hex.setdefault(c.hex, []).append(c)
    if len(lays) == len(items) and len(items) > TILE_LIST_MAX and len(by_hex) > 1:
        _choose_hex(app, title, by_hex)
        return
    by_corporation = _by_corporation(items)
    if by_corporation:
        _choose_corporation(app, title, by_corporation)
        return
    u = app.u
    grid = GridLayout(cols=2 if app.width_px < 1000 else 3, size_hint_y=None, spacing=3)
    grid.bind(minimum_height=grid.setter("height"))
    popup = Popup(title=title, size_hint=(0.92, 0.85), title_size=16 * u)
    # each lay drawn as it would lie, also in a list of several hexes' lays (up to two dozen)
    pictures = _tile_pictures(app, lays) if lays and len(lays) <= 2 * TILE_LIST_MAX else {}
    for c in items:

        def pick(c: vm.ActionChoice = c) -> None:
            popup.dismiss()
            app.popup = None
            app.propose(c.action)

        picture = pictures.get(id(c))
        b = button(c.label, pick, size=14 * u, size_hint_y=None, height=(64 if picture else 44) * u)
        b.choices = [c]
        if picture is None:
            grid.add_widget(b)
            continue
        cell = BoxLayout(orientation="horizontal", size_hint_y=None, height=64 * u, spacing=3)
        cell.add_widget(Image(texture=picture, size_hint_x=None, width=64 * u, fit_mode="contain"))
        cell.add_widget(b)
        cell.choices = [c]
        grid.add_widget(cell)
    _open_popup(app, popup, grid)


def _choose_hex(app: CompanionApp, title: str, by_hex: dict[str, list[vm.ActionChoice]]) -> None:
    """First level of the tile picker: one button per hex, naming the tiles that may go there."""
    u = app.u
    grid = GridLayout(cols=3 if app.width_px < 1000 else 4, size_hint_y=None, spacing=3)
    grid.bind(minimum_height=grid.setter("height"))
    popup = Popup(title=f"{title} pick a hex", size_hint=(0.92, 0.85), title_size=16 * u)
    names = vm.location_names(app.session.g18)
    for hex_id in sorted(by_hex, key=_hex_order):
        options = by_hex[hex_id]
        tiles = sorted({c.tile for c in options}, key=_tile_order)
        name = names.get(hex_id)
        label = f"{hex_id}{' ' + name if name else ''}: {', '.join(tiles[:4])}{'…' if len(tiles) > 4 else ''}"

        def pick(h: str = hex_id, o: list[vm.ActionChoice] = options) -> None:
            app.choose(f"Lay a tile on {app.hex_words(h)}", o)

        b = button(label, pick, size=14 * u, size_hint_y=None, height=44 * u)
        b.choices = options
        grid.add_widget(b)
    _open_popup(app, popup, grid)


def _by_corporation(items: list[vm.ActionChoice]) -> dict[str, list[vm.ActionChoice]]:
    """A long list with several choices per corporation (a stock round's par prices: 54 in 1870),
    by corporation, to be picked corporation first; empty when the list is short or flat."""
    if len(items) <= TILE_LIST_MAX or any(not c.action.get("corporation") for c in items):
        return {}
    out: dict[str, list[vm.ActionChoice]] = {}
    for c in items:
        out.setdefault(str(c.action["corporation"]), []).append(c)
    return out if len(out) > 1 and len(items) >= 3 * len(out) else {}


def _choose_corporation(app: CompanionApp, title: str, by_corp: dict[str, list[vm.ActionChoice]]) -> None:
    """First level of a long list: one button per corporation (all in sight), then its choices."""
    u = app.u
    grid = GridLayout(cols=3 if app.width_px < 1000 else 4, size_hint_y=None, spacing=3)
    grid.bind(minimum_height=grid.setter("height"))
    popup = Popup(title=f"{title} pick a corporation", size_hint=(0.92, 0.85), title_size=16 * u)
    for corp, options in by_corp.items():

        def pick(c: str = corp, o: list[vm.ActionChoice] = options) -> None:
            app.choose(f"{title} {c}", o)

        b = button(f"{corp} ({len(options)})", pick, size=15 * u, size_hint_y=None, height=44 * u)
        b.choices = options
        b.corporation = corp
        grid.add_widget(b)
    _open_popup(app, popup, grid)


def _open_popup(app: CompanionApp, popup: Popup, grid: GridLayout) -> None:
    u = app.u
    body = BoxLayout(orientation="vertical")
    body.add_widget(scroll_of(grid))

    def close() -> None:
        popup.dismiss()
        app.popup = None

    body.add_widget(button("Close", close, size=15 * u, size_hint_y=None, height=40 * u, color=BAD))
    popup.content = body
    app.popup = popup
    app.popup_grid = grid
    popup.open()


def _tile_pictures(app: CompanionApp, lays: list[vm.ActionChoice]) -> dict[int, Any]:
    """A small picture of each lay's tile at its rotation (keyed by the choice's id)."""
    from vision.render import render_tile

    board = vm.board_state(app.session.g18)
    out: dict[int, Any] = {}
    for c in lays:
        try:
            img = render_tile(board.tile_shape(c.tile), c.rotation, board.layout, 56.0)
        except (KeyError, ValueError):
            continue
        out[id(c)] = texture_from_bgr(img)
    return out


def act_on_hex(app: CompanionApp, hex_id: str) -> None:
    """What may be done on one hex now (tile lays, a station token in its city, a private
    company's token), as a list; a toast says so when there is nothing."""
    choices = vm.choices_on_hex(app.session.g18, hex_id)
    if not choices:
        app.show_toast(vm.Proposal(hex_id, (), {}, f"nothing to lay or place on {hex_id} now"))
        return
    lays = all(c.tile for c in choices)
    app.choose(f"Lay a tile on {app.hex_words(hex_id)}" if lays else app.hex_words(hex_id), choices)


def hex_words(app: CompanionApp, hex_id: str) -> str:
    """``E12 (Springfield, MO)``: a hex by its coordinate and, if it has one, its city's name."""
    name = vm.location_names(app.session.g18).get(hex_id)
    return f"{hex_id} ({name})" if name else hex_id


class Settling(FloatLayout):  # type: ignore[misc]
    """The window's layout.  While the buttons are being rebuilt after a change, and for
    :data:`SETTLE_SECONDS` after they appear, a finger's touch is not handed on: it was aimed at
    what was on the screen before (on a loaded Pi the old action bar could show for seconds after
    Confirm, and a touch meant for it landed on whatever replaced it)."""

    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(**kw)
        self.app = app

    def on_touch_down(self, touch: Any) -> bool:
        if self.app.settling():
            self.app.note("[touch] ignored: the screen was changing")
            return True
        return bool(super().on_touch_down(touch))
