"""Drive the real touchscreen app in a subprocess under Xvfb, step by step, for screen tests.

``drive(body, out, display)`` runs a small program: Kivy configured at the window size, a store
and tag registry in ``out/db.sqlite3``, then ``body`` (Python source) which must define
``make_app()`` returning the :class:`CompanionApp` and ``steps(app)``, a generator.  Each value it
yields is a name: once the window has laid out and drawn what the step changed, it is saved as
``out/NAME.png`` and its label texts and tagged widgets as ``out/NAME.json`` (``{"texts": [...],
"labelled": {...}}``); then the next step runs (an empty name: just wait for the redraw).
The result maps each name to its JSON.

How long a step waits: an empty name (a pause, often inside a loop waiting for the app) always
``PAUSE`` seconds.  A named step waits until the app has settled — three frames since the step, no
background work (``app.busy``: routes, maps, camera, story), buttons there long enough to be
touched (``app.settling()``) and nothing due on the clock (a layout, a label's texture, a result
posted from a thread) — and at most ``PAUSE`` seconds, the fixed wait
every step took before (the start likewise: at most ``START`` seconds).  A screen that has settled
is what the fixed wait was for; the shots come sooner when it settles sooner, never later.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PRELUDE = r"""
import json, sys
from pathlib import Path
from companion.ui.kivyconf import configure_kivy

W, H = SIZE
configure_kivy((W, H))
from kivy.clock import Clock
from companion.store import Store
from companion.table.service import TableService
from companion.table.tags import TagRegistry
from companion.ui import viewmodels as vm
from companion.ui.app import CompanionApp
from companion.ui.session import UISession

OUT = Path(sys.argv[1])
store = Store.open(OUT / "db.sqlite3")
registry = TagRegistry.open(OUT / "db.sqlite3")


def demo_service(count=None):
    # the demo's real 4-player 1870 game, its first ``count`` actions stored (all: None), reopened
    # from the store as ``companion run`` would
    from companion.interop.actions import effective_actions
    from companion.interop.actions import remap_players, strip_action
    from companion.ui.scenario import demo_export

    export = demo_export()
    seats = {p["id"]: i + 1 for i, p in enumerate(export["players"])}
    names = [str(p["name"]) for p in export["players"]]
    actions = [remap_players(strip_action(a), seats) for a in effective_actions(export["actions"])]
    settings = export.get("settings") or {}
    rules = settings.get("optional_rules") or []
    service = TableService.new(store, registry, "1870", names, rules, int(settings.get("seed") or 0))
    store.append_many(service.game_id, actions[:count])
    return TableService.open(store, service.game_id, registry)


def open_full_map(app):
    # touch the Operating screen's Full map button and wait until the map is drawn; gives its screen
    # (``screen = yield from open_full_map(app)``)
    full = next(b for b in app.screens["operating"].left.children
                if getattr(b, "text", "").startswith("Full map"))
    full.dispatch("on_press")
    screen = app.screens["map"]
    for _ in range(40):
        yield ""
        if screen.image.texture is not None:
            break
    return screen


def title_service(title, names):
    # a new game of a title without a map, every card with a demo tag; and ``act(kind, **fields)``,
    # which proposes and confirms the first legal action of that type with those fields
    from companion.table.script import enroll_demo_tags

    enroll_demo_tags(registry, title)
    service = TableService.new(store, registry, title, names)

    def act(kind, **fields):
        la = next(la for la in service.game.legal_actions()
                  if la.type == kind and all(la.action.get(k) == v for k, v in fields.items()))
        service.propose(la.action)
        service.press("confirm")

    return service, act
"""

EPILOGUE = """
import time as _time

app = make_app()
_steps = steps(app)
shots = {}
PAUSE, START = 0.4, 1.0


def _settled(then, mine):
    # nothing left to do on screen: frames drawn since ``then``, no background work, nothing due
    if Clock.frames - then < 3 or getattr(app, "busy", None):
        return False
    if getattr(app, "settling", lambda: False)():  # buttons just changed: a touch would be ignored
        return False
    return not any(e is not mine and not e.loop and e.timeout <= 0.1 for e in Clock.get_events())


def _when_settled(go, longest, start=None):
    # ``go()`` once the app has settled, or ``longest`` seconds after ``start`` (now) whatever it is doing
    start, then, mine = start or _time.perf_counter(), Clock.frames, [None]

    def check(_dt):
        if _time.perf_counter() - start >= longest or _settled(then, mine[0]):
            go()
        else:
            mine[0] = Clock.schedule_once(check, 0)

    mine[0] = Clock.schedule_once(check, 0)


def _next(*_args):
    try:
        name = next(_steps)
    except StopIteration:
        (OUT / "shots.json").write_text(json.dumps(sorted(shots)))
        app.stop()
        return
    except Exception:
        import traceback
        traceback.print_exc()
        app.stop()
        raise SystemExit(3)
    # let the window lay out and draw what the step changed, then save it
    if name:
        _when_settled(lambda: _shoot(name), PAUSE)
    else:
        Clock.schedule_once(lambda _dt: _shoot(name), PAUSE)


def _shoot(name):
    if name:
        app.screenshot(OUT / f"{name}.png")
        data = {"texts": app.texts(), "labelled": app.labelled()}
        (OUT / f"{name}.json").write_text(json.dumps(data, indent=1))
        shots[name] = True
    Clock.schedule_once(_next, 0.05)


_begun = _time.perf_counter()  # the start's longest wait counts from here, as it did
Clock.schedule_once(lambda _dt: _when_settled(_next, START, _begun), 0)
app.run()
"""


def drive(body: str, out: Path, display: str, size: tuple[int, int] = (800, 480)) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    program = PRELUDE.replace("SIZE", repr(size), 1) + textwrap.dedent(body) + EPILOGUE
    script = out / "drive.py"
    script.write_text(program)
    env = dict(os.environ, DISPLAY=display)
    proc = subprocess.run(
        [sys.executable, str(script), str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        cwd=out,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert (out / "shots.json").exists(), proc.stderr[-4000:]
    return {
        name: json.loads((out / f"{name}.json").read_text())
        for name in json.loads((out / "shots.json").read_text())
    }


def companion_run(args: list[str], display: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``companion run ARGS`` on ``display`` in ``cwd`` (with ``env`` added to the environment)."""
    return subprocess.run(
        [sys.executable, "-m", "companion", "run", *args],
        env=dict(os.environ, DISPLAY=display, **env),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


@dataclass(frozen=True)
class DemoRun:
    """What ``companion demo --headless`` left: its screenshots' names, transcript and records."""

    shots: list[str]
    transcript: str
    records: dict[str, dict[str, Any]]


class Started:
    """A command started now, in the background, and waited for later (``finished``): a module's
    long demo runs while its other screen tests drive their own app, filling the time the demo
    waits between its scenes.  ``stop`` ends it if it was never waited for."""

    def __init__(self, args: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        self.proc = subprocess.Popen(
            args, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )

    def finished(self, timeout: float) -> subprocess.CompletedProcess[str]:
        try:
            out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.stop()
            raise
        return subprocess.CompletedProcess(self.proc.args, self.proc.returncode, out, err)

    def stop(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()
            self.proc.communicate()


def selected(request: Any, test: str) -> bool:
    """Whether the requesting module's test function ``test`` runs in this session: a module
    fixture starts a background run for it only then (not in a ``-m "not slow"`` or ``-k`` pass
    that leaves it out)."""
    return any(
        item.module is request.module and getattr(item, "originalname", item.name) == test
        for item in request.session.items
    )


def start_headless_demo(title: str, out: Path) -> Started:
    """Start ``companion demo --headless --title TITLE`` into ``out`` (it starts its own Xvfb)."""
    return Started(
        [sys.executable, "-m", "companion", "demo", "--headless", "--title", title, "--out", str(out)]
    )


def headless_demo(title: str, out: Path, started: Started | None = None) -> DemoRun:
    """Run ``companion demo --headless --title TITLE`` into ``out`` (or wait for the one ``started``
    there): what it left."""
    proc = (started or start_headless_demo(title, out)).finished(timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    shots = sorted(p.name for p in out.glob("*.png"))
    assert all((out / s).stat().st_size > 10_000 for s in shots)
    records = {r["file"]: r for r in json.loads((out / "screens.json").read_text(encoding="utf-8"))}
    return DemoRun(shots, (out / "transcript.txt").read_text(encoding="utf-8"), records)
