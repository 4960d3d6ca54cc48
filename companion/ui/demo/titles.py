"""The demos a title gets without writing its own scenes: its packaged game replayed to the end
(:class:`TitleDemoScript`, whose helpers a title's own scenes use), or, for a title without the 18xx map, the
board of panels played from the scenes of its ``demo.py`` (:class:`BoardDemoScript`).  A title that
shows more writes a subclass in its own folder (``companion/titles/<package>/demo.py``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from companion.table.service import describe_action
from companion.ui import viewmodels as vm
from companion.ui.demo.script import DemoScript


class TitleDemoScript(DemoScript):
    """A real game replayed; a title's own scenes (its ``demo.py``) stop at the actions it shows,
    each proposed as the touchscreen's button would and confirmed (:meth:`play`)."""

    def play(self, label: str, screen: str = "table") -> Iterator[float]:
        """Propose the next recorded action through the table service, show its toast, confirm."""
        a = self.next_action()
        self.say(f"  {describe_action(self.session.g18, a)}: proposed on the {screen} screen")
        self.app.show(screen)
        self.app.propose(a)
        yield from self.wait_toast()
        yield from self.confirm_shot(label, screen)

    def confirm_shot(self, label: str, screen: str) -> Iterator[float]:
        """A screenshot of the toast, then Confirm, and wait until the engine has applied it."""
        self.shot(screen, label)
        before = len(self.session.g18.actions)
        self.app.confirm()
        for _ in range(80):
            if len(self.session.g18.actions) > before:
                break
            yield 0.05
        if len(self.session.g18.actions) <= before:
            raise RuntimeError(f"{label}: the proposed action was not applied")
        self.pos += 1
        self.say(self.state_line())

    def opening(self, what: str) -> Iterator[float]:
        """The demo's first lines and the Table screen at the private auction."""
        game = self.session.g18
        self.say(f"18xx table companion demo: {game.title}, {len(game.players)} players, {what}")
        self.say(self.state_line())
        self.app.show("table")
        yield 0.3
        self.shot("table", "table-auction")

    def scenes(self) -> Iterator[float]:
        """A title without scenes of its own: its game replayed to the end, the final scores."""
        yield from self.opening("a real game replayed")
        yield from self.to_the_end()

    def to_the_end(self) -> Iterator[float]:
        """The rest of the game replayed, and the game-over screen."""
        skipped = self.forward_until(lambda g, a: False)
        self.say(f"  {skipped} actions replayed")
        self.app.show("table")
        yield 0.3
        self.shot("table", "table-game-over")
        tv = vm.table_view(self.session.g18)
        self.say("  final: " + ", ".join(f"{n} {tv.money(v)}" for n, v in tv.result))


class BoardDemoScript(DemoScript):
    """A title without a map: the scripted game night of its ``demo.py`` (``DEMO_SCENES``, in the
    ``companion table`` script grammar): certificates and player cards tapped on the simulated
    reader, touch buttons pressed on the screen, every proposal confirmed on the toast; a
    screenshot after each scene."""

    def __init__(
        self, *args: Any, scene_list: Sequence[tuple[str, str, str]], registry: Any, **kw: Any
    ) -> None:
        super().__init__(*args, **kw)
        self.scene_list = list(scene_list)
        self.registry = registry

    def state_line(self) -> str:
        bv = vm.board_view(self.session.game)
        cash = ", ".join(f"{p.name} ${p.cash:,}" for p in self.session.game.players)
        return f"  [{bv.round}] {bv.bank_text}; {bv.headline}; {cash}"

    def _wait(self, done: Any, what: str) -> Iterator[float]:
        for _ in range(100):
            if done():
                return
            yield 0.05
        raise RuntimeError(f"demo: {what} did not happen")

    def do(self, step: Any) -> Iterator[float]:
        """One script step, as the players would do it at the table."""
        from companion.hardware.events import TagEvent, TagRemoved
        from companion.table.script import Choose, Nudge, Press, SetPrice, Touch, TouchMap

        service = self.session.service
        app = self.app
        if isinstance(step, TagEvent):
            item = self.registry.lookup(step.uid)
            self.say(f"  tap {item.id if item else step.uid} on the reader")
            events = self.session.events
            before = len(events)
            self.reader.tap(0, step.uid)
            answered = lambda: any(not e.startswith("[tap]") for e in events[before:])  # noqa: E731
            yield from self._wait(answered, f"an answer to the tap of {step.uid}")
            yield 0.15  # the toast is shown on the next UI frame
        elif isinstance(step, TagRemoved):
            return
        elif isinstance(step, Press) and step.button.value == "confirm":
            count = len(service.game.actions)
            app.confirm()
            yield from self._wait(lambda: len(service.game.actions) != count, "a confirmed action")
            yield 0.15  # the screen and its buttons are redrawn on the next UI frame
        elif isinstance(step, Press):
            app.press(step.button.value)
            yield 0.1
        elif isinstance(step, Choose):
            service.choose_label(step.option)
            yield 0.1
        elif isinstance(step, SetPrice):
            service.set_price(step.price)
            yield 0.1
        elif isinstance(step, Nudge):
            service.step_price(step.steps)
            yield 0.1
        elif isinstance(step, Touch):
            wanted = step.label.lower()
            choices = vm.action_choices(service.game)
            pick = next((c for c in choices if c.label.lower() == wanted), None) or next(
                (c for c in choices if c.label.lower().startswith(wanted)), None
            )
            if pick is None or not app.touch(pick.action):
                raise RuntimeError(f"demo: no button {step.label!r} on the screen")
            self.say(f"  touch {pick.label}")
            yield from self.wait_toast()
        elif isinstance(step, TouchMap):
            for place in (step.first, step.second):
                if not app.touch_map(place):
                    raise RuntimeError(f"demo: no place {place!r} on the drawn map")
            self.say(f"  touch {step.first} then {step.second} on the map")
            yield from self.wait_toast()

    def scenes(self) -> Iterator[float]:
        from companion.table.script import parse_table_script

        game = self.session.game
        name = self.session.title_name
        self.say(f"18xx table companion demo: {name}, {len(game.players)} players, simulated reader")
        self.say(self.state_line())
        self.app.show("board")
        yield 0.3
        for text, label, screen in self.scene_list:
            for step in parse_table_script(text, registry=self.registry, title=game.title):
                yield from self.do(step)
            self.app.show(screen)
            yield 0.4
            self.shot(screen, label)
            self.say(self.state_line())
