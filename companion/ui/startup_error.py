"""What the touchscreen shows when the companion cannot start: the reason and Close."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.core.window import Window
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.widget import Widget

from companion.ui.widgets import Text, button, paint


class StartupErrorApp(App):  # type: ignore[misc]
    """What the touchscreen shows when the companion cannot start: the reason and Close
    (``companion run`` prints and logs the same, and exits with status 2 when it closes)."""

    title = "18xx table companion"

    def __init__(self, message: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.message = message
        width, height = Window.size
        self.u = min(width / 800, height / 480)

    def build(self) -> Widget:
        u = self.u
        box = BoxLayout(orientation="vertical", padding=(20 * u, 16 * u), spacing=12 * u)
        paint(box, "#4e1111")
        box.add_widget(Text("The companion cannot start", size=28 * u, bold=True, color="#ffffff"))
        box.add_widget(
            Text(self.message, size=18 * u, color="#ffffff", wrap=True, fill=True, id_name="startup-error")
        )
        box.add_widget(
            Text(
                "Fix the configuration, then start it again (the log file has the details).",
                size=15 * u,
                color="#eeeeee",
                wrap=True,
            )
        )
        box.add_widget(
            button("Close", self.stop, size=20 * u, color="#616161", size_hint_y=None, height=56 * u)
        )
        self.root_layout = box
        return box

    def texts(self) -> list[str]:
        return [str(w.text) for w in self.root_layout.walk(restrict=False) if isinstance(w, Label) and w.text]

    def screenshot(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.root_layout.export_to_png(str(path))
        return path
