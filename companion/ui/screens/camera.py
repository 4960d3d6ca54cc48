"""The Taps & camera screen: the reader's taps, the camera's check of the board, enrolment."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kivy.uix.boxlayout import BoxLayout
from kivy.uix.image import Image
from kivy.uix.progressbar import ProgressBar

from companion.ui import viewmodels as vm
from companion.ui.screens.base import (
    CHECK_FRAMES,
    BaseScreen,
    Work,
    scroll_of,
    vgrid,
)
from companion.ui.widgets import (
    BAD,
    GOOD,
    Text,
    button,
    texture_from_bgr,
)

if TYPE_CHECKING:  # the shell shows the screens
    from companion.ui.app import CompanionApp


class CameraScreen(BaseScreen):
    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(app, name="camera", **kw)
        body = BoxLayout(orientation="horizontal", spacing=4, padding=2)
        self.image = Image(fit_mode="contain")
        body.add_widget(self.image)
        right = BoxLayout(orientation="vertical", spacing=3, size_hint_x=0.8)
        self.check_button = button(
            "Check the board",
            app.camera_check,
            size=17 * self.u,
            color=GOOD,
            size_hint_y=None,
            height=44 * self.u,
        )
        right.add_widget(self.check_button)
        self.progress = ProgressBar(max=1.0, size_hint_y=None, height=0, opacity=0)
        right.add_widget(self.progress)
        self.list = vgrid(2)
        right.add_widget(scroll_of(self.list))
        body.add_widget(right)
        self.add_widget(body)

    def refresh(self) -> None:
        u = self.u
        self.check_button.disabled = not self.app.session.has_map
        self.check_button.text = "Check the board" if self.app.session.has_map else "Nothing to check"
        self.image.opacity = 1 if self.app.session.has_map else 0
        if not self.app.session.has_map:
            self.list.clear_widgets()
            self.image.texture = None
            self.list.add_widget(
                Text(
                    f"{self.app.session.title_name} has no tiles on a map: the camera has nothing to check "
                    "in this game. Every counter (treasuries, income, stock values, the tracks) is on the "
                    "Board screen.",
                    size=16 * u,
                    bold=True,
                    wrap=True,
                    id_name="camera",
                )
            )
            self.list.add_widget(Text("Taps", size=16 * u, bold=True))
            for e in [e for e in self.app.session.events if e.startswith("[tap]")][-8:]:
                self.list.add_widget(Text(e, size=13 * u, wrap=True))
            return
        check = self.app.session.last_check
        work = self.app.busy.get("camera")
        self.progress.opacity = 1 if work is not None and work.show_progress else 0
        self.progress.height = 10 if self.progress.opacity else 0
        self.list.clear_widgets()
        if work is not None:
            self.list.add_widget(Text("Checking the board…", size=16 * u, bold=True))
        if check is not None and not self.app.session.check_is_current:
            # the verdict was about the game before the latest action: its lays are not offered
            self.list.add_widget(
                Text(
                    "The game has changed since the camera looked: "
                    + ("looking again…" if work is not None else "press Check the board"),
                    size=16 * u,
                    bold=True,
                    wrap=True,
                    id_name="camera",
                )
            )
        elif check is not None:
            if check.image is not None:
                self.image.texture = texture_from_bgr(check.image)
            if check.error:
                head = check.error
            elif check.clean:
                head = "The board matches the game"
            else:
                head = f"{len(check.differences) + len(check.token_differences)} difference(s) on the board"
            self.list.add_widget(Text(head, size=17 * u, bold=True, wrap=True, id_name="camera"))
            for line in check.notes():
                self.list.add_widget(Text(line, size=14 * u, wrap=True, color=BAD))
            for action in check.proposals:
                label = check.proposal_label(action)
                b = button(
                    label,
                    lambda a=action: self.app.propose(a),
                    size=15 * u,
                    color=GOOD,
                    size_hint_y=None,
                    height=40 * u,
                )
                b.camera_action = action
                self.list.add_widget(b)
            if check.cant_see:
                self.list.add_widget(
                    Text(f"Can't see: {', '.join(check.cant_see[:12])}", size=12 * u, wrap=True)
                )
        elif work is None:
            self.list.add_widget(Text("No camera check yet", size=16 * u))
        self.list.add_widget(Text("Taps", size=16 * u, bold=True))
        taps = [e for e in self.app.session.events if e.startswith("[tap]") or e.startswith("[camera]")]
        for e in taps[-8:]:
            self.list.add_widget(Text(e, size=13 * u, wrap=True))


def check_board(app: CompanionApp, frames: int, quiet: bool = False) -> None:
    """Look at the board: ``frames`` new frames go into the board watch, which reports what
    its recent frames agree on (:class:`companion.table.camera.BoardWatch`).  The Check button
    takes several frames at once; the periodic watch (``quiet``) one at a time, and only adds
    to the transcript when the camera's verdict changes."""
    if app.camera is None:
        if not quiet:
            app.show_toast(vm.Proposal("Camera", (), {}, "no camera is configured"))
        return
    if "camera" in app.busy or not app.has_game:
        return
    session = app.session
    if not session.has_map:
        if not quiet:
            app.show_toast(
                vm.Proposal("Camera", (), {}, f"{session.title_name} has no tiles: nothing to check")
            )
        return
    game = session.g18.clone()
    sync = getattr(app.camera, "sync", None)
    if callable(sync):
        sync(game)  # a simulated table that follows the game

    def job(report: Callable[[float], None]) -> Any:
        from companion.table.camera import BoardWatch

        if app._watch is None and app.recognizer_factory is not None:
            app._watch = BoardWatch(app.recognizer_factory(), window=CHECK_FRAMES, min_seen=2)
        if app._watch is None:
            raise RuntimeError("no recogniser for the camera")
        app._watch.seconds = 0.0
        for k in range(frames):
            report((k + 0.5) / frames)
            app._watch.add(app.camera.read())
        if quiet and not app._watch.ready and app._watch.last_frame is not None:
            return None  # the watch has not seen enough frames to say anything yet
        return app._watch.check(game)

    def done(check: Any, error: Exception | None) -> None:
        if error is not None:
            app.note(f"[camera] check failed: {error}")
        elif check is not None:
            session.record_check(check, quiet_if_unchanged=quiet, offer=quiet)
        app.refresh()

    Work(app, "camera", job, done)
    if not quiet:
        app.refresh()
