"""The calibration screen: the camera learns the owner's board from a few photos."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from companion.engine import GameError
from companion.ui import viewmodels as vm
from companion.ui.screens.base import (
    BaseScreen,
    Work,
    scroll_of,
    vgrid,
)
from companion.ui.widgets import (
    BAD,
    GOOD,
    INK,
    Text,
    button,
    row,
)

if TYPE_CHECKING:  # the shell shows the screens
    from companion.ui.app import CompanionApp


class CalibrationScreen(BaseScreen):
    """Calibrating the camera to the owner's printing, step by step (reached from Setup): lay one tile
    of each colour (on the suggested hexes, or use the open game's board), photograph the board with
    the camera, learn, see the hues learned next to the defaults, keep or discard.
    The work is :class:`companion.table.calibrate.CalibrationWalk`; photos and learning run in a
    worker thread."""

    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(app, name="calibrate", **kw)
        self.grid = vgrid(4)
        self.add_widget(scroll_of(self.grid))
        self.walk: Any = None
        self.message = ""
        self.title = ""
        self.on_game_board = False
        """The walk uses the tiles laid in the open game (not the suggested hexes)."""

    def start(self, title: str) -> None:
        """A new walk-through for ``title`` on the suggested hexes (nothing learned, nothing stored)."""
        from companion.table.calibrate import CalibrationWalk

        self.title = title
        self.walk = CalibrationWalk.for_layout(title)
        self.on_game_board = False
        self.message = ""

    def use_game_board(self) -> None:
        """Calibrate on the tiles already laid in the open game."""
        from companion.table.calibrate import CalibrationWalk
        from vision.calibration import CalibrationError

        try:
            self.walk = CalibrationWalk.for_board(vm.board_state(self.app.session.g18))
        except (CalibrationError, GameError, ValueError) as err:
            self.message = f"Cannot use the open game's board: {err}"
        else:
            self.on_game_board = True
            self.message = (
                f"Using the {len(self.walk.colours)} tiles laid in the open game (step 1 lists them): "
                "photograph the board as it is"
            )
        self.refresh()

    def use_suggested(self) -> None:
        """Back to the suggested hexes after using the open game's board."""
        self.start(self.title)
        self.message = "Using the suggested hexes: lay the tiles of step 1"
        self.refresh()

    def photograph(self) -> None:
        if self.app.camera is None:
            self.message = "No camera is configured"
            self.refresh()
            return
        if "calibrate" in self.app.busy or self.walk is None:
            return
        walk, camera = self.walk, self.app.camera

        def job(report: Callable[[float], None]) -> Any:
            report(0.2)
            return walk.add_photo(camera.read())

        Work(self.app, "calibrate", job, self._done)
        self.message = "Taking a photo…"
        self.refresh()

    def learn(self) -> None:
        if "calibrate" in self.app.busy or self.walk is None or not self.walk.photos:
            return
        walk = self.walk

        def job(report: Callable[[float], None]) -> Any:
            walk.learn()
            return "Learned: keep it to use it, or discard it"

        Work(self.app, "calibrate", job, self._done)
        self.message = "Learning…"
        self.refresh()

    def _done(self, message: Any, error: Exception | None) -> None:
        # a photo that cannot calibrate is not kept: the owner sees why and tries again
        self.message = f"Cannot use that: {error}" if error is not None else str(message)
        self.refresh()

    def keep(self) -> None:
        from companion.table.camera import default_calibration_path
        from vision.calibration import CalibrationError

        if self.walk is None:
            return
        try:
            path = self.walk.keep(default_calibration_path())
        except (CalibrationError, OSError) as err:
            self.message = f"Not stored: {err}"
        else:
            self.app.note(f"[camera] calibration stored at {path}")
            self.app._watch = None  # the next check builds its recogniser with the stored calibration
            self.message = f"Stored at {path}: the camera uses it from the next check"
        self.refresh()

    def learn_tokens(self) -> None:
        """Photograph every corporation's token on its home city and learn how the owner's tokens
        look (:func:`companion.table.calibrate.learn_tokens_into`); stored at once."""
        if self.app.camera is None:
            self.message = "No camera is configured"
            self.refresh()
            return
        if "calibrate" in self.app.busy or not self.title:
            return
        camera, title = self.app.camera, self.title

        def job(report: Callable[[float], None]) -> Any:
            from companion.table.calibrate import learn_tokens_into
            from companion.table.camera import default_calibration_path

            report(0.2)
            lines = learn_tokens_into(title, [camera.read()], default_calibration_path())
            self.app._watch = None  # the next check builds its recogniser with the tokens learned
            return "Tokens: " + "; ".join(lines)

        Work(self.app, "calibrate", job, self._done)
        self.message = "Photographing the tokens…"
        self.refresh()

    def discard(self) -> None:
        self.start(self.title)
        self.message = "Discarded: nothing stored"
        self.refresh()

    def refresh(self) -> None:
        u = self.u
        g = self.grid
        g.clear_widgets()
        g.add_widget(Text("Calibrate the camera", size=20 * u, bold=True, id_name="calibrate"))
        walk = self.walk
        if walk is None:
            g.add_widget(Text("Choose a title on the Setup screen first", size=14 * u))
            return
        if self.message:  # what the last step did, or why it could not, in sight at the top
            refused = self.message.startswith(("Cannot", "Not stored", "No camera"))
            status = Text(
                self.message,
                size=15 * u,
                bold=True,
                wrap=True,
                color=BAD if refused else INK,
                id_name="calibrate-status",
            )
            g.add_widget(status)
        g.add_widget(
            Text(
                "1. With the markers in place, lay one tile of each colour on the board:",
                size=15 * u,
                wrap=True,
            )
        )
        for k, line in enumerate(walk.steps()):
            g.add_widget(Text(f"    {line}", size=15 * u, bold=True, id_name=f"calibrate-step:{k}"))
        if self.app.has_game and self.on_game_board:
            g.add_widget(
                button(
                    "Use the suggested hexes instead",
                    self.use_suggested,
                    size=14 * u,
                    size_hint_y=None,
                    height=40 * u,
                )
            )
        elif self.app.has_game:
            g.add_widget(
                button(
                    "Use the tiles laid in the open game instead",
                    self.use_game_board,
                    size=14 * u,
                    size_hint_y=None,
                    height=40 * u,
                )
            )
        busy = "calibrate" in self.app.busy
        taken = len(walk.photos)
        g.add_widget(
            Text(
                f"2. Photograph it from the camera (one to three photos, in the light you play in): {taken} taken",
                size=15 * u,
                wrap=True,
                id_name="calibrate-photos",
            )
        )
        photo = button(
            "Take a photo", self.photograph, size=16 * u, color=GOOD, size_hint_y=None, height=44 * u
        )
        photo.disabled = busy or self.app.camera is None
        learn = button("Learn from the photos", self.learn, size=16 * u, size_hint_y=None, height=44 * u)
        learn.disabled = busy or not taken
        g.add_widget(row(photo, learn, height=44 * u))
        g.add_widget(Text("3. What it learned:", size=15 * u))
        lines = walk.summary()
        for k, line in enumerate(lines or ["nothing yet"]):
            g.add_widget(Text(f"    {line}", size=14 * u, wrap=True, id_name=f"calibrate-learned:{k}"))
        keep = button("Keep it", self.keep, size=16 * u, color=GOOD, size_hint_y=None, height=44 * u)
        keep.disabled = busy or walk.learned is None
        discard = button("Discard", self.discard, size=16 * u, color=BAD, size_hint_y=None, height=44 * u)
        discard.disabled = busy
        g.add_widget(row(keep, discard, height=44 * u))
        g.add_widget(
            Text(
                "4. Station tokens: put every corporation's token on its home city, then photograph "
                "them (stored at once, beside the tile colours)",
                size=15 * u,
                wrap=True,
            )
        )
        tokens = button("Learn the tokens", self.learn_tokens, size=16 * u, size_hint_y=None, height=44 * u)
        tokens.disabled = busy or self.app.camera is None
        g.add_widget(tokens)
        g.add_widget(
            button(
                "Back to Setup", lambda: self.app.show("setup"), size=15 * u, size_hint_y=None, height=40 * u
            )
        )


# --------------------------------------------------------------------------------------------- app
