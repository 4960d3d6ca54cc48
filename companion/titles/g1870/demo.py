"""``companion demo``'s scenes for this title: a real 4-player game played forward on the touchscreen,
with taps on the simulated reader, the panel, and a camera check (see :mod:`companion.ui.demo`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from companion.table.service import describe_action
from companion.ui import viewmodels as vm
from companion.ui.demo.common import _Finger, same_action
from companion.ui.demo.script import DemoScript


class Demo(DemoScript):
    """The scenes of this title's demo."""

    uses_devices = True

    @staticmethod
    def tapped_cards(actions: list[dict[str, Any]]) -> list[str]:
        """The certificates the first stock round buys one at a time (the scene taps them)."""
        cards: list[str] = []
        for a in actions[:160]:
            shares = a.get("shares") or []
            if a.get("type") == "buy_shares" and len(shares) == 1 and shares[0] not in cards:
                cards.append(str(shares[0]))
        return cards

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
        offered = [a for a in (check.proposals if check is not None else ()) if a.get("hex") == lay["hex"]]
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
        for _ in range(100):  # the game's story, worked out from the log for the game-over screen
            if app.story_cache is not None and "story" not in app.busy:
                break
            yield 0.1
        yield 0.2
        self.shot("table", "table-game-over")
        tv = vm.table_view(session.g18)
        self.say("  final: " + ", ".join(f"{n} {tv.money(v)}" for n, v in tv.result))
        app.show("history")
        yield 0.3
        self.shot("history")
        story = app.story_cache[1] if app.story_cache is not None else None
        if story is not None:
            self.say(f"  the game's story: {len(story.labels) - 1} rounds drawn")

        self.say("Scene 7: a new game from the Setup screen")
        app.show("setup")
        yield 0.2
        setup = app.screens["setup"]
        names = ["Ann", "Bob", "Cy", "Di"]
        # the first name typed on the on-screen keyboard, docked when the field is touched
        first = setup.names[0]
        first.focus = True
        yield 0.3
        from kivy.uix.vkeyboard import VKeyboard

        keyboard = next((w for w in app.root_window.children if isinstance(w, VKeyboard)), None)
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


DEMO_SCRIPT = Demo
