"""Drive the real touchscreen app in a subprocess under Xvfb, step by step, for screen tests.

``drive(body, out, display)`` runs a small program: Kivy configured at the window size, a store
and tag registry in ``out/db.sqlite3``, then ``body`` (Python source) which must define
``make_app()`` returning the :class:`CompanionApp` and ``steps(app)``, a generator.  Each value it
yields is a name: the window is saved as ``out/NAME.png`` and its label texts and tagged widgets
as ``out/NAME.json`` (``{"texts": [...], "labelled": {...}}``); the next step runs a few frames
later, once the screen has been redrawn.  The result maps each name to its JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

PRELUDE = """
import json, sys
from pathlib import Path
from companion.ui.kivyconf import configure_kivy

W, H = {size!r}
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
"""

EPILOGUE = """
app = make_app()
_steps = steps(app)
shots = {}


def _next(_dt):
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
    if name:
        app.screenshot(OUT / f"{name}.png")
        data = {"texts": app.texts(), "labelled": app.labelled()}
        (OUT / f"{name}.json").write_text(json.dumps(data, indent=1))
        shots[name] = True
    Clock.schedule_once(_next, 0.4)


Clock.schedule_once(_next, 1.0)
app.run()
"""


def drive(body: str, out: Path, display: str, size: tuple[int, int] = (800, 480)) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    program = PRELUDE.format(size=size) + textwrap.dedent(body) + EPILOGUE
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
