"""Small Kivy building blocks shared by the screens (import only after Kivy is configured)."""

from __future__ import annotations

from typing import Any

import numpy as np
from kivy.graphics import Color, Line, Rectangle
from kivy.graphics.texture import Texture
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
from numpy.typing import NDArray

PAPER = "#f5f0e1"
INK = "#1b1b1b"
DARK = "#263238"
ACCENT = "#ffd54f"
GOOD = "#2e7d32"
BAD = "#c62828"


def rgba(color: str, alpha: float = 1.0) -> list[float]:
    """``#rrggbb`` → Kivy RGBA floats."""
    c = color.lstrip("#")
    if len(c) == 3:
        c = "".join(ch * 2 for ch in c)
    try:
        r, g, b = (int(c[i : i + 2], 16) / 255 for i in (0, 2, 4))
    except (ValueError, IndexError):
        r = g = b = 0.5
    return [r, g, b, alpha]


def paint(widget: Any, color: str, border: str | None = None, *, relative: bool = False) -> Any:
    """Give ``widget`` a solid background (and optional border) that follows its pos/size.

    ``relative``: the widget draws in its own coordinates (a Screen, a RelativeLayout)."""
    with widget.canvas.before:
        col = Color(rgba=rgba(color))
        rect = Rectangle(pos=(0, 0) if relative else widget.pos, size=widget.size)
        if border:
            Color(rgba=rgba(border))
            line = Line(rectangle=(*widget.pos, *widget.size), width=1.2)
        else:
            line = None

    def update(*_: Any) -> None:
        rect.pos = (0, 0) if relative else widget.pos
        rect.size = widget.size
        if line is not None:
            line.rectangle = (*widget.pos, *widget.size)

    widget.bind(pos=update, size=update)
    widget._paint_color = col  # noqa: SLF001 - kept so the colour can be changed later
    return widget


def repaint(widget: Any, color: str) -> None:
    col = getattr(widget, "_paint_color", None)
    if col is not None:
        col.rgba = rgba(color)


class Text(Label):  # type: ignore[misc]
    """A label for table-like screens.

    By default it has a fixed height (1.6 × the font size) and shortens text that does not
    fit; ``wrap=True`` wraps inside the width and grows in height; ``fill=True`` takes the
    size its layout gives it (rows of fixed height, bars).  ``id_name`` tags it for the
    tests and the demo (:meth:`CompanionApp.labelled`).
    """

    def __init__(self, text: str = "", *, size: float = 16, bold: bool = False, color: str = INK, **kw: Any):
        halign = kw.pop("halign", "left")
        valign = kw.pop("valign", "middle")
        wrap = kw.pop("wrap", False)
        fill = kw.pop("fill", False)
        self.id_name: str = kw.pop("id_name", "")
        if not fill and "size_hint_y" not in kw:
            kw["size_hint_y"] = None
            kw.setdefault("height", size * 1.6)
        super().__init__(
            text=text, font_size=size, bold=bold, color=rgba(color), halign=halign, valign=valign, **kw
        )
        if wrap:
            self.bind(width=lambda *_: setattr(self, "text_size", (self.width, None)))
            if not fill:
                self.bind(
                    texture_size=lambda *_: setattr(self, "height", max(self.texture_size[1] + 4, size * 1.6))
                )
        else:
            self.shorten = True
            self.shorten_from = "right"
            self.bind(size=lambda *_: setattr(self, "text_size", self.size))


def button(text: str, on_press: Any, *, size: float = 16, color: str = "#37474f", **kw: Any) -> Button:
    b = Button(
        text=text,
        font_size=size,
        background_normal="",
        background_disabled_normal="",
        background_color=rgba(color),
        color=rgba("#ffffff"),
        halign="center",
        valign="middle",
        **kw,
    )
    b.bind(size=lambda *_: setattr(b, "text_size", (b.width - 8, b.height)))
    b.bind(on_press=lambda *_: on_press())
    b.choices = []  # the action choices a button offers (CompanionApp.touch)
    return b


def row(*children: Any, height: float | None = None, spacing: float = 4, **kw: Any) -> BoxLayout:
    box = BoxLayout(orientation="horizontal", spacing=spacing, **kw)
    if height is not None:
        box.size_hint_y = None
        box.height = height
    for c in children:
        box.add_widget(c)
    return box


def texture_from_bgr(img: NDArray[np.uint8]) -> Texture:
    """A Kivy texture of a BGR numpy image (top row first)."""
    h, w = img.shape[:2]
    tex = Texture.create(size=(w, h), colorfmt="rgb")
    flipped = np.ascontiguousarray(img[::-1, :, ::-1])
    tex.blit_buffer(flipped.tobytes(), colorfmt="rgb", bufferfmt="ubyte")
    return tex
