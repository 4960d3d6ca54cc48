"""The Kivy touchscreen: Table, Market, Operating, Log, Taps and camera, Setup.

Import this module only after :func:`companion.ui.kivyconf.configure_kivy` (Kivy reads its
configuration at import time).  The screens lay out :mod:`companion.ui.viewmodels`; every change goes
through the table service (:class:`~companion.ui.session.UISession`) as a proposal shown in a toast
with Confirm / Cancel.  Route searches, map rendering and camera checks run in a worker
thread; a progress bar appears when they take longer than 0.3 s, and results come back
to the UI thread with ``Clock.schedule_once``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.popup import Popup
from kivy.uix.screenmanager import NoTransition, ScreenManager
from kivy.uix.widget import Widget

from companion.config import GameConfig
from companion.devices import Card, DeviceRuntime, Notice, NoticeKind
from companion.ui import actionbar, onscreen, toast
from companion.ui import viewmodels as vm
from companion.ui.screens.base import (
    BOARD_SCREENS,
    CHECK_FRAMES,
    PROGRESS_SHOWN,
    SCREENS,
    SETTLE_FRAMES,
    SETTLE_SECONDS,
    TITLES,
    BaseScreen,
    Work,
)
from companion.ui.screens.board import (
    BoardScreen,
)
from companion.ui.screens.calibration import (
    CalibrationScreen,
)
from companion.ui.screens.camera import (
    CameraScreen,
    check_board,
)
from companion.ui.screens.cards import NAME_TAG, CardsScreen
from companion.ui.screens.history import HistoryScreen
from companion.ui.screens.log import (
    LogScreen,
)
from companion.ui.screens.map import (
    MapScreen,
)
from companion.ui.screens.market import (
    MarketScreen,
)
from companion.ui.screens.operating import (
    OperatingScreen,
)
from companion.ui.screens.setup import (
    SetupScreen,
)
from companion.ui.screens.shares import (
    SharesScreen,
)
from companion.ui.screens.table import (
    TableScreen,
)
from companion.ui.session import UISession
from companion.ui.widgets import (
    ACCENT,
    DARK,
    INK,
    Text,
    button,
    paint,
    repaint,
    rgba,
    row,
)


class CompanionApp(App):  # type: ignore[misc]
    """The touchscreen.  ``session`` holds the game; ``camera``/``recognizer`` are optional."""

    title = "18xx table companion"

    def __init__(
        self,
        session: UISession | None,
        *,
        camera: Any = None,
        recognizer_factory: Callable[[], Any] | None = None,
        store: Any = None,
        registry: Any = None,
        check_interval: float | None = None,
        devices: DeviceRuntime | None = None,
        title: str | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(**kw)
        self.configured_title = title or GameConfig().title
        """The configured title: the New game screen offers it first."""
        self._session = session
        """``None`` until a game is started on the New game screen (a first launch stores nothing)."""
        self.devices = devices if devices is not None else DeviceRuntime(registry)
        """The reader, the panel and enrolment (:mod:`companion.devices`): taps reach the open game's
        table service through it; the app only listens, on its own thread."""
        self.devices.enroll_on_the_spot = True  # an unknown tag's toast offers to enroll it
        self.devices.listen(lambda notice: self.post(lambda: self._device_notice(notice)))
        self.camera = camera
        self.recognizer_factory = recognizer_factory
        self.check_interval = check_interval
        """Seconds between the board watch's frames (``None``: only the Check button looks)."""
        self._watch: Any = None
        self.store = store
        self.registry = registry
        self.busy: dict[str, Work] = {}
        self.width_px, self.height_px = Window.size
        self.u = min(self.width_px / 800, self.height_px / 480)
        self.toast: BoxLayout | None = None
        self.popup: Popup | None = None
        self.popup_grid: Any = None
        self.notes: list[str] = []
        self._tick: Any = None
        self.story_cache: tuple[tuple[int, int], vm.Story] | None = None
        """The open game's story (History screen) and the game and action count it is of."""
        self._settled_at = 0.0
        self._settled_frame = 0
        self.ticks = 0
        """Turns of the UI loop so far (a touch queued while it was stuck arrives in the next turns)."""
        """Touches are taken again from this time (``time.monotonic``): see :meth:`settling`."""
        self.bar_stale = False
        """Confirm was pressed and the action bar not yet rebuilt for the new state: it shows no buttons."""

    @property
    def session(self) -> UISession:
        """The open game's session (only asked for when there is a game: see :attr:`has_game`)."""
        if self._session is None:
            raise RuntimeError("no game is open: start one on the New game screen")
        return self._session

    @property
    def has_game(self) -> bool:
        return self._session is not None

    def events(self) -> list[str]:
        """What happened, in words (the open game's transcript, or the app's notes before one)."""
        return self._session.events if self._session is not None else self.notes

    # -- building ---------------------------------------------------------------------------------------
    def on_start(self) -> None:
        """The reader starts delivering taps once the window is up (its answers need the UI clock)."""
        self.devices.start()

    def on_stop(self) -> None:
        """Let running work (a route search, a camera check) finish before the process ends: a
        thread stopped inside OpenCV at interpreter exit aborts the process."""
        deadline = time.monotonic() + 20.0
        for work in list(self.busy.values()):
            work.thread.join(timeout=max(0.0, deadline - time.monotonic()))

    def build(self) -> Widget:
        from companion.ui.keyboard import OneFingerKeyboard

        Window.set_vkeyboard_class(OneFingerKeyboard)  # its Shift works with one finger
        u = self.u
        root = actionbar.Settling(self)
        main = BoxLayout(orientation="vertical")
        top = row(height=58 * u, padding=(6, 2), spacing=8)
        paint(top, DARK)
        self.bank = Text(
            "", size=30 * u, bold=True, color="#ffffff", size_hint_x=1.0, id_name="bank", fill=True
        )
        self.round_label = Text("", size=15 * u, color="#cfd8dc", size_hint_x=1.1, fill=True)
        self.acting = Text(
            "",
            size=26 * u,
            bold=True,
            color=INK,
            halign="center",
            size_hint_x=1.2,
            id_name="acting",
            fill=True,
        )
        paint(self.acting, ACCENT)
        top.add_widget(self.bank)
        top.add_widget(self.round_label)
        top.add_widget(self.acting)
        main.add_widget(top)
        nav = row(height=42 * u, spacing=2)
        self.nav = nav
        self.nav_buttons: dict[str, Any] = {}
        for name in (*SCREENS, "board"):
            b = button(TITLES[name], lambda n=name: self.show(n), size=15 * u, color="#546e7a")
            self.nav_buttons[name] = b
        self._nav_shown: tuple[str, ...] = ()
        self._show_nav(SCREENS)
        main.add_widget(nav)
        self.sm = ScreenManager(transition=NoTransition())
        self.screens: dict[str, BaseScreen] = {
            "table": TableScreen(self),
            "board": BoardScreen(self),
            "shares": SharesScreen(self),
            "market": MarketScreen(self),
            "operating": OperatingScreen(self),
            "log": LogScreen(self),
            "history": HistoryScreen(self),
            "map": MapScreen(self),
            "camera": CameraScreen(self),
            "setup": SetupScreen(self),
            "calibrate": CalibrationScreen(self),
            "cards": CardsScreen(self),
        }
        for s in self.screens.values():
            self.sm.add_widget(s)
        main.add_widget(self.sm)
        self.actions_bar = row(height=62 * u, spacing=3, padding=(2, 2))
        paint(self.actions_bar, "#cfd8dc")
        main.add_widget(self.actions_bar)
        root.add_widget(main)
        self.main = main
        self.root_layout = root
        if self._session is not None:
            self._attach(self._session)
        else:
            self.sm.current = "setup"
        self.refresh()
        self._tick = Clock.schedule_interval(self._progress_tick, 0.25)
        Clock.schedule_interval(self._count_tick, 0)
        if self.camera is not None and self.check_interval:
            Clock.schedule_interval(lambda _dt: self.camera_check(frames=1, quiet=True), self.check_interval)
        return root

    def _count_tick(self, _dt: float) -> None:
        self.ticks += 1

    def _progress_tick(self, _dt: float) -> None:
        """While work runs, redraw the screen that shows its progress (Operating: the route search,
        camera: the check).  Other work (a map being drawn) shows none: rebuilding the screen for it
        would only keep its tables from settling."""
        if any(name in self.busy for name in PROGRESS_SHOWN.get(self.sm.current, ())):
            screen = self.screens[self.sm.current]
            tick = getattr(screen, "tick", None)
            if tick is not None:
                tick()  # the progress bar alone, not a rebuilt screen
            else:
                self.refresh_screen()

    # -- refresh ---------------------------------------------------------------------------------------
    def refresh(self) -> None:
        if self._session is None:
            self.refresh_without_game()
            return
        for b in self.nav_buttons.values():
            b.disabled = False
        if not self.session.has_map:
            self._refresh_board_title()
            return
        self._show_nav(SCREENS)
        tv = vm.table_view(self.session.g18)
        self.bank.text = tv.bank_text
        self.round_label.text = f"{tv.title} · {tv.round}\nPhase {tv.phase}"
        self.acting.text = tv.headline
        corp = next((c for c in tv.corporations if c.acting), None)
        repaint(self.acting, corp.color if corp else ACCENT)
        self.acting.color = rgba(corp.text_color if corp else INK)
        for name, b in self.nav_buttons.items():
            b.background_color = rgba("#263238" if name == self.sm.current else "#546e7a")
        before = self.bar_buttons()
        self.refresh_actions()
        self.refresh_screen()
        if self.bar_buttons() != before:  # a refresh that moved no button (the camera watch) takes no touch
            self.changed_on_screen()

    def _show_nav(self, names: tuple[str, ...]) -> None:
        """The screen buttons of the open game's kind (an 18xx's screens, or a title's board)."""
        if names == self._nav_shown:
            return
        self.nav.clear_widgets()
        for name in names:
            self.nav.add_widget(self.nav_buttons[name])
        self._nav_shown = names

    def _refresh_board_title(self) -> None:
        """The top bar, buttons and screen of a title without a map."""
        self._show_nav(BOARD_SCREENS)
        if self.sm.current not in (*BOARD_SCREENS, "cards"):
            self.sm.current = "board"
        bv = vm.board_view(self.session.game)
        self.bank.text = bv.bank_text
        self.round_label.text = f"{bv.title} · {bv.round}" + (f"\nPhase {bv.phase}" if bv.phase else "")
        self.acting.text = bv.headline
        repaint(self.acting, ACCENT)
        self.acting.color = rgba(INK)
        for name, b in self.nav_buttons.items():
            b.background_color = rgba("#263238" if name == self.sm.current else "#546e7a")
        before = self.bar_buttons()
        self.refresh_actions()
        self.refresh_screen()
        if self.bar_buttons() != before:  # a refresh that moved no button (the camera watch) takes no touch
            self.changed_on_screen()

    def refresh_without_game(self) -> None:
        """A first launch: only the New game screen, nothing to act on."""
        u = self.u
        self.bank.text = "New game"
        self.round_label.text = "18xx table companion"
        self.acting.text = "Who is playing?"
        repaint(self.acting, ACCENT)
        self.acting.color = rgba(INK)
        if self.sm.current not in ("calibrate", "cards"):  # the camera and the tags need no game
            self.sm.current = "setup"
        for name, b in self.nav_buttons.items():
            b.disabled = name != "setup"
            b.background_disabled_normal = ""
            b.background_color = rgba("#263238" if name == "setup" else "#90a4ae")
        self.bar_stale = False
        self.actions_bar.clear_widgets()
        self.actions_bar.add_widget(
            Text(
                "Choose the title, the players and the rules, then Start the game",
                size=15 * u,
                fill=True,
                id_name="no-game",
            )
        )
        self.refresh_screen()

    def refresh_screen(self) -> None:
        self.screens[self.sm.current].refresh()

    def bar_buttons(self) -> tuple[str, ...]:
        """The action bar's buttons now, by their words, in order (what a finger aims at)."""
        return tuple(str(getattr(b, "text", "")) for b in self.actions_bar.children)

    def changed_on_screen(self) -> None:
        """The buttons have just changed (rebuilt, a toast shown or hidden): a touch in the next
        :data:`SETTLE_SECONDS` was aimed at what was there before and is ignored."""
        self._settled_at = time.monotonic() + SETTLE_SECONDS
        self._settled_frame = self.ticks + SETTLE_FRAMES

    def settling(self) -> bool:
        """True while a touch would land on buttons the player has not seen yet: Confirm was pressed
        and the action bar is not rebuilt, or the buttons changed moments ago."""
        return (
            self.bar_stale
            or time.monotonic() < self._settled_at
            # a machine so loaded that the new buttons were not drawn yet: touches queued meanwhile
            # arrive in the first frames after them, however late by the clock
            or self.ticks < self._settled_frame
        )

    @property
    def operating_screen(self) -> OperatingScreen:
        screen = self.screens["operating"]
        assert isinstance(screen, OperatingScreen)
        return screen

    def show(self, name: str) -> None:
        self.sm.current = name
        # a screen shown for the first time takes the screen area now, not on a later layout pass
        # (until then it drew below the screen buttons, leaving a blank band under them)
        screen = self.sm.current_screen
        screen.pos, screen.size = self.sm.pos, self.sm.size
        self.refresh()

    def refresh_actions(self) -> None:
        actionbar.refresh_actions(self)

    def touch(self, action: dict[str, Any]) -> bool:
        return actionbar.touch(self, action)

    def touch_map(self, place: str) -> bool:
        return actionbar.touch_map(self, place)

    def touch_in_popup(self, action: dict[str, Any]) -> bool:
        return actionbar.touch_in_popup(self, action)

    def choose(self, title: str, items: list[vm.ActionChoice]) -> None:
        actionbar.choose(self, title, items)

    def act_on_hex(self, hex_id: str) -> None:
        actionbar.act_on_hex(self, hex_id)

    def hex_words(self, hex_id: str) -> str:
        return actionbar.hex_words(self, hex_id)

    # -- proposals and the toast -------------------------------------------------------------------------
    def post(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the UI thread (the table service calls back from reader/panel threads)."""
        Clock.schedule_once(lambda _dt: fn(), 0)

    def propose(self, action: dict[str, Any]) -> None:
        """A touch button: the table service proposes it (the toast appears when it answers)."""
        self.session.propose(action)

    def tap(self, uid: str) -> None:
        """A tag on the reader, as the reader thread delivers it (the demo, tests): through the device
        runtime, which enrolls it or hands it to the open game's table service."""
        self.devices.tap(uid)

    def press(self, button_name: str) -> None:
        """A panel button (confirm, cancel, undo), through the device runtime as the panel's are."""
        self.devices.press(button_name)

    def _on_proposal(self, prop: vm.Proposal | None) -> None:
        if prop is None:
            self.hide_toast()
        else:
            self.show_toast(prop)
        board = self.screens.get("board") if hasattr(self, "screens") else None
        if isinstance(board, BoardScreen) and self.has_game:  # a build on the toast marks the map
            board.show_map(self.session.network())

    def show_toast(self, prop: vm.Proposal, extra: toast.Extra = ()) -> None:
        toast.show_toast(self, prop, extra)

    def hide_toast(self) -> None:
        if self.toast is not None and self.toast.parent is not None:
            self.toast.parent.remove_widget(self.toast)
            self.changed_on_screen()
        self.toast = None
        if self.actions_bar.parent is None:
            self.main.add_widget(self.actions_bar)

    def dismiss(self) -> None:
        """OK on a refusal, or Cancel: the toast goes and the action bar is back (rebuilt if a
        Confirm emptied it and was refused)."""
        self.hide_toast()
        if self.bar_stale and self.has_game:
            self.refresh_actions()
            self.changed_on_screen()

    def confirm(self) -> None:
        """Confirm the proposal.  The action bar's buttons were for the state before it: they are
        taken away at once (a note says the table is updating) and the bar is rebuilt when the
        game has changed, so no touch can land on a button of the previous state."""
        self.hide_toast()
        self.bar_stale = True
        self.actions_bar.clear_widgets()
        self.actions_bar.add_widget(
            Text("Confirmed: updating…", size=15 * self.u, fill=True, id_name="updating")
        )
        self.session.confirm()

    def cancel(self) -> None:
        self.session.cancel()
        self.dismiss()

    def ask_undo(self) -> None:
        """Undo with confirmation: the table service proposes taking back the last action."""
        self.session.ask_undo()

    def ask_redo(self) -> None:
        """Redo with confirmation: the table service proposes bringing back what the latest undo
        took back."""
        self.session.ask_redo()

    def note(self, text: str) -> None:
        self.notes.append(text)
        if self._session is not None:
            self._session.events.append(text)

    # -- the NFC reader: what the device runtime says (UI thread) --------------------------------------
    def _device_notice(self, notice: Notice) -> None:
        cards = self.screens.get("cards") if hasattr(self, "screens") else None
        if notice.kind is NoticeKind.TAPPED:
            self.note(notice.text)
            return
        self.note(f"[tap] {notice.text}")
        if isinstance(cards, CardsScreen) and self.sm.current == "cards":
            cards.said(notice.text[:1].upper() + notice.text[1:])
            cards.refresh()
        if notice.kind is NoticeKind.UNKNOWN_TAG and notice.uid is not None:
            uid = notice.uid
            self.show_toast(
                vm.Proposal(f"Tag {uid}", (), {}, notice.text),
                extra=(("Enroll this card", lambda: self.enroll_unknown(uid)),),
            )
        elif notice.kind is NoticeKind.REFUSED:
            self.show_toast(vm.Proposal(f"Tag {notice.uid}" if notice.uid else "Tags", (), {}, notice.text))

    def show_cards(self, mode: str = "tap") -> None:
        """The Cards screen: tap a card on the simulated reader, or enroll tags (``mode``)."""
        screen = self.screens["cards"]
        assert isinstance(screen, CardsScreen)
        screen.open(mode)

    def enroll_unknown(self, uid: str) -> None:
        """The unknown-tag toast's "Enroll this card": which card carries ``uid``?"""
        self.hide_toast()
        screen = self.screens["cards"]
        assert isinstance(screen, CardsScreen)
        screen.open(NAME_TAG, uid)

    # -- camera -----------------------------------------------------------------------------------------
    def camera_check(self, frames: int = CHECK_FRAMES, quiet: bool = False) -> None:
        """Look at the board (:func:`companion.ui.screens.camera.check_board`)."""
        check_board(self, frames, quiet)

    def _look_again(self) -> None:
        """The game changed: the camera's last verdict was about the game before (a tile just
        confirmed was still "unexpected" there).  The frames the board watch has are compared with
        the game now, without a new frame; until then the camera screen says the verdict is old."""
        session = self._session
        if session is None or session.last_check is None or session.check_is_current:
            return
        if self._watch is not None and session.has_map:
            self.camera_check(frames=0, quiet=True)

    # -- setup, store, tags ----------------------------------------------------------------------------
    def saved_games(self) -> list[Any]:
        if self.store is None:
            return []
        try:
            return list(self.store.games())
        except Exception:  # noqa: BLE001 - an unreadable store just offers nothing to resume
            return []

    def start_new_game(self, title: str, names: list[str], rules: list[str]) -> None:
        """A new game in the store through the table service (the old one stays saved)."""
        from companion.table.service import TableService

        if len(set(names)) != len(names) or not all(names):
            raise ValueError("every player needs a different name")
        if self.store is None or self.registry is None:
            raise ValueError("no game database is open")
        service = TableService.new(self.store, self.registry, title, names, rules)
        self.replace_session(UISession(service, self.post))

    def resume(self, game_id: int) -> None:
        from companion.table.service import TableService

        try:
            service = TableService.open(self.store, game_id, self.registry)
        except Exception as err:  # noqa: BLE001 - shown, the current game goes on
            self.show_toast(vm.Proposal(f"Resume game {game_id}", (), {}, str(err)))
            return
        self.replace_session(UISession(service, self.post))

    def _attach(self, session: UISession) -> None:
        session.subscribe(self._look_again)
        session.subscribe(self.refresh)
        session.on_proposal = self._on_proposal
        session.post = self.post
        self.devices.attach(session.service)  # taps and panel presses reach this game now

    def replace_session(self, session: UISession) -> None:
        session.events[:0] = self.events()
        self._session = session
        self._attach(session)
        op = self.operating_screen
        op.routes_for = None
        op.map_key = None
        self.hide_toast()
        self.show("table" if session.has_map else "board")

    def table_title(self) -> str:
        """The open game's title (before a game: the one chosen on the New game screen)."""
        if self._session is not None:
            return str(self.session.game.title)
        setup = self.screens.get("setup") if hasattr(self, "screens") else None
        return setup.chosen_title() if isinstance(setup, SetupScreen) else self.configured_title

    def game_cards(self) -> list[Card]:
        """The cards of the open game (its title, rules and players' names; before a game: the title
        chosen on the New game screen), with their tags."""
        from companion.devices import game_cards

        if self._session is None:
            return game_cards(self.registry, self.table_title())
        game = self.session.game
        names = [str(p.name) for p in game.players]
        return game_cards(self.registry, str(game.title), game.optional_rules, names)

    # -- screenshots and widget texts (tests, demo) ------------------------------------------------------
    def texts(self) -> list[str]:
        return onscreen.texts(self)

    def labelled(self) -> dict[str, dict[str, Any]]:
        return onscreen.labelled(self)

    def screenshot(self, path: str | Path) -> Path:
        return onscreen.screenshot(self, path)
