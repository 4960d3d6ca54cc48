"""``companion demo``'s scenes for this title: its packaged real game replayed, stopping where the
title differs from the first map title's demo (a minor's auction in the stock round, the operating
round with its loans, the merger round), each of those actions proposed and confirmed (see
:mod:`companion.ui.demo`)."""

from __future__ import annotations

from collections.abc import Iterator

from companion.ui.demo.titles import TitleDemoScript


class Demo(TitleDemoScript):
    """The scenes of this title's demo (and of the titles built on its rules)."""

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
        yield from self.to_the_end()


DEMO_SCRIPT = Demo
