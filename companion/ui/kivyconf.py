"""Kivy's configuration: must run before the first ``import kivy`` anywhere in the process."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

__all__ = ["KEYBOARD_MODE", "configure_kivy"]

#: the on-screen keyboard docks at the bottom of the window when a name field is touched; a
#: keyboard plugged in still types (``deploy/kivy-config.ini`` sets the same)
KEYBOARD_MODE = "systemanddock"


def configure_kivy(size: tuple[int, int], *, fullscreen: bool = False, home: str | None = None) -> None:
    """Set Kivy's environment and window configuration; call before importing Kivy.

    Kivy logs through Python's ``logging`` (``KIVY_LOG_MODE=PYTHON``): it neither takes over
    ``sys.stderr`` (an error printed by the companion reaches the terminal or the journal) nor
    writes logs of its own; its messages go to whatever handlers the command sets up
    (``companion run``: a rotated file under the data folder and warnings on stderr)."""
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_LOG_MODE", "PYTHON")
    if "KIVY_HOME" not in os.environ:
        if home is None:
            # Kivy writes its config.ini here: a private folder, removed at exit
            home = tempfile.mkdtemp(prefix="companion-kivy-")
            atexit.register(shutil.rmtree, home, True)
        os.environ["KIVY_HOME"] = home
    from kivy.config import Config

    Config.set("graphics", "width", str(size[0]))
    Config.set("graphics", "height", str(size[1]))
    Config.set("graphics", "resizable", "0")
    Config.set("graphics", "fullscreen", "auto" if fullscreen else "0")
    Config.set("kivy", "exit_on_escape", "0")
    Config.set("kivy", "keyboard_mode", KEYBOARD_MODE)
    Config.set("input", "mouse", "mouse,disable_multitouch")
