"""What is on the window, for the tests and the demo: every label's text, the widgets tagged with
an ``id_name`` and where they are, and a screenshot (an open list and the on-screen keyboard
included)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from kivy.core.window import Window
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen
from kivy.uix.vkeyboard import VKeyboard

from companion.ui.screens.base import (
    _screen_of,
)

if TYPE_CHECKING:
    from companion.ui.app import CompanionApp


def texts(app: CompanionApp) -> list[str]:
    """Every label text on the window now (current screen, bars, toast, an open list)."""
    out: list[str] = []
    for w in app.root_layout.walk(restrict=False):
        if isinstance(w, Label) and w.text and w.opacity > 0:
            if isinstance(w.parent, Screen):
                continue
            screen = _screen_of(w)
            if screen is not None and screen is not app.sm.current_screen:
                continue
            out.append(str(w.text))
    if app.popup is not None and app.popup.parent is not None:
        out += [str(w.text) for w in app.popup.walk(restrict=True) if isinstance(w, Label) and w.text]
    return out


def labelled(app: CompanionApp) -> dict[str, dict[str, Any]]:
    """Widgets tagged with ``id_name``: their text and where they are on the window."""
    out: dict[str, dict[str, Any]] = {}
    for w in app.root_layout.walk(restrict=False):
        name = getattr(w, "id_name", None)
        if not name:
            continue
        screen = _screen_of(w)
        if screen is not None and screen is not app.sm.current_screen:
            continue
        x, y = w.to_window(*w.pos)
        out[name] = {"text": str(getattr(w, "text", "")), "box": [x, y, w.width, w.height]}
    return out


def screenshot(app: CompanionApp, path: str | Path) -> Path:
    """Save the window as it looks now, an open list (popup) and the on-screen keyboard over
    the screens included."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if any(isinstance(w, VKeyboard) for w in Window.children):
        return _screenshot_window(app, path)
    overlays: list[Any] = []
    popup = app.popup
    if popup is not None and popup.parent is not None:
        overlays.insert(0, popup)
    if not overlays:
        app.root_layout.export_to_png(str(path))
        return path
    import cv2
    import numpy as np

    def rgba(widget: Any) -> Any:
        tex = widget.export_as_image().texture
        return np.frombuffer(tex.pixels, np.uint8).reshape(tex.height, tex.width, 4).astype(np.float32)

    out = rgba(app.root_layout)[..., :3]
    if popup in overlays:
        out = out * 0.35  # the list dims the window behind it, as on screen
    height = out.shape[0]
    for widget in overlays:
        over = rgba(widget)
        x, top = int(widget.x), height - int(widget.y) - over.shape[0]
        h = min(over.shape[0], height - max(top, 0))
        w = min(over.shape[1], out.shape[1] - max(x, 0))
        if h > 0 and w > 0:
            region = out[max(top, 0) : max(top, 0) + h, max(x, 0) : max(x, 0) + w]
            alpha = over[:h, :w, 3:4] / 255.0
            region[:] = region * (1 - alpha) + over[:h, :w, :3] * alpha
    cv2.imwrite(str(path), np.clip(out, 0, 255).astype(np.uint8)[..., ::-1])
    return path


def _screenshot_window(app: CompanionApp, path: Path) -> Path:
    """The window's last drawn frame as it is on the display (the on-screen keyboard is drawn by
    the window itself, scaled and moved, over the app)."""
    import cv2
    import numpy as np
    from kivy.graphics.opengl import GL_RGB, GL_UNSIGNED_BYTE, glReadPixels

    Window.canvas.ask_update()
    w, h = (int(v) for v in Window.size)
    data = glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE)
    image = np.frombuffer(data, np.uint8).reshape(h, w, 3)[::-1, :, ::-1]
    cv2.imwrite(str(path), image)
    return path
