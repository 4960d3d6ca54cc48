"""What every demo script does between its scenes (see :mod:`companion.ui.demo`): say a line of the
transcript, take a screenshot, replay the recorded game forward, wait for a toast.  A title's own
scenes live in its folder (``companion/titles/<package>/demo.py``)."""

from __future__ import annotations

import json
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

from companion.ui import viewmodels as vm
from companion.ui.demo.common import same_action
from companion.ui.session import UISession


class DemoScript:
    """The scenes, as a generator driven by :func:`run_demo` (one step per UI tick): a subclass
    writes :meth:`scenes`."""

    #: the demo taps certificates on the simulated reader and checks the board with the simulated
    #: camera (the runner enrols a tag on each certificate the first stock round buys alone)
    uses_devices = False

    def __init__(
        self,
        app: Any,
        session: UISession,
        actions: list[dict[str, Any]],
        out: Path,
        *,
        reader: Any,
        uids: dict[str, str],
        camera: Any,
        short: bool = False,
    ) -> None:
        self.app = app
        self.session = session
        self.actions = actions
        self.out = out
        self.reader = reader
        self.uids = uids
        self.camera = camera
        self.short = short
        self.pos = 0  # index of the next export action to play
        self.shots = 0
        self.transcript: list[str] = []
        self.records: list[dict[str, Any]] = []
        self._seen_events = 0

    # -- helpers ----------------------------------------------------------------------------------------
    def say(self, text: str) -> None:
        self.flush_events()
        self.transcript.append(text)

    def flush_events(self) -> None:
        events = self.session.events[self._seen_events :]
        self._seen_events = len(self.session.events)
        self.transcript.extend(f"    {e}" for e in events)

    def state_line(self) -> str:
        tv = vm.table_view(self.session.g18)
        cash = ", ".join(f"{p.name} {tv.money(p.cash)}" for p in tv.players)
        return f"  [{tv.round}] bank {tv.money(tv.bank_cash)}; {tv.headline}; {cash}"

    def shot(self, screen: str, label: str | None = None) -> None:
        self.shots += 1
        name = f"{self.shots:02d}-{label or screen}.png"
        path = self.app.screenshot(self.out / name)
        self.records.append(
            {
                "file": path.name,
                "screen": screen,
                "actions": len(self.session.game.actions),
                "texts": self.app.texts(),
                "labelled": self.app.labelled(),
                "window": [self.app.width_px, self.app.height_px],
            }
        )
        self.say(f"  screenshot {name}")

    def forward_until(self, predicate: Any) -> int:
        """Replay recorded actions until ``predicate(game, next action)`` holds; store them."""
        batch: list[dict[str, Any]] = []
        game = self.session.g18
        while self.pos < len(self.actions):
            a = self.actions[self.pos]
            if predicate(game, a):
                break
            game.replay_action(a)  # a recorded real game, replayed as Game.replayed does
            batch.append(a)
            self.pos += 1
        self.session.recorded(batch)
        return len(batch)

    def wait_toast(self) -> Iterator[float]:
        """Yield until the app shows a toast (the service answers on the next UI frame)."""
        for _ in range(80):
            if self.app.toast is not None:
                break
            yield 0.05
        yield 0.1

    def next_action(self) -> dict[str, Any]:
        return self.actions[self.pos]

    def routes_found(self) -> Iterator[float]:
        """Show the operating screen and yield until its route search has answered."""
        self.app.show("operating")
        for _wait in range(400):
            yield 0.05
            op = self.app.screens["operating"]
            if "routes" not in self.app.busy and op.routes is not None:
                break
        yield 0.3

    def ensure_recorded(self, recorded: dict[str, Any], source: str) -> Generator[float, None, bool]:
        """Make sure the pending proposal is the recorded action (the very tile copy too, so the rest
        of the record replays); if it is not, say so and propose the record instead.  Whether the
        proposal already was the record."""
        prop = self.session.pending
        if (
            prop is not None
            and same_action(prop.action, recorded)
            and prop.action.get("tile") == recorded.get("tile")
        ):
            return True
        shown = prop.action if prop is not None else None
        self.say(f"  the {source} proposes {shown}, the game recorded {recorded}: playing the record")
        self.app.cancel()
        yield 0.1
        self.app.propose(recorded)
        yield from self.wait_toast()
        return False

    def toast_buttons(self) -> list[Any]:
        """Every button on the toast now showing."""
        found: list[Any] = []
        stack = [self.app.toast] if self.app.toast is not None else []
        while stack:
            widget = stack.pop()
            if hasattr(widget, "price_step") or type(widget).__name__.endswith("Button"):
                found.append(widget)
            stack.extend(getattr(widget, "children", []))
        return found

    # -- the scenes -------------------------------------------------------------------------------------
    @staticmethod
    def tapped_cards(actions: list[dict[str, Any]]) -> list[str]:
        """The cards a demo that :attr:`uses_devices` taps on the simulated reader, each once (the
        runner enrols a tag on each): none by default."""
        return []

    def scenes(self) -> Iterator[float]:
        raise NotImplementedError

    def write(self) -> None:
        self.flush_events()
        (self.out / "transcript.txt").write_text("\n".join(self.transcript) + "\n", encoding="utf-8")
        (self.out / "screens.json").write_text(json.dumps(self.records, indent=1), encoding="utf-8")
