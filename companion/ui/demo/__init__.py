"""``companion demo``: a title's game played forward on the touchscreen, simulated hardware.

Which demo a title has lives in its folder: a packaged real game (``demo.json``, read by
:mod:`companion.ui.scenario`) with the scenes of its ``demo.py`` (``DEMO_SCRIPT``; without one, the
shared :class:`TitleDemoScript` replays it to the end), or, for a title without the 18xx map,
the scripted game night of its ``demo.py`` (``DEMO_PLAYERS``, ``DEMO_SCENES``).

The first map title's demo (its scenes in ``companion/titles/<package>/demo.py``) enrolls
simulated NFC tags on the certificates it will tap, then plays scenes:

1. Setup screen (new game, resume, tag enrollment);
2. the private company auction is replayed; the first stock round is played by *taps*
   on the simulated reader (certificate → buy) and touch buttons (par, pass), each shown
   as a proposal toast and confirmed;
3. later, an operating round: the operating order, the optimiser's suggested routes drawn
   on the map with per-train revenue, the payout/withhold preview, then the run and the
   dividend are proposed and confirmed;
4. the market and the log; an undo asked for and cancelled;
5. a camera check: the simulated camera photographs the table where one tile is missing,
   and the differences are marked on the frame;
6. the rest of the game is replayed to the end (the bank breaks): final scores.

Headless it writes ``NN-<screen>.png`` screenshots, ``screens.json`` (every screenshot's
label texts, for tests) and ``transcript.txt`` to the output folder, then exits.  With a
window it pauses between steps so it can be watched, and stays open at the end.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from companion.interop.actions import remap_players
from companion.interop.replay import table_record
from companion.titles import title_module
from companion.ui import viewmodels as vm
from companion.ui.demo.common import same_action, uid_for
from companion.ui.demo.script import DemoScript
from companion.ui.demo.titles import BoardDemoScript, TitleDemoScript
from companion.ui.scenario import DEMO_TITLES, demo_export
from companion.ui.session import UISession

__all__ = ["DemoScript", "run_demo", "same_action", "title_script", "uid_for"]


def title_script(title: str) -> type[DemoScript]:
    """The scenes of ``title``'s packaged game: its ``demo.py``'s ``DEMO_SCRIPT``, else the shared
    :class:`TitleDemoScript`."""
    script: type[DemoScript] = getattr(title_module(title, "demo"), "DEMO_SCRIPT", TitleDemoScript)
    return script


def run_demo(
    out: Path,
    size: tuple[int, int],
    *,
    headless: bool,
    short: bool = False,
    step_delay: float = 0.0,
    title: str | None = None,
) -> int:
    """Run the demo app; returns an exit code.  Kivy must be importable (a display or Xvfb)."""
    from companion.ui.kivyconf import configure_kivy

    configure_kivy(size)

    from companion.devices import DeviceRuntime
    from companion.hardware.camera import SimulatedCamera
    from companion.hardware.reader import SimulatedReader
    from companion.store import Store
    from companion.table.service import TableService
    from companion.table.tags import TagRegistry, find_item
    from companion.ui.app import CompanionApp

    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.png"):
        old.unlink()
    title = DEMO_TITLES[0] if title is None else title
    if title not in DEMO_TITLES:
        return _board_demo(title_module(title, "demo"), title, out, headless, step_delay, short)
    export = demo_export(title=title)
    seats = {p["id"]: i + 1 for i, p in enumerate(export["players"])}
    names = [str(p["name"]) for p in export["players"]]
    # the recorded game as the table records it (its engine takes the automatic steps itself)
    actions = [remap_players(a, seats) for a in table_record(export)[0]]
    settings = export.get("settings") or {}
    tmp = Path(tempfile.mkdtemp(prefix="companion-demo-"))
    store = Store.open(tmp / "companion.sqlite3")
    registry = TagRegistry.open(tmp / "companion.sqlite3")
    service = TableService.new(
        store, registry, title, names, settings.get("optional_rules") or [], int(settings.get("seed") or 0)
    )
    session = UISession(service)
    script_class = title_script(title)
    if not script_class.uses_devices:
        app = CompanionApp(session, store=store, registry=registry)
        script: DemoScript = script_class(
            app, session, actions, out, reader=None, uids={}, camera=None, short=short
        )
        return _run(app, script, None, headless, step_delay, store, registry)
    # a tag on every card the demo taps
    uids: dict[str, str] = {}
    for card in script_class.tapped_cards(actions):
        uids[card] = uid_for(len(uids))
        registry.enroll(uids[card], find_item(title, card))
    reader = SimulatedReader(follow=True)
    camera = SimulatedCamera(vm.board_state(session.g18), seed=7, strength=0.35, size=(1640, 1232))

    board_title = title

    def recognizer() -> Any:
        from vision.board import board_from_title
        from vision.pipeline import Recognizer

        return Recognizer(board_from_title(board_title))

    devices = DeviceRuntime(registry, reader=reader)  # the app starts it with its window
    app = CompanionApp(
        session,
        camera=camera,
        recognizer_factory=recognizer,
        store=store,
        registry=registry,
        devices=devices,
    )
    script = script_class(app, session, actions, out, reader=reader, uids=uids, camera=camera, short=short)
    return _run(app, script, reader, headless, step_delay, store, registry)


def _board_demo(module: Any, title: str, out: Path, headless: bool, step_delay: float, short: bool) -> int:
    """The demo of a title without a map: the scripted game night of its ``demo.py`` on the simulated
    reader (every card with a made-up tag), no camera (nothing to check)."""
    from companion.devices import DeviceRuntime
    from companion.hardware.reader import SimulatedReader
    from companion.store import Store
    from companion.table.script import enroll_demo_tags
    from companion.table.service import TableService
    from companion.table.tags import TagRegistry
    from companion.ui.app import CompanionApp

    scenes = getattr(module, "DEMO_SCENES", None)
    if not scenes:
        raise RuntimeError(f"{title} has no demo at the table yet")
    tmp = Path(tempfile.mkdtemp(prefix="companion-demo-"))
    store = Store.open(tmp / "companion.sqlite3")
    registry = TagRegistry.open(tmp / "companion.sqlite3")
    enroll_demo_tags(registry, title)
    service = TableService.new(store, registry, title, list(module.DEMO_PLAYERS))
    session = UISession(service)
    reader = SimulatedReader(follow=True)
    app = CompanionApp(
        session, store=store, registry=registry, devices=DeviceRuntime(registry, reader=reader)
    )
    script = BoardDemoScript(
        app,
        session,
        [],
        out,
        reader=reader,
        uids={},
        camera=None,
        short=short,
        scene_list=scenes,
        registry=registry,
    )
    return _run(app, script, reader, headless, step_delay, store, registry)


def _run(
    app: Any, script: DemoScript, reader: Any, headless: bool, step_delay: float, store: Any, registry: Any
) -> int:
    """Drive ``script``'s scenes on the UI clock, then close the hardware and the databases."""
    from kivy.clock import Clock

    steps = script.scenes()
    status = {"code": 0}

    def tick(_dt: float) -> None:
        try:
            delay = next(steps)
        except StopIteration:
            script.write()
            if reader is not None:
                reader.close()
            if headless:
                app.stop()
            return
        except Exception as exc:
            script.say(f"demo failed: {exc!r}")
            script.write()
            status["code"] = 1
            if reader is not None:
                reader.close()
            app.stop()
            raise
        Clock.schedule_once(tick, delay + step_delay)

    def start(_dt: float) -> None:
        tick(0)

    Clock.schedule_once(start, 0.2)
    app.run()
    registry.close()
    store.close()
    return status["code"]
