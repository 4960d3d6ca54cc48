"""The Setup screen: a new game (title, players, rules), resume a saved one, the device."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kivy.uix.boxlayout import BoxLayout
from kivy.uix.checkbox import CheckBox
from kivy.uix.gridlayout import GridLayout
from kivy.uix.spinner import Spinner
from kivy.uix.textinput import TextInput

from companion.engine import GameError
from companion.store import StoreError
from companion.ui import viewmodels as vm
from companion.ui.screens.base import (
    BaseScreen,
    _toggle,
    scroll_of,
    vgrid,
)
from companion.ui.screens.calibration import CalibrationScreen
from companion.ui.widgets import (
    GOOD,
    INK,
    Text,
    button,
    rgba,
    row,
)

if TYPE_CHECKING:  # the shell shows the screens
    from companion.ui.app import CompanionApp


class SetupScreen(BaseScreen):
    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(app, name="setup", **kw)
        self.grid = vgrid(4)
        self.add_widget(scroll_of(self.grid))
        self.names: list[TextInput] = []
        self.rules: dict[str, CheckBox] = {}
        self.settings: dict[str, TextInput] = {}
        """The chosen title's settings (a number each, e.g. TSR's dividends track), by sym."""
        self.view = vm.setup_view(self.app.saved_games())
        self.title_spinner: Spinner | None = None
        self.selected = next(
            (i for i, t in enumerate(self.view.titles) if t.title == app.configured_title), 0
        )
        """The chosen title (an index into ``view.titles``): the configured one to begin with."""
        self.resume_box = vgrid(3)
        """The store's games to resume: listed again each time the screen is shown."""
        self.chips = GridLayout(cols=6, size_hint_y=None, spacing=3)
        """The players of earlier games (also listed again each time the screen is shown)."""
        self.chips.bind(minimum_height=self.chips.setter("height"))
        self.count_spinner: Spinner | None = None
        self.status = Text("", size=14 * self.u, wrap=True, id_name="setup-status")
        self.build()

    def build(self) -> None:
        u = self.u
        g = self.grid
        g.clear_widgets()
        titles = [t.title + ("" if t.playable else " (not playable yet)") for t in self.view.titles]
        t = self.view.titles[self.selected]
        self.title_spinner = Spinner(
            text=titles[self.selected], values=titles, font_size=16 * u, size_hint_x=0.6
        )
        self.title_spinner.bind(text=lambda _w, text: self.choose_title(titles.index(text)))
        counts = [str(n) for n in range(t.min_players, t.max_players + 1)]
        old_count = self.count_spinner.text if self.count_spinner is not None else "4"
        self.count_spinner = Spinner(
            text=old_count if old_count in counts else ("4" if "4" in counts else counts[0]),
            values=counts,
            font_size=16 * u,
        )
        self.count_spinner.bind(text=lambda *_: self.build_names())
        g.add_widget(Text("New game", size=20 * u, bold=True, id_name="new-game"))
        g.add_widget(
            row(
                Text("Title", size=15 * u, size_hint_x=0.3, fill=True),
                self.title_spinner,
                Text("Players", size=15 * u, size_hint_x=0.4, fill=True),
                self.count_spinner,
                height=40 * u,
            )
        )
        self.names_box = GridLayout(cols=4, size_hint_y=None, spacing=3)
        self.names_box.bind(minimum_height=self.names_box.setter("height"))
        g.add_widget(self.names_box)
        self.build_names()
        self.chips_heading = Text("", size=13 * u)
        g.add_widget(self.chips_heading)
        g.add_widget(self.chips)
        rules = GridLayout(cols=2, size_hint_y=None, spacing=2)
        rules.bind(minimum_height=rules.setter("height"))
        self.rules = {}
        for sym, short, _desc in t.optional_rules:
            # the whole row is the touch target (44 px high at 800×480, about 8 mm): box or words
            # a tap (down and up in one place) ticks it; a finger dragged over it to scroll does not
            cb = CheckBox(size_hint=(None, None), size=(40 * u, 44 * u), color=rgba(INK))
            self.rules[sym] = cb
            words = Text(short, size=14 * u, wrap=True, fill=True, id_name=f"rule:{sym}")
            rules.add_widget(_RuleRow(cb, words, height=44 * u))
        if t.optional_rules or not t.settings:  # a title with settings only shows no empty rules list
            g.add_widget(Text("Optional rules", size=15 * u, bold=True))
            g.add_widget(rules)
        self.settings = {}
        for setting in t.settings:  # a number the players read off their printed board
            field = TextInput(
                text=str(setting.default),
                multiline=False,
                input_filter="int",
                font_size=15 * u,
                size_hint=(0.25, None),
                height=40 * u,
            )
            field.id_name = f"setting:{setting.sym}"
            self.settings[setting.sym] = field
            g.add_widget(row(Text(setting.label, size=14 * u, wrap=True, fill=True), field, height=44 * u))
            g.add_widget(Text(f"{setting.low}–{setting.high}: {setting.note}", size=12 * u, wrap=True))
        g.add_widget(
            button("Start the new game", self.start, size=17 * u, color=GOOD, size_hint_y=None, height=44 * u)
        )
        g.add_widget(self.status)
        g.add_widget(Text("Resume a saved game", size=18 * u, bold=True))
        g.add_widget(self.resume_box)
        self.list_saved()
        g.add_widget(
            button(
                "Calibrate the camera to this set…",
                self.calibrate,
                size=15 * u,
                size_hint_y=None,
                height=40 * u,
            )
        )
        g.add_widget(Text("Tag enrollment", size=18 * u, bold=True))
        # the game's cards by name (companion/ui/screens/cards.py): enroll a tag on one, or, with the
        # simulated reader, put one on the reader to try every tap without hardware
        tags = [button("Enroll tags…", lambda: self.app.show_cards("enroll"), size=15 * u)]
        if self.app.devices.simulated:
            tags.insert(0, button("Tap a card…", lambda: self.app.show_cards("tap"), size=15 * u, color=GOOD))
        g.add_widget(row(*tags, height=44 * u, spacing=6))

    def list_saved(self) -> None:
        """The store's games to resume and the players of earlier games, as the store has them now
        (a game started or played since the screen was built is in it)."""
        u = self.u
        saved = self.app.saved_games()
        self.view = vm.setup_view(saved)
        box = self.resume_box
        box.clear_widgets()
        if not self.view.saved:
            box.add_widget(Text("No saved games in the store", size=14 * u, id_name="no-saved"))
        for game in self.view.saved[:8]:
            open_now = self.app.has_game and self.app.session.service.game_id == game.id
            box.add_widget(
                row(
                    Text(game.text, size=13 * u, wrap=True, fill=True, id_name=f"saved:{game.id}"),
                    Text("being played", size=14 * u, size_hint_x=0.25, fill=True)
                    if open_now
                    else button(
                        "Resume", lambda g=game: self.app.resume(g.id), size=15 * u, size_hint_x=0.25
                    ),
                    height=38 * u,
                )
            )
        known = vm.known_names(saved)
        self.chips.clear_widgets()
        # names from earlier games: a touch puts one in the next field, no typing
        self.chips_heading.text = "Players of earlier games (touch to seat them):" if known else ""
        for name in known:
            chip = button(
                name,
                lambda n=name: self.put_name(n),
                size=14 * u,
                color="#607d8b",
                size_hint_y=None,
                height=44 * u,
            )
            chip.name_chip = name
            self.chips.add_widget(chip)

    def chosen_title(self) -> str:
        return self.view.titles[self.selected].title

    def calibrate(self) -> None:
        """The camera calibration walk-through, for the open game's title or else the chosen one."""
        screen = self.app.screens["calibrate"]
        assert isinstance(screen, CalibrationScreen)
        title = str(self.app.session.game.title) if self.app.has_game else self.chosen_title()
        try:
            screen.start(title)
        except (KeyError, ValueError) as err:  # a title without a map has nothing to lay tiles on
            self.status.text = f"Cannot calibrate the camera for {title}: {err}"
            return
        self.app.show("calibrate")

    def choose_title(self, index: int) -> None:
        """Another title: its player range and optional rules (the names typed so far stay)."""
        if index != self.selected:
            self.selected = index
            self.build()

    def put_name(self, name: str) -> None:
        """A known name into the first seat that has none yet (its default, ``Player 3``, is a hint)."""
        if any(w.text.strip() == name for w in self.names):
            return
        for w in self.names:
            if not w.text.strip() or vm.is_placeholder_name(w.text.strip()):
                w.text = name
                return

    def player_names(self) -> list[str]:
        """The names as the game will have them: what was typed, else the seat's default (``Player 2``)."""
        return [w.text.strip() or w.hint_text for w in self.names]

    def build_names(self) -> None:
        assert self.count_spinner is not None
        n = int(self.count_spinner.text)
        old = [w.text for w in self.names]
        self.names_box.clear_widgets()
        self.names = []
        for i in range(n):
            # the default name is a hint: a seat left empty is "Player N", a name is typed over nothing
            ti = TextInput(
                text=old[i] if i < len(old) else "",
                hint_text=f"Player {i + 1}",
                multiline=False,
                write_tab=False,
                font_size=15 * self.u,
                size_hint_y=None,
                height=36 * self.u,
            )
            self.names.append(ti)
            self.names_box.add_widget(ti)

    def start(self) -> None:
        assert self.title_spinner is not None
        title = self.chosen_title()
        names = self.player_names()
        rules = [sym for sym, cb in self.rules.items() if cb.active]
        rules += [f"{sym}={field.text.strip()}" for sym, field in self.settings.items()]
        try:
            self.app.start_new_game(title, names, rules)
        except (GameError, StoreError, ValueError) as err:
            self.status.text = f"Cannot start: {err}"
            return
        self.status.text = f"Started {title} with {', '.join(names)}"

    def refresh(self) -> None:
        self.list_saved()


class _RuleRow(BoxLayout):  # type: ignore[misc]
    """An optional rule's row: its box and its words.  A tap anywhere on it (the finger down and up
    again without moving) ticks the box; a finger dragged over it, scrolling the screen, does not."""

    #: how far (px at 800×480) a finger may move and still be a tap
    SLOP = 12.0

    def __init__(self, box: CheckBox, words: Text, *, height: float) -> None:
        super().__init__(orientation="horizontal", spacing=4, size_hint_y=None, height=height)
        self.box = box
        self.add_widget(box)
        self.add_widget(words)

    def on_touch_down(self, touch: Any) -> bool:
        if not self.collide_point(*touch.pos):
            return False
        touch.ud[f"rule-row:{id(self)}"] = tuple(touch.pos)
        return True  # the box does not tick itself on a finger going down

    def on_touch_move(self, touch: Any) -> bool:
        return f"rule-row:{id(self)}" in touch.ud

    def on_touch_up(self, touch: Any) -> bool:
        start = touch.ud.pop(f"rule-row:{id(self)}", None)
        if start is None:
            return False
        slop = self.SLOP * max(1.0, self.height / 44.0)
        moved = max(abs(touch.pos[0] - start[0]), abs(touch.pos[1] - start[1]))
        if self.collide_point(*touch.pos) and moved <= slop:
            _toggle(self.box)
        return True
