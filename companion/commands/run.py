"""``companion run [--config FILE]``: the touchscreen app (what the Pi's systemd unit starts).

Everything comes from the configuration (``companion.config``): window size and full
screen (``[display]``), the NFC reader (serial or simulated), the camera (picamera2, USB,
file or simulated), the game database and tag registry (``[game] database``), and the game
to start when the store has none active (``[game] title/players/rules``).  The most
recently played active game in the store is resumed; with none it starts the configured
game, or opens on the New game screen when no players are configured (nothing is stored
until the table starts a game there).

A configuration it cannot serve (an unreadable file, a title that is not playable, a
database it cannot open) is a start-up failure: one ``error: ...`` line on stderr, the same
in the log file, the message on the touchscreen (until Close, or ``--exit-after``), exit
status 2.  The log is ``logs/companion.log`` in the data folder (the game database's
folder), rotated at 1 MB with five old files kept; Kivy's messages go there too.
"""

from __future__ import annotations

import argparse
import logging
import logging.handlers
import os
import sys
from pathlib import Path
from typing import Any

__all__ = ["LOG_BYTES", "LOG_FILES", "register", "start_log"]

log = logging.getLogger("companion.run")

#: the log file is rotated at this size, keeping this many old files
LOG_BYTES = 1_000_000
LOG_FILES = 5


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
    p.add_argument(
        "--exit-when",
        default=None,
        metavar="TEXT",
        help="with --exit-after: quit as soon as a line of what happened starts with TEXT "
        "(--exit-after is then the longest wait)",
    )
    p.set_defaults(func=run)


def open_reader(config: Any) -> Any:
    """The configured reader (the board is only opened on the device runtime's reader thread)."""
    from companion.hardware.reader import SerialReader, SimulatedReader

    if config.reader.mode == "simulated":
        # tapped from the screen: Setup, "Tap a card…" (companion/ui/screens/cards.py)
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


def start_log(folder: Path) -> Path | None:
    """Log to ``folder/logs/companion.log`` (rotated) and warnings to stderr; the file's path,
    or ``None`` when the folder cannot be written (the warnings still reach stderr)."""
    from companion.ui.kivyconf import log_to_console

    root = logging.getLogger()
    root.setLevel(logging.INFO)
    log_to_console()
    path = folder / "logs" / "companion.log"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=LOG_BYTES, backupCount=LOG_FILES, encoding="utf-8"
        )
    except OSError as err:
        print(f"warning: no log file in {path.parent} ({err})", file=sys.stderr, flush=True)
        return None
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    return path


def _has_display() -> bool:
    return any(os.environ.get(k) for k in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"))


def _fail(message: str, args: argparse.Namespace, size: tuple[int, int], fullscreen: bool = False) -> int:
    """A start-up failure: one line on stderr, the log file, the touchscreen; exit status 2."""
    print(f"error: {message}", file=sys.stderr, flush=True)
    log.error("cannot start: %s", message, extra={"printed": True})
    if not _has_display():
        return 2
    try:
        from companion.ui.kivyconf import configure_kivy

        configure_kivy(size, fullscreen=fullscreen)
        from companion.ui.startup_error import StartupErrorApp

        app = StartupErrorApp(message)
        _exit_after(app, args, lambda: [])
        app.run()
    except Exception:  # noqa: BLE001 - the message is already printed and logged
        log.exception("the touchscreen could not show the error")
    return 2


def _exit_after(app: Any, args: argparse.Namespace, events: Any) -> None:
    """With ``--exit-after``: quit after that long (saving the screen with ``--screenshot``), or with
    ``--exit-when`` as soon as what happened has a line starting with its text."""
    if args.exit_after is None:
        return
    from kivy.clock import Clock

    done = False

    def finish(_dt: float) -> None:
        nonlocal done
        if done:
            return
        done = True
        if args.screenshot is not None:
            app.screenshot(args.screenshot)
            args.screenshot.with_suffix(".txt").write_text(
                "\n".join(app.texts()) + "\n\nwhat happened:\n" + "\n".join(events()) + "\n",
                encoding="utf-8",
            )
        app.stop()

    def look(_dt: float) -> None:
        if any(str(line).startswith(args.exit_when) for line in events()):
            finish(0.0)
        elif not done:
            Clock.schedule_once(look, 0.25)

    def start(_dt: float) -> None:
        Clock.schedule_once(finish, args.exit_after)
        if args.exit_when:
            look(0.0)

    # count from the first frame (the window is up and the labels are drawn), not from now
    Clock.schedule_once(start, 0)


def title_refusal(title: str) -> str | None:
    """Why the touchscreen cannot serve ``title`` (None when it can).  It serves an 18xx (a map,
    trains, corporations) with its own screens, and a title without a map through the title's
    table module (companion/table/titles)."""
    from companion.engine import playable_titles
    from companion.table.titles import served

    at_table = [t for t in playable_titles() if served(t)]
    if title in at_table:
        return None
    why = "is not playable yet" if title not in playable_titles() else "has no touchscreen yet"
    return f"game.title {title} {why} (at the table: {', '.join(at_table)})"


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except Exception as exc:  # noqa: BLE001 - whatever stops the app is logged and said in one line
        log.exception("companion run stopped", extra={"printed": True})
        print(f"error: companion run stopped: {exc!r} (details in the log file)", file=sys.stderr, flush=True)
        return 2


def _run(args: argparse.Namespace) -> int:
    from companion.config import Config, ConfigError, load_config

    try:
        config = load_config(args.config)
    except ConfigError as err:
        start_log(Config().game.database.parent)
        return _fail(str(err), args, Config().display.size)
    size, fullscreen = config.display.size, config.display.fullscreen
    from companion.store import database_path

    db = database_path(None, config)  # $COMPANION_DB first, as every command does (docs/STORE.md)
    start_log(db.parent)
    from companion.engine import title_info

    title = config.game.title
    refusal = title_refusal(title)
    if refusal is not None:
        return _fail(f"{args.config or 'the configuration'}: {refusal}", args, size, fullscreen)
    from companion.ui.kivyconf import configure_kivy

    configure_kivy(size, fullscreen=fullscreen)

    from kivy.core.window import Window

    from companion.devices import DeviceRuntime
    from companion.engine import GameError
    from companion.hardware.panel import open_panel
    from companion.store import Store, StoreError
    from companion.table.service import TableService
    from companion.table.tags import TagRegistry
    from companion.ui import viewmodels as vm
    from companion.ui.app import CompanionApp
    from companion.ui.session import UISession

    if Window is None:  # no window provider could open the display: restarting cannot help (exit 3)
        driver = os.environ.get("SDL_VIDEODRIVER", "x11/wayland")
        print(
            f"error: no display ({driver}): Kivy could not open a window; with KMS/DRM keep "
            "dtoverlay=vc4-kms-v3d in /boot/firmware/config.txt and no desktop holding the display",
            file=sys.stderr,
            flush=True,
        )
        return 3

    try:
        db.parent.mkdir(parents=True, exist_ok=True)
        store = Store.open(db)
        registry = TagRegistry.open(db)
    except (OSError, StoreError) as err:
        return _fail(f"cannot open the game database {db}: {err}", args, size, fullscreen)
    active = [g for g in store.games("active") if g.title == title]
    service: TableService | None = None
    try:
        if active:
            service = TableService.open(store, active[0].id, registry)
        elif config.game.players:
            service = TableService.new(
                store, registry, title, list(config.game.players), list(config.game.rules)
            )
    except (GameError, StoreError) as err:
        registry.close()
        store.close()
        return _fail(f"cannot start the game: {err}", args, size, fullscreen)
    # no game yet and no players configured: the New game screen; nothing is stored until it starts one
    session = UISession(service) if service is not None else None
    log.info("started: %s", f"game {service.game_id}" if service is not None else "the New game screen")
    try:
        reader = open_reader(config)
    except Exception as err:  # noqa: BLE001 - the game goes on by touch without a reader
        log.warning("no NFC reader (%s); every action can be done by touch", err)
        reader = None
    camera: Any = None
    if not title_info(title).has_map:
        log.info("%s has no tiles on a map: the camera has nothing to check", title)
    else:
        try:
            from vision.board import board_from_title

            board = vm.board_state(session.g18) if session else board_from_title(title)
            camera = open_camera(config, board)
        except Exception as err:  # noqa: BLE001 - the game goes on without the camera check
            log.warning("no camera (%s); the board check is off", err)

    def recognizer() -> Any:
        from companion.table.camera import stored_calibration
        from vision.board import board_from_title
        from vision.pipeline import Recognizer

        # the owner's calibration is of their real board; the simulated camera draws our own look
        calibration = stored_calibration() if config.camera.mode != "simulated" else None
        return Recognizer(board_from_title(title), calibration=calibration)

    try:
        pins = config.panel.pins()
        panel: Any = open_panel(config.panel.mode, **pins) if config.panel.mode == "gpio" else open_panel()
    except Exception as err:  # noqa: BLE001 - the touchscreen has the same three buttons
        log.warning("no button panel (%s); use the on-screen buttons", err)
        panel = None
    # one device runtime: the reader's taps and the panel's presses go to the open game's table service
    # (its lights answer every game's actions, also one started on the New game screen); the app
    # listens, and starts the reader once its window is up
    devices = DeviceRuntime(registry, reader=reader, panel=panel)
    app = CompanionApp(
        session,
        camera=camera,
        recognizer_factory=recognizer,
        store=store,
        registry=registry,
        check_interval=config.camera.check_interval,
        devices=devices,
        title=title,
    )
    _exit_after(app, args, app.events)
    from companion.runtime import settle_collector

    frozen = (
        settle_collector()
    )  # the loaded game and screens out of the collector's way (companion/runtime.py)
    log.info("garbage collector settled: %d objects frozen", frozen)
    try:
        app.run()
    finally:
        devices.stop()  # the reader and the panel
        if camera is not None:
            camera.close()
        registry.close()
        store.close()
    return 0
