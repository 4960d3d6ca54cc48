"""``companion demo``: a real 4-player 1870 game played forward on the touchscreen.

The game is the packaged 18xx.games export (:mod:`companion.ui.scenario`).  The demo
enrolls simulated NFC tags on the certificates it will tap, then plays scenes:

1. Setup screen (new game, resume, tag enrollment);
2. the private company auction is replayed; the first stock round is played by *taps*
   on the simulated reader (certificate → buy) and touch buttons (par, pass), each shown
   as a proposal toast and confirmed;
3. later, an operating round: the operating order, the optimiser's suggested routes drawn
   on the map with per-train revenue, the payout/withhold preview, then the run and the
   dividend are proposed and confirmed;
4. the market and the log; an undo asked for and cancelled;
5. a camera check: the simulated camera photographs the table where one tile is missing,
   and the differences are marked on the frame;
6. the rest of the game is replayed to the end (the bank breaks): final scores.

Headless it writes ``NN-<screen>.png`` screenshots, ``screens.json`` (every screenshot's
label texts, for tests) and ``transcript.txt`` to the output folder, then exits.  With a
window it pauses between steps so it can be watched, and stays open at the end.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path
from typing import Any

from companion.interop.actions import remap_players
from companion.interop.replay import table_record
from companion.table.service import describe_action
from companion.table.titles import table_module
from companion.ui import viewmodels as vm
from companion.ui.scenario import demo_export
from companion.ui.session import UISession

__all__ = ["Demo1833NE", "DemoScript", "run_demo", "same_action", "title_script", "uid_for"]


class _Finger:
    """A touch at a window position, as the map's touch handler sees it."""

    def __init__(self, pos: tuple[float, float]) -> None:
        self.pos = pos


def same_action(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two actions do the same thing (ignoring bookkeeping fields; any copy of a tile)."""
    keys = (
        "type",
        "entity",
        "entity_type",
        "shares",
        "corporation",
        "share_price",
        "company",
        "price",
        "train",
        "hex",
        "rotation",
        "city",
        "target",
        "link",
        "links",
        "jumps",
        "bonus",
        # the fields a title without a map names too (City of the Big Shoulders: the action space,
        # the capital asset's slot, the factories, the resources, the demand space, what was drawn)
        "space",
        "slot",
        "factory",
        "worker_factories",
        "manager_factories",
        "first",
        "resource",
        "resources",
        "building",
        "demand",
        "spot",
        "give",
        "take",
        "asset",
        "kind",
        "place",
        "item",
        "variant",  # a double-sided train card's side (1833NE)
        "payment",  # a takeover's (1833NE)
    )

    def tile(x: dict[str, Any]) -> str:
        name = str(x.get("tile", ""))
        return name.rpartition("-")[0] or name

    return all(a.get(k) == b.get(k) for k in keys) and tile(a) == tile(b)


def uid_for(index: int) -> str:
    """A deterministic 7-byte tag UID for the ``index``-th card of the demo."""
    return f"04{0xA10000 + index:06X}{index * 7919 % 0xFFFFFF:06X}"


class DemoScript:
    """The scenes, as a generator driven by :func:`run_demo` (one step per UI tick)."""

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
            game._process(a)  # a recorded real game, replayed as Game.replayed does
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

    def private_company_by_touch(self) -> Iterator[float]:
        """The operating corporation buys a private company by touch: the button proposes it at
        face value, the toast's + raises the price to what the players agreed (the recorded price),
        confirm; then the company's own ability is used from the same list of buttons."""
        app, session = self.app, self.session
        app.show("table")
        yield 0.1
        buy = self.next_action()
        button = next(
            (
                c
                for c in vm.action_choices(session.g18)
                if c.action["type"] == "buy_company" and c.action.get("company") == buy["company"]
            ),
            None,
        )
        if button is None:
            self.say("  (no button offers it: proposed directly)")
            app.propose(buy)
        else:
            self.say(f"  touch: {button.label}")
            app.touch(button.action)
        yield from self.wait_toast()
        for _press in range(12):
            prop = session.pending
            if prop is None or prop.price is None or prop.price >= int(buy["price"]):
                break
            gap = int(buy["price"]) - prop.price
            big = prop.stepped_price(5)
            steps = 5 if big is not None and big - prop.price <= gap else 1
            plus = [b for b in self.toast_buttons() if getattr(b, "price_step", 0) == steps]
            if not plus:
                break
            plus[0].dispatch("on_press")
            before = prop
            for _wait in range(40):
                yield 0.05
                if session.pending is not before:
                    break
        if (yield from self.ensure_recorded(buy, "toast")):
            self.say(f"  + pressed up to the agreed ${buy['price']}")
        yield 0.2
        self.shot("table", "company-toast")
        app.confirm()
        self.pos += 1
        yield 0.2
        use = self.next_action()
        if use.get("entity_type") == "company":
            self.say(f"  touch: {describe_action(session.g18, use)}")
            if not app.touch(use):
                self.say("  (no button offers it: proposed directly)")
                app.propose(use)
            yield from self.wait_toast()
            app.confirm()
            self.pos += 1
            yield 0.2
        self.say(self.state_line())

    def tile_by_touch(self) -> Iterator[float]:
        """The recorded tile lay, by touch: ``Lay tile…``, the hex, then the tile at its rotation."""
        app = self.app
        lay = self.next_action()
        # a finger on the map, on the hex: that hex's lays
        app.show("operating")
        op = app.screens["operating"]
        for _wait in range(200):
            yield 0.05
            if op.map_key == op.key() and not app.busy:
                break
        where = op.pos_of_hex(str(lay["hex"]))
        if where is not None and op._map_touched(op.map, _Finger(where)):
            yield 0.3
            listed = [c for item in app.popup_grid.children for c in getattr(item, "choices", [])]
            self.say(f"  a finger on the map at {lay['hex']}: {len(listed)} tiles and rotations listed")
            if app.popup is not None:
                app.popup.dismiss()
                app.popup = None
            yield 0.2
        else:
            self.say(f"  (the map does not show {lay['hex']} under a finger)")
        app.show("table")
        yield 0.1
        bar = [
            b for b in app.actions_bar.children if any(c.group == "tile" for c in getattr(b, "choices", []))
        ]
        if not bar:
            self.say("  (no Lay tile button: proposed directly)")
            app.propose(lay)
        else:
            bar[0].dispatch("on_press")
            yield 0.2
            hexes = [b for b in app.popup_grid.children if any(same_action(c.action, lay) for c in b.choices)]
            if hexes:
                self.say(
                    f"  Lay tile… then {lay['hex']}: {len(hexes[0].choices)} tiles and rotations to pick from"
                )
                hexes[0].dispatch("on_press")
                yield 0.3
                self.shot("table", "tile-picker")
            if not app.touch_in_popup(lay):
                self.say("  (the picker does not offer it: proposed directly)")
                app.propose(lay)
        yield from self.wait_toast()
        yield from self.ensure_recorded(lay, "picker")
        app.confirm()
        self.pos += 1
        yield 0.2

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
    def scenes(self) -> Iterator[float]:
        app, session = self.app, self.session
        self.say("18xx table companion demo: 1870, 4 players, simulated reader, panel and camera")
        self.say(self.state_line())
        app.show("setup")
        yield 0.3
        self.shot("setup")
        app.show("table")
        yield 0.2
        self.shot("table", "table-auction")

        self.say("Scene 1: the private company auction (replayed)")
        skipped = self.forward_until(lambda g, a: g.round.name == "Stock Round")
        self.say(f"  {skipped} auction actions replayed")
        self.say(self.state_line())

        self.say("Scene 2: the first stock round, by taps and touch")
        taps = 0
        touched = 0
        toast_shot = False
        for _ in range(6 if self.short else 10):
            if self.pos >= len(self.actions) or session.g18.round.name != "Stock Round":
                break
            a = self.next_action()
            if a["type"] == "buy_shares" and len(a.get("shares") or []) == 1:
                uid = self.uids[a["shares"][0]]
                self.say(f"  tap {a['shares'][0]} (tag {uid}) on the bank reader")
                self.reader.tap(0, uid)
                taps += 1
            else:
                self.say(f"  touch: {describe_action(session.g18, a)}")
                if app.touch(a):
                    touched += 1
                else:
                    self.say("  (no button offers it: proposed directly)")
                    app.propose(a)
            for _wait in range(80):
                yield 0.05
                if session.pending is not None and app.toast is not None:
                    break
            prop = session.pending
            if prop is None:
                self.say("  (no proposal: the tap was refused)")
                self.flush_events()
                break
            yield from self.ensure_recorded(a, "tap")
            if not toast_shot and taps:
                yield 0.2
                self.shot("table", "tap-toast")
                toast_shot = True
            app.confirm()
            self.pos += 1
            yield 0.1
        self.say(f"  {taps} taps, {touched} touch buttons")
        self.say(self.state_line())
        yield 0.2
        self.shot("table")
        app.show("shares")
        yield 0.3
        self.shot("shares")
        app.show("market")
        yield 0.2
        self.shot("market", "market-first-sr")

        self.say("Scene 3: a private company changes hands by touch, at the price the players agree on")
        skipped = self.forward_until(
            lambda g, a: (
                a["type"] == "buy_company"
                and a.get("entity_type") == "corporation"
                and int(a["price"]) > g.company(str(a["company"])).value
            )
        )
        self.say(f"  {skipped} actions replayed")
        self.say(self.state_line())
        yield from self.private_company_by_touch()

        self.say("Scene 4: an operating round with route suggestions")
        skipped = self.forward_until(
            lambda g, a: a["type"] == "run_routes" and len(g.current_entity().trains) >= 2 and g.turn >= 4
        )
        self.say(f"  {skipped} actions replayed")
        self.say(self.state_line())
        yield from self.routes_found()
        op = app.screens["operating"]
        ov = vm.operating_view(session.g18, op.routes, dividends=op.dividends)
        self.say("  operating order: " + ", ".join(f"{o.sym}({o.state})" for o in ov.order))
        self.say(f"  {ov.current}: treasury {ov.money(ov.treasury)}, trains {', '.join(ov.trains)}")
        self.say(f"  {ov.routes.summary}")
        for line in ov.routes.lines:
            self.say(f"    {line.text}")
        for d in ov.dividends:
            self.say(f"    preview {d.label}: {d.price_text}")
        self.shot("operating", "operating-routes")
        app.show("map")
        full = app.screens["map"]
        for _wait in range(200):
            yield 0.05
            if full.image.texture is not None and "full-map" not in app.busy:
                break
        yield 0.2
        self.shot("map", "map-full")
        app.show("operating")
        yield 0.2
        played = self.next_action()
        self.say(f"  the players ran for ${sum(int(r['revenue']) for r in played['routes'])}")
        app.propose(played)
        yield from self.wait_toast()
        app.confirm()
        self.pos += 1
        yield 0.3
        self.shot("operating", "operating-dividend")
        div = self.next_action()
        if div["type"] == "dividend":
            app.propose(div)
            yield from self.wait_toast()
            self.shot("operating", "dividend-toast")
            app.confirm()
            self.pos += 1
        self.say(self.state_line())
        yield 0.3
        app.show("market")
        yield 0.2
        self.shot("market")
        app.show("log")
        for _wait in range(200):  # which action wrote each line: read in a worker
            yield 0.05
            if len(session.marks) == len(session.g18.actions):
                break
        app.refresh()
        yield 0.3
        self.shot("log")
        app.ask_undo()
        yield from self.wait_toast()
        self.shot("log", "log-undo-confirm")
        app.cancel()
        self.say("  undo asked for and cancelled")
        back = len(session.g18.actions) - 3
        app.screens["log"].pick(back)  # a finger on the entry three actions back
        yield from self.wait_toast()
        self.shot("log", "log-undo-to")
        app.cancel()
        self.say(f"  undo back to before action {back + 1} asked for and cancelled")

        self.say("Scene 5: the camera checks the board; a tile laid on the table is proposed from it")
        skipped = self.forward_until(
            lambda g, a: a["type"] == "lay_tile" and a["entity_type"] == "corporation"
        )
        self.say(f"  {skipped} actions replayed")
        self.say(self.state_line())
        lay = self.next_action()
        board = vm.board_state(session.g18)
        laid = sorted(board.tiles)
        if self.camera is not None:
            tiles = dict(board.tiles)
            if laid:
                missing = laid[-1]
                del tiles[missing]
                self.say(f"  the tile on {missing} has been knocked off the table")
            tiles[str(lay["hex"])] = (str(lay["tile"]).rsplit("-", 1)[0], int(lay["rotation"]) % 6)
            self.say(
                f"  {lay['entity']} puts tile {lay['tile']} on {lay['hex']} (rotation {lay['rotation']})"
            )
            self.camera.show(board.with_tiles(tiles))
        app.show("camera")
        app.camera_check()
        for _wait in range(600):
            yield 0.05
            if "camera" not in app.busy:
                break
        yield 0.3
        self.shot("camera")
        check = session.last_check
        offered = [a for a in (check.proposals if check is not None else ()) if a["hex"] == lay["hex"]]
        if offered:
            for b in app.screens["camera"].list.children:
                if getattr(b, "camera_action", None) == offered[0]:
                    b.dispatch("on_press")
            yield from self.wait_toast()
            self.shot("camera", "camera-lay-toast")
            yield from self.ensure_recorded(lay, "camera")
            app.confirm()
            self.pos += 1
            yield 0.2
        else:
            self.say("  (the camera did not propose the lay: laid by touch instead)")
            app.propose(lay)
            yield from self.wait_toast()
            app.confirm()
            self.pos += 1
            yield 0.2
        self.say("  unknown tag tapped")
        self.reader.tap(0, "04FFFFFFFFFFFF")
        yield from self.wait_toast()
        self.shot("camera", "tap-unknown")
        app.hide_toast()

        self.say(
            "Scene 6: a tile laid by touch (the hex, then the tile as it will lie), then the rest of the game"
        )
        skipped = self.forward_until(
            lambda g, a: (
                a["type"] == "lay_tile"
                and a["entity_type"] == "corporation"
                # the touch offers the next unused copy of a tile: the record must have used that one
                and g.map.available_tiles(str(a["tile"]).rpartition("-")[0])[:1] == [a["tile"]]
                and len({c.action["hex"] for c in vm.action_choices(g) if c.group == "tile"}) > 1
            )
        )
        self.say(f"  {skipped} actions replayed")
        yield from self.tile_by_touch()
        skipped = self.forward_until(lambda g, a: False)
        self.say(f"  {skipped} actions replayed")
        app.show("table")
        yield 0.3
        self.shot("table", "table-game-over")
        tv = vm.table_view(session.g18)
        self.say("  final: " + ", ".join(f"{n} {tv.money(v)}" for n, v in tv.result))

        self.say("Scene 7: a new game from the Setup screen")
        app.show("setup")
        yield 0.2
        setup = app.screens["setup"]
        names = ["Ann", "Bob", "Cy", "Di"]
        # the first name typed on the on-screen keyboard, docked when the field is touched
        first = setup.names[0]
        first.focus = True
        yield 0.3
        keyboard = next((w for w in app.root_window.children if type(w).__name__ == "VKeyboard"), None)
        first.text = ""
        if keyboard is not None:
            for letter in names[0]:
                keyboard.dispatch("on_textinput", letter)
        yield 0.3
        self.shot("setup", "setup-keyboard")
        self.say(
            f"  typed on the on-screen keyboard: {first.text!r}" if keyboard else "  no on-screen keyboard"
        )
        first.focus = False
        yield 0.2
        for field, name in zip(setup.names, names, strict=False):
            field.text = name
        for b in list(setup.grid.walk(restrict=True)):
            if getattr(b, "text", "") == "Start the new game" and hasattr(b, "choices"):
                b.dispatch("on_press")
        yield 0.3
        self.session = app.session
        tv = vm.table_view(app.session.g18)
        self.say(f"  new game: {', '.join(p.name for p in tv.players)}; {tv.round}; {tv.headline}")
        self.say(f"  games in the store: {len(app.saved_games())}")
        self.shot("table", "new-game")
        self.flush_events()

    def write(self) -> None:
        self.flush_events()
        (self.out / "transcript.txt").write_text("\n".join(self.transcript) + "\n", encoding="utf-8")
        (self.out / "screens.json").write_text(json.dumps(self.records, indent=1), encoding="utf-8")


class TitleDemoScript(DemoScript):
    """1867 and 1861: a real game replayed, stopping where the title differs from 1870 (a minor's
    auction in the stock round, the operating round with its loans, the merger round), each of
    those actions proposed as the touchscreen's button would and confirmed."""

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
        app = self.app
        yield from self.opening("a real game replayed")
        self.say("Scene 1: the private company auction and the stock round up to a minor's auction")
        skipped = self.forward_until(lambda g, a: a["type"] == "bid" and "corporation" in a)
        self.say(f"  {skipped} actions replayed")
        yield from self.play("minor-auction")
        self.say("Scene 2: the first operating round")
        skipped = self.forward_until(lambda g, a: g.round.name == "Operating Round")
        self.say(f"  {skipped} actions replayed")
        app.show("operating")
        yield 0.5
        self.shot("operating", "operating-round")
        self.say("Scene 3: the merger round")
        skipped = self.forward_until(lambda g, a: a["type"] in ("convert", "merge"))
        self.say(f"  {skipped} actions replayed")
        app.show("table")
        yield 0.3
        self.shot("table", "merger-round")
        yield from self.play("merger-choice")
        app.show("shares")
        yield 0.3
        self.shot("shares", "shares")
        self.say("Scene 4: the rest of the game, replayed")
        skipped = self.forward_until(lambda g, a: False)
        self.say(f"  {skipped} actions replayed")
        app.show("table")
        yield 0.3
        self.shot("table", "table-game-over")
        tv = vm.table_view(self.session.g18)
        self.say("  final: " + ", ".join(f"{n} {tv.money(v)}" for n, v in tv.result))


class BoardDemoScript(DemoScript):
    """A title without a map: the scripted game night of its table module (``DEMO_SCENES``, in the
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
            choices = vm.title_choices(service.game)
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


class Demo1833NE(TitleDemoScript):
    """1833NE: the rules' worked example ("Kolo krok za krokem") on the touchscreen: the private
    auction, a corporation founded at a chosen price, shares issued at a column below its price
    (the Operating screen's shares table), the first 3/5 card tapped (which side?), Hartford
    redeeming shares and tapping a ferry marker, and Hartford's 2 to New Haven, whose route (with
    its ferry and the "New" ferry bonus) the engine finds and pays, full or half."""

    def show_panel(self, heading: str) -> Iterator[float]:
        """Scroll the Operating screen's column to one of the title's tables (as a finger would)."""
        yield 0.3  # the column laid out first
        if not self.app.operating_screen.show_panel(heading):
            raise RuntimeError(f"demo: no table {heading!r} on the Operating screen")
        yield 0.2

    def play_shown(self, label: str, heading: str) -> Iterator[float]:
        """Like :meth:`play` on the Operating screen, scrolled to the table the action is about."""
        a = self.next_action()
        self.say(f"  {describe_action(self.session.g18, a)}: proposed on the operating screen")
        self.app.show("operating")
        self.app.propose(a)
        yield from self.wait_toast()
        yield from self.show_panel(heading)
        yield from self.confirm_shot(label, "operating")

    def tap(self, card: str, label: str, heading: str) -> Iterator[float]:
        """The next recorded action by a tap of ``card`` (its side, for a train card, chosen on the
        toast as the recording has it), shown scrolled to ``heading``, confirmed."""
        from companion.table.script import demo_uid
        from companion.table.tags import find_item

        a = self.next_action()
        self.say(f"  tap {card} on the reader")
        self.app.show("operating")
        self.app.tap(demo_uid(find_item(self.session.g18.title, card)))
        yield from self.wait_toast()
        yield from self.show_panel(heading)
        pending = self.session.service.proposal
        if pending is None:
            raise RuntimeError(f"demo: the tap of {card} proposed nothing")
        if pending.options:
            self.say("    options: " + ", ".join(o.label for o in pending.options))
            pick = next(i for i, o in enumerate(pending.options) if same_action(o.action, a))
            if pick != pending.selected:
                self.session.choose(pick)
                yield 0.3
        yield from self.confirm_shot(label, "operating")

    def scenes(self) -> Iterator[float]:
        from companion.table.script import enroll_demo_tags

        app = self.app
        service = self.session.service
        enroll_demo_tags(service.registry, service.game.title, service.game.optional_rules)
        yield from self.opening("the rules' example")
        self.say("Scene 1: the private auction, then a corporation founded at the price its president chose")
        self.say(f"  {self.forward_until(lambda g, a: a['type'] == 'par')} actions replayed")
        yield from self.play("founding")
        self.say(
            "Scene 2: operating round 1.1: Boston & Worcester issues two shares, a column below its price"
        )
        self.say(
            f"  {self.forward_until(lambda g, a: a['type'] == 'sell_shares' and a['entity'] == 'BW')}"
            " actions replayed"
        )
        yield from self.play_shown("issue-shares", "BW's shares")
        self.say("Scene 3: operating round 1.2: B&W taps the first card of phase II; which side?")
        self.say(
            f"  {self.forward_until(lambda g, a: a['type'] == 'buy_train' and a['train'] == '3/5-0')}"
            " actions replayed"
        )
        yield from self.tap("3/5-0", "train-sides", "BW's trains")
        self.say("Scene 4: Hartford redeems four shares a column above its price, then taps a ferry marker")
        self.say(
            f"  {self.forward_until(lambda g, a: a['type'] == 'buy_shares' and a['entity'] == 'HR')}"
            " actions replayed"
        )
        yield from self.play_shown("redeem-shares", "HR's shares")
        self.say(f"  {self.forward_until(lambda g, a: a['type'] == 'buy_ferry')} actions replayed")
        yield from self.tap("ferry-1", "ferry-tap", "Ferries (0 of 5 bought)")
        self.say("Scene 5: Hartford's ferry run, found by the route search")
        self.say(
            f"  {self.forward_until(lambda g, a: a['type'] == 'run_routes' and a['entity'] == 'HR')} replayed"
        )
        yield from self.routes_found()
        op = app.screens["operating"]
        ov = vm.operating_view(self.session.g18, op.routes, dividends=op.dividends)
        self.say(f"  {ov.routes.summary}")
        for line in ov.routes.lines:
            self.say(f"    {line.text}")
        self.shot("operating", "operating-routes")
        yield from self.play("run-routes", "operating")
        yield from self.play_shown("dividend", "HR ran for $80: what each holder gets")
        self.say("Scene 6: the rest of the example, replayed")
        self.say(f"  {self.forward_until(lambda g, a: False)} actions replayed")
        app.show("table")
        yield 0.3
        self.shot("table", "table-stock-round-2")


def title_script(title: str) -> type[TitleDemoScript]:
    """The scenes of a title's demo other than 1870's."""
    return Demo1833NE if title == "1833NE" else TitleDemoScript


def run_demo(
    out: Path,
    size: tuple[int, int],
    *,
    headless: bool,
    short: bool = False,
    step_delay: float = 0.0,
    title: str = "1870",
) -> int:
    """Run the demo app; returns an exit code.  Kivy must be importable (a display or Xvfb)."""
    from companion.ui.kivyconf import configure_kivy

    configure_kivy(size)

    from companion.hardware.camera import SimulatedCamera
    from companion.hardware.reader import SimulatedReader
    from companion.store import Store
    from companion.table.service import TableService
    from companion.table.tags import TagRegistry, find_item
    from companion.ui.app import CompanionApp

    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.png"):
        old.unlink()
    module = table_module(title)
    if module is not None:
        return _board_demo(module, title, out, headless, step_delay, short)
    export = demo_export(title=title)
    seats = {p["id"]: i + 1 for i, p in enumerate(export["players"])}
    names = [str(p["name"]) for p in export["players"]]
    # the recorded game as the table records it (its engine takes the automatic steps itself)
    actions = [remap_players(a, seats) for a in table_record(export)[0]]
    settings = export.get("settings") or {}
    tmp = Path(tempfile.mkdtemp(prefix="companion-demo-"))
    store = Store.open(tmp / "companion.sqlite3")
    registry = TagRegistry.open(tmp / "companion.sqlite3")
    service = TableService.new(
        store, registry, title, names, settings.get("optional_rules") or [], int(settings.get("seed") or 0)
    )
    session = UISession(service)
    if title != "1870":
        app = CompanionApp(session, store=store, registry=registry)
        script: DemoScript = title_script(title)(
            app, session, actions, out, reader=None, uids={}, camera=None, short=short
        )
        return _run(app, script, None, headless, step_delay, store, registry)
    # a tag on every certificate the demo taps (the first stock round's single-certificate buys)
    uids: dict[str, str] = {}
    for a in actions[:160]:
        if a.get("type") == "buy_shares" and len(a.get("shares") or []) == 1 and a["shares"][0] not in uids:
            uid = uid_for(len(uids))
            registry.enroll(uid, find_item("1870", a["shares"][0]))
            uids[a["shares"][0]] = uid
    reader = SimulatedReader(follow=True)
    camera = SimulatedCamera(vm.board_state(session.g18), seed=7, strength=0.35, size=(1640, 1232))

    def recognizer() -> Any:
        from vision.board import board_from_title
        from vision.pipeline import Recognizer

        return Recognizer(board_from_title("1870"))

    app = CompanionApp(session, camera=camera, recognizer_factory=recognizer, store=store, registry=registry)
    script = DemoScript(app, session, actions, out, reader=reader, uids=uids, camera=camera, short=short)
    return _run(app, script, reader, headless, step_delay, store, registry)


def _board_demo(module: Any, title: str, out: Path, headless: bool, step_delay: float, short: bool) -> int:
    """The demo of a title without a map: its table module's scripted game night on the simulated
    reader (every card with a made-up tag), no camera (nothing to check)."""
    from companion.hardware.reader import SimulatedReader
    from companion.store import Store
    from companion.table.script import enroll_demo_tags
    from companion.table.service import TableService
    from companion.table.tags import TagRegistry
    from companion.ui.app import CompanionApp

    scenes = getattr(module, "DEMO_SCENES", None)
    if not scenes:
        raise RuntimeError(f"{title} has no demo at the table yet")
    tmp = Path(tempfile.mkdtemp(prefix="companion-demo-"))
    store = Store.open(tmp / "companion.sqlite3")
    registry = TagRegistry.open(tmp / "companion.sqlite3")
    enroll_demo_tags(registry, title)
    service = TableService.new(store, registry, title, list(module.DEMO_PLAYERS))
    session = UISession(service)
    reader = SimulatedReader(follow=True)
    app = CompanionApp(session, store=store, registry=registry)
    script = BoardDemoScript(
        app,
        session,
        [],
        out,
        reader=reader,
        uids={},
        camera=None,
        short=short,
        scene_list=scenes,
        registry=registry,
    )
    return _run(app, script, reader, headless, step_delay, store, registry)


def _run(
    app: Any, script: DemoScript, reader: Any, headless: bool, step_delay: float, store: Any, registry: Any
) -> int:
    """Drive ``script``'s scenes on the UI clock, then close the hardware and the databases."""
    from kivy.clock import Clock

    steps = script.scenes()
    status = {"code": 0}

    def tick(_dt: float) -> None:
        try:
            delay = next(steps)
        except StopIteration:
            script.write()
            if reader is not None:
                reader.close()
            if headless:
                app.stop()
            return
        except Exception as exc:
            script.say(f"demo failed: {exc!r}")
            script.write()
            status["code"] = 1
            if reader is not None:
                reader.close()
            app.stop()
            raise
        Clock.schedule_once(tick, delay + step_delay)

    def start(_dt: float) -> None:
        if reader is not None:
            app.start_reader(reader)
        tick(0)

    Clock.schedule_once(start, 0.2)
    app.run()
    registry.close()
    store.close()
    return status["code"]
