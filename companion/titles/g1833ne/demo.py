"""``companion demo``'s scenes for this title: the rules' worked example on the touchscreen (see
:mod:`companion.ui.demo`)."""

from __future__ import annotations

from collections.abc import Iterator

from companion.table.service import describe_action
from companion.ui import viewmodels as vm
from companion.ui.demo.common import same_action
from companion.ui.demo.titles import TitleDemoScript


class Demo(TitleDemoScript):
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


DEMO_SCRIPT = Demo
