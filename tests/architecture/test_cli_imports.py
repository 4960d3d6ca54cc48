"""``companion`` imports only what the command it runs uses: ``companion --help`` lists every command
without importing one, and ``companion replay`` never loads the camera (cv2, ``vision``) or the
touchscreen (Kivy)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from companion.cli import COMMANDS, build_parser
from tests.support.paths import ROOT

GAME = ROOT / "tests" / "fixtures" / "18xx.games" / "1867" / "hs_ahjzadkh_19792.json"

#: a fresh interpreter runs ``companion`` with these arguments, then prints the top-level packages of
#: the modules it imported that the command must not need, and what it printed
PROBE = """
import contextlib, io, json, sys
from companion.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exc:
        code = exc.code
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"cv2", "vision", "kivy", "devtools"})
places = ("companion.table", "companion.hardware.camera", "companion.ui")
camera = sorted(m for m in sys.modules if m.startswith(places))
print(json.dumps({"code": code, "heavy": heavy, "camera": camera, "out": out.getvalue()}))
"""


def _probe(*args: str) -> dict[str, object]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env, cwd=ROOT, check=True
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_help_lists_every_command_and_imports_none_of_their_modules() -> None:
    seen = _probe("--help")
    assert seen["code"] == 0
    assert seen["heavy"] == [] and seen["camera"] == []
    out = str(seen["out"])
    for name, help_text in COMMANDS.items():
        assert name in out and help_text.split()[0] in out, name


def test_replay_runs_without_the_camera_or_the_touchscreen() -> None:
    seen = _probe("replay", str(GAME))
    assert seen["code"] == 0, seen["out"]
    assert str(seen["out"]).startswith(f"OK {GAME}")
    assert seen["heavy"] == [] and seen["camera"] == []


def test_the_listed_commands_are_the_modules_and_their_help() -> None:
    """:data:`COMMANDS` (what ``--help`` lists without importing) says what each module registers."""
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    registered = {action.dest: action.help for action in sub._choices_actions}
    assert registered == COMMANDS


def test_an_unknown_command_is_refused_without_importing_any() -> None:
    seen = _probe("nonsense")
    assert seen["code"] == 2 and "invalid choice: 'nonsense'" in str(seen["out"])
    assert seen["heavy"] == [] and seen["camera"] == []
