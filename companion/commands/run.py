"""``companion run [--config FILE]``: the touchscreen app (what the Pi's systemd unit starts).

Everything comes from the configuration (``companion.config``): window size and full
screen (``[display]``), the NFC reader (serial or simulated), the camera (picamera2, USB,
file or simulated), the game database and tag registry (``[game] database``), and the game
to start when the store has none active (``[game] title/players/rules``).  The most
recently played active game in the store is resumed; with none it starts the configured
game, or shows the Setup screen when no players are configured.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["register"]


def register(sub: Any) -> None:
    p = sub.add_parser("run", help="the touchscreen app (real or simulated hardware per configuration)")
    p.add_argument(
        "--config", type=Path, default=None, help="configuration file (default: simulated everything)"
    )
    p.add_argument(
        "--exit-after",
        type=float,
        default=None,
        metavar="SECONDS",
        help="quit after this long (checks, tests)",
    )
    p.add_argument(
        "--screenshot",
        type=Path,
        default=None,
        help="with --exit-after: save the screen first (PNG), its texts and what happened (.txt beside it)",
    )
    p.set_defaults(func=run)


def open_reader(config: Any) -> Any:
    from companion.hardware.reader import SerialReader, SimulatedReader

    if config.reader.mode == "simulated":
        return SimulatedReader(follow=True)
    vid, pid = (int(x, 16) for x in config.reader.usb_id.split(":"))
    port = None if config.reader.port == "auto" else config.reader.port
    # the serial reader waits for the board to be plugged in and reconnects by itself
    return SerialReader(port, vid=vid, pid=pid, baudrate=config.reader.baud)


def open_camera(config: Any, board: Any) -> Any:
    from companion.hardware.camera import CameraConfig as PiCameraConfig
    from companion.hardware.camera import (
        ImageFileSource,
        OpenCVCamera,
        Picamera2Camera,
        SimulatedCamera,
        VideoFileSource,
    )

    cam = config.camera
    if cam.mode == "simulated":
        # the simulated table shows what the game records (the players lay every tile they enter)
        return SimulatedCamera(board, seed=0, strength=0.3, size=tuple(cam.resolution), follows_game=True)
    if cam.mode == "picamera2":
        return Picamera2Camera(PiCameraConfig(resolution=tuple(cam.resolution)))
    if cam.mode == "usb":
        return OpenCVCamera(cam.device, tuple(cam.resolution))
    if cam.file is None:
        raise RuntimeError("camera.mode is 'file' but camera.file is not set")
    if str(cam.file).lower().endswith((".png", ".jpg", ".jpeg")):
        return ImageFileSource([cam.file])
    return VideoFileSource(cam.file, loop=True)


def run(args: argparse.Namespace) -> int:
    from companion.config import ConfigError, load_config

    try:
        config = load_config(args.config)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    from companion.ui.kivyconf import configure_kivy

    configure_kivy(config.display.size, fullscreen=config.display.fullscreen)

    from companion.engine import GameError
    from companion.hardware.panel import open_panel
    from companion.store import Store, StoreError
    from companion.table.service import TableService
    from companion.table.tags import TagRegistry
    from companion.ui import viewmodels as vm
    from companion.ui.app import CompanionApp
    from companion.ui.session import UISession

    db = Path(config.game.database)
    try:
        db.parent.mkdir(parents=True, exist_ok=True)
        store = Store.open(db)
        registry = TagRegistry.open(db)
    except (OSError, StoreError) as err:
        print(f"error: cannot open the game database {db}: {err}", file=sys.stderr)
        return 2
    title = config.game.title
    players = list(config.game.players) or ["Player 1", "Player 2", "Player 3", "Player 4"]
    active = [g for g in store.games("active") if g.title == title]
    try:
        if active:
            service = TableService.open(store, active[0].id, registry)
        else:
            service = TableService.new(store, registry, title, players, list(config.game.rules))
    except (GameError, StoreError) as err:
        print(f"error: cannot start the game: {err}", file=sys.stderr)
        return 2
    session = UISession(service)
    try:
        reader = open_reader(config)
    except Exception as err:  # noqa: BLE001 - the game goes on by touch without a reader
        print(f"warning: no NFC reader ({err}); every action can be done by touch", file=sys.stderr)
        reader = None
    try:
        camera = open_camera(config, vm.board_state(session.game))
    except Exception as err:  # noqa: BLE001 - the game goes on without the camera check
        print(f"warning: no camera ({err}); the board check is off", file=sys.stderr)
        camera = None

    def recognizer() -> Any:
        from vision.board import board_from_title
        from vision.pipeline import Recognizer

        return Recognizer(board_from_title(title))

    try:
        pins = config.panel.pins()
        panel: Any = open_panel(config.panel.mode, **pins) if config.panel.mode == "gpio" else open_panel()
    except Exception as err:  # noqa: BLE001 - the touchscreen has the same three buttons
        print(f"warning: no button panel ({err}); use the on-screen buttons", file=sys.stderr)
        panel = None
    if panel is not None:
        service.feedback.append(lambda ok: panel.accept() if ok else panel.reject())

    from kivy.clock import Clock

    app = CompanionApp(
        session,
        camera=camera,
        recognizer_factory=recognizer,
        store=store,
        registry=registry,
        check_interval=config.camera.check_interval,
    )
    if reader is not None:
        Clock.schedule_once(lambda _dt: app.start_reader(reader), 0.5)
    if panel is not None:
        panel.on_press(lambda press: app.post(lambda: app.press(str(press.button))))
    if not config.game.players and not active:
        Clock.schedule_once(lambda _dt: app.show("setup"), 0.2)
    if args.exit_after is not None:

        def finish(_dt: float) -> None:
            if args.screenshot is not None:
                app.screenshot(args.screenshot)
                args.screenshot.with_suffix(".txt").write_text(
                    "\n".join(app.texts()) + "\n\nwhat happened:\n" + "\n".join(session.events) + "\n",
                    encoding="utf-8",
                )
            app.stop()

        # count from the first frame (the window is up and the labels are drawn), not from now
        Clock.schedule_once(lambda _dt: Clock.schedule_once(finish, args.exit_after), 0)
    try:
        app.run()
    finally:
        if reader is not None:
            reader.close()
        if panel is not None:
            panel.close()
        if camera is not None:
            camera.close()
        registry.close()
        store.close()
    return 0
