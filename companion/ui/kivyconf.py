"""Kivy's configuration: must run before the first ``import kivy`` anywhere in the process."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

__all__ = ["configure_kivy"]


def configure_kivy(size: tuple[int, int], *, fullscreen: bool = False, home: str | None = None) -> None:
    """Set Kivy's environment and window configuration; call before importing Kivy."""
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
    os.environ.setdefault("KIVY_NO_FILELOG", "1")
    if "KIVY_HOME" not in os.environ:
        if home is None:
            # Kivy writes its config.ini and logs here: a private folder, removed at exit
            home = tempfile.mkdtemp(prefix="companion-kivy-")
            atexit.register(shutil.rmtree, home, True)
        os.environ["KIVY_HOME"] = home
    from kivy.config import Config

    Config.set("graphics", "width", str(size[0]))
    Config.set("graphics", "height", str(size[1]))
    Config.set("graphics", "resizable", "0")
    Config.set("graphics", "fullscreen", "auto" if fullscreen else "0")
    Config.set("kivy", "exit_on_escape", "0")
    Config.set("input", "mouse", "mouse,disable_multitouch")
