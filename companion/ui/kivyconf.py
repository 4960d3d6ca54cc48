"""Kivy's configuration: must run before the first ``import kivy`` anywhere in the process."""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import sys
import tempfile

__all__ = ["KEYBOARD_MODE", "configure_kivy", "for_the_console", "log_to_console"]

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


def for_the_console(record: logging.LogRecord) -> bool:
    """What reaches stderr: warnings, but not a failure already printed as its one line, and of
    Kivy's messages only its errors (its warnings go to the log file, if there is one)."""
    if getattr(record, "printed", False) or record.getMessage().startswith("Cutbuffer:"):
        return False  # printed already; Kivy's copy-and-paste without xclip is no problem for a table
    return record.levelno >= logging.ERROR or not record.name.startswith("kivy")


def log_to_console() -> None:
    """Warnings (:func:`for_the_console`) to stderr, one line each."""
    console = logging.StreamHandler(sys.stderr)
    console.setLevel(logging.WARNING)
    console.addFilter(for_the_console)
    console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logging.getLogger().addHandler(console)
