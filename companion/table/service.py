"""Tap to action: the table service turns NFC taps and button presses into confirmed engine actions.

A tap is looked up in the tag registry and interpreted in the current state
of the game (whose turn it is, who owns the tapped card) as a *proposal*: an
18xx.games action, the engine's preview of it, and a sentence in the game's
words ("Player 1 buys 10% SLSF from the IPO for $100").  Nothing changes until
the confirm button is pressed; then the action is appended to the store
(committed) and only then applied to the engine.  Cancel drops the proposal;
undo proposes taking back the last action (confirm to do it).

Every proposal is checked by the engine first (``game.preview``): an illegal
tap is refused with the engine's reason and changes nothing.  See
``docs/TABLE.md`` for the mapping of taps to actions and the button scheme.

The service is thread-safe: the reader thread delivers taps, gpiozero's thread
delivers button presses, the UI calls :meth:`choose` / :meth:`set_price`.
Listeners get every proposal (``on_proposal``; ``None`` when it is dropped)
and every result (``on_result``).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from companion.engine import GameError, new_game
from companion.engine.core import TableGame
from companion.engine.rounds import LegalAction
from companion.hardware.events import ReaderEvent, TagEvent
from companion.store import Store, StoreError
from companion.table import drawnmap, rewind
from companion.table.proposal import Action, Button, Option, Outcome, Proposal, Result, bare_amount
from companion.table.proposer import Proposer
from companion.table.tags import TagError, TagRegistry
from companion.table.titles import ActionChoice, Network, network_of, table_title

if TYPE_CHECKING:
    from companion.engine.route_optimizer import RouteResult

log = logging.getLogger("companion.table")

#: how long the table looks for the best routes before it offers the best found (seconds)
ROUTES_TIME_LIMIT = 10.0

__all__ = [
    "Action",
    "Button",
    "Option",
    "Proposal",
    "Result",
    "TableService",
    "describe_action",
    "game_from_store",
]


def game_from_store(store: Store, game_id: int) -> TableGame:
    """The game as the store has it: its title and players with every effective action applied
    (``StoreError`` naming the first logged action the engine refuses); any title's game (an 18xx
    ``Game``, or a title without a map)."""
    game: TableGame = store.replayed(game_id)
    return game


def money_in(game: TableGame, amount: object) -> str:
    """``amount`` in the currency of ``game``'s title (1861: ``1,000₽``)."""
    return table_title(game.title).money(game, amount)


class TableService(Proposer):
    """Turns taps and button presses into proposals, and confirmed proposals into stored, applied actions."""

    def __init__(
        self,
        game: TableGame,
        store: Store,
        game_id: int,
        registry: TagRegistry,
        *,
        feedback: Sequence[Callable[[bool], object]] = (),
        on_proposal: Callable[[Proposal | None], object] | None = None,
        on_result: Callable[[Result], object] | None = None,
    ) -> None:
        self.game = game
        game.keep_checkpoints()  # an undo at the table replays only the last few actions
        self.store = store
        self.game_id = game_id
        self.registry = registry
        self.feedback = list(feedback)
        self.on_proposal = on_proposal
        self.on_result = on_result
        self._proposal: Proposal | None = None
        self._routes: tuple[tuple[int, int], RouteResult | None] | None = None
        self._lock = threading.RLock()
        self._handled = threading.Condition(self._lock)
        self.handled = 0
        """How many events (taps, lifts, presses) have been handled; :meth:`wait_handled` waits on it."""

    # -- construction ----------------------------------------------------------------------------------
    @classmethod
    def open(cls, store: Store, game_id: int, registry: TagRegistry, **kwargs: Any) -> TableService:
        """Resume game ``game_id`` of the store (the engine replays its log)."""
        return cls(game_from_store(store, game_id), store, game_id, registry, **kwargs)

    @classmethod
    def new(
        cls,
        store: Store,
        registry: TagRegistry,
        title: str,
        players: list[str],
        optional_rules: Iterable[str] = (),
        seed: int = 0,
        **kwargs: Any,
    ) -> TableService:
        """Start a new game in the store (players are seats 1, 2, ... in this order)."""
        rules = sorted(set(optional_rules))
        # checks title and player count first
        game = new_game(title, list(players), frozenset(rules), seed)
        game_id = store.create_game(title, list(players), rules, seed)
        return cls(game, store, game_id, registry, **kwargs)

    # -- state -----------------------------------------------------------------------------------------

    @property
    def proposal(self) -> Proposal | None:
        with self._lock:
            return self._proposal

    def wait_handled(self, count: int, timeout: float = 5.0) -> bool:
        """Wait until at least ``count`` events have been handled; False on timeout."""
        with self._handled:
            return self._handled.wait_for(lambda: self.handled >= count, timeout)

    def _done(self) -> None:
        self.handled += 1
        self._handled.notify_all()

    # -- notifications ---------------------------------------------------------------------------------
    def _signal(self, ok: bool) -> None:
        for sink in self.feedback:
            try:
                sink(ok)
            except Exception:  # a broken LED must never stop the table
                log.exception("table: feedback failed")

    def _set_proposal(self, proposal: Proposal | None) -> None:
        self._proposal = proposal
        if self.on_proposal is not None:
            try:
                self.on_proposal(proposal)
            except Exception:  # a broken screen must not stop the table
                log.exception("table: on_proposal listener failed")

    def offer(self, proposal: Proposal) -> Proposal:
        self._set_proposal(proposal)
        self._signal(True)
        log.info("table: proposal: %s", proposal.text)
        return proposal

    def _result(self, result: Result, *, signal: bool = True) -> Result:
        if signal:
            self._signal(result.ok)
        log.info("table: %s: %s", "ok" if result.ok else "refused", result.text)
        if self.on_result is not None:
            try:
                self.on_result(result)
            except Exception:  # a broken screen must not stop the table
                log.exception("table: on_result listener failed")
        return result

    def drop(self, text: str) -> Result:
        """Drop the pending proposal, saying ``text`` (a sale whose last certificate was tapped out)."""
        self._set_proposal(None)
        return self._result(Result(True, text))

    def _refuse(self, text: str) -> Result:
        return self._result(Result(False, self.title.in_money(self.game, text)))

    # -- events ----------------------------------------------------------------------------------------
    def handle(self, event: ReaderEvent) -> Outcome | None:
        """A reader event: a tag placed is interpreted, a tag lifted is ignored."""
        with self._lock:
            try:
                return self.tap(event.uid) if isinstance(event, TagEvent) else None
            finally:
                self._done()

    def press(self, button: Button | str) -> Outcome | None:
        """A panel (or on-screen) button."""
        with self._lock:
            try:
                try:
                    which = Button(button)
                except ValueError:
                    return self._refuse(
                        f"unknown button {button!r}; the buttons are confirm, cancel and undo"
                    )
                if which is Button.CONFIRM:
                    return self.confirm()
                if which is Button.CANCEL:
                    return self.cancel()
                return self.undo()
            finally:
                self._done()

    def tap(self, uid: str) -> Outcome:
        """A tag tapped on any pad: look it up, interpret it, propose or refuse."""
        with self._lock:
            try:
                item = self.registry.lookup(uid)
            except TagError as exc:
                return self._refuse(str(exc))
            except StoreError as exc:
                return self._refuse(f"cannot read the tag registry: {exc}")
            except Exception as exc:  # a registry fault must never stop the table: refuse the tap
                log.exception("table: looking up tag %s failed", uid)
                return self._refuse(f"cannot read tag {uid} in the tag registry ({exc}); nothing changed")
            if item is None:
                return self._refuse(f"unknown tag {uid}: enroll it with companion tags enroll")
            if item.title != self.game.title:
                return self._refuse(
                    f"tag {uid} is on a {item.title} card ({item.label}); this table plays {self.game.title}"
                )
            if self.game.finished:
                return self._refuse(f"the game is over ({self.game.game_end_reason}); no more actions")
            try:
                return self.title.tap(self, item)
            except GameError as exc:
                return self._refuse(str(exc))
            except Exception as exc:  # an engine bug must not stop the table: refuse, change nothing
                log.exception("table: interpreting %s failed", item.id)
                return self._refuse(f"internal error on {item.label}: {exc!r}; nothing changed")

    # -- buttons ---------------------------------------------------------------------------------------
    def cancel(self) -> Result:
        with self._lock:
            if self._proposal is None:
                return self._result(Result(True, "nothing to cancel"), signal=False)
            text = self._proposal.text
            self._set_proposal(None)
            return self._result(Result(True, f"cancelled: {text}"))

    def confirm(self) -> Result:
        """Store, then apply, the pending proposal."""
        with self._lock:
            proposal = self._proposal
            if proposal is None:
                return self._refuse("nothing to confirm: tap a card first")
            if proposal.rewind:
                return rewind.confirm(self, proposal)
            action = proposal.action
            try:
                seq = self.store.append(self.game_id, action)
            except StoreError as exc:
                return self._refuse(f"not saved, nothing changed: {exc}")
            try:
                # the proposal's preview already tried this action on this very state
                lines = self.game.apply(action, proposal.preview)
            except Exception as exc:
                # the engine refused what it accepted in the preview: take it back out of the log
                rewind.store_undo(self, action)
                self._set_proposal(None)
                reason = str(exc) if isinstance(exc, GameError) else f"internal error: {exc!r}"
                if not isinstance(exc, GameError):
                    log.exception("table: the engine failed on %s", action)
                return self._refuse(reason)
            self._set_proposal(None)
            if self.game.finished:  # listed finished at once (an undo reopens it; a load marks it too)
                with contextlib.suppress(StoreError):
                    self.store.set_status(self.game_id, "finished")
            return self._result(
                Result(
                    True,
                    proposal.text,
                    action=action,
                    seq=seq,
                    applied=True,
                    log=tuple(self.title.in_money(self.game, line) for line in lines),
                )
            )

    def undo(self) -> Outcome:
        """Propose taking back the last action (confirm does it); with a proposal pending, drop that first."""
        return rewind.undo(self)

    def undo_to(self, keep: int) -> Outcome:
        """Propose taking back every action after the first ``keep`` (a pending proposal is dropped)."""
        return rewind.undo_to(self, keep)

    def redoable(self) -> list[Action]:
        """The actions a redo would bring back (those the latest undo took back, until a new action)."""
        return rewind.redoable(self)

    def redo(self) -> Outcome:
        """Propose bringing back what the latest undo took back (confirm does it)."""
        return rewind.redo(self)

    # -- the UI's choices ------------------------------------------------------------------------------
    def choose(self, index: int) -> Outcome:
        """Select option ``index`` (0-based) of the pending proposal (a par price)."""
        with self._lock:
            p = self._proposal
            if p is None or not p.options:
                return self._refuse("there is no choice to make: tap a card first")
            if not 0 <= index < len(p.options):
                return self._refuse(f"choose 1 to {len(p.options)}, not {index + 1}")
            return self.offer(self.with_option(p, index))

    def choose_label(self, label: str) -> Outcome:
        """Select the option whose label is ``label`` (``"$90"`` or ``"90"``; a label of words, as
        written or its start)."""
        with self._lock:
            p = self._proposal
            if p is None or not p.options:
                return self._refuse("there is no choice to make: tap a card first")
            worded = [i for i, o in enumerate(p.options) if o.label.lower().startswith(label.strip().lower())]
            if worded and not label.strip().lstrip("$").replace(",", "").isdigit():
                return self.choose(worded[0])
            wanted = bare_amount(label)
            for i, option in enumerate(p.options):
                if bare_amount(option.label) == wanted:
                    return self.choose(i)
            return self._refuse(f"{label} is not one of {', '.join(o.label for o in p.options)}")

    def next_option(self) -> Outcome:
        """The next option (wrapping), or the next price step for an adjustable price."""
        with self._lock:
            p = self._proposal
            if p is None:
                return self._refuse("nothing proposed")
            if p.options:
                return self.offer(self.with_option(p, (p.selected + 1) % len(p.options)))
            if p.price_range is not None:
                lo, hi = p.price_range
                price = int(p.action["price"]) + p.price_step
                return self.set_price(lo if price > hi else price)
            return self.offer(p)

    def set_price(self, price: int) -> Outcome:
        """Set the price of the pending bid, train or private company purchase."""
        with self._lock:
            p = self._proposal
            if p is None or p.price_range is None:
                return self._refuse("there is no price to set: tap a private company or a train first")
            try:
                return self.offer(self.at_price(p, price))
            except GameError as exc:
                return self._refuse(str(exc))

    def step_price(self, steps: int) -> Outcome:
        """Raise (``steps`` > 0) or lower the pending price by that many of its price steps
        (the "press + to raise by $5" of a bid, a private company or a train's hint)."""
        with self._lock:
            p = self._proposal
            if p is None or p.price_range is None:
                return self._refuse(
                    "there is no price to raise or lower: tap a private company or a train first"
                )
            return self.set_price(int(p.action["price"]) + steps * max(1, p.price_step))

    def propose(self, action: Action, text: str | None = None) -> Outcome:
        """Propose any action (what the UI offers besides taps: lay a tile, redeem a share ...).

        The title words it as a tap would (:meth:`TableTitle.priced`): a bid, a private company
        purchase or a train bought from another corporation gets the proposal tapping its card
        gives, with its price range (:meth:`set_price` adjusts it), at the action's price."""
        with self._lock:
            if text is None:
                try:
                    priced = self.title.priced(self, action)
                except GameError as exc:
                    return self._refuse(str(exc))
                except (KeyError, ValueError, TypeError, AttributeError) as exc:
                    log.exception("table: pricing %s failed", action)
                    return self._refuse(
                        f"the engine cannot do this {action.get('type')} action ({exc}); nothing changed"
                    )
                if priced is not None:
                    return self.offer(priced)
            try:
                preview = self.game.preview(action)
            except GameError as exc:
                return self._refuse(str(exc))
            except (KeyError, ValueError, TypeError, AttributeError) as exc:
                log.exception("table: proposing %s failed", action)
                return self._refuse(
                    f"the engine cannot do this {action.get('type')} action ({exc}); nothing changed"
                )
            words = text if text is not None else describe_action(self.game, action)
            return self.offer(
                Proposal(
                    str(action.get("type")), words, dict(action), preview, actor=str(action.get("entity"))
                )
            )

    # -- interpretation --------------------------------------------------------------------------------

    def suggested_routes(self) -> RouteResult | None:
        """The best routes for the operating corporation now, when it may run them (the title's
        :meth:`TableTitle.suggested_routes`, within :data:`ROUTES_TIME_LIMIT`); found once per
        state of the game."""
        with self._lock:
            key = (id(self.game), len(self.game.actions))
            if self._routes is None or self._routes[0] != key:
                self._routes = (key, self.title.suggested_routes(self.game, ROUTES_TIME_LIMIT))
            return self._routes[1]

    def buttons(self) -> list[ActionChoice]:
        """Every touch button now, as the touchscreen offers them (suggested routes: a run button)."""
        with self._lock:
            return self.title.choices(self.game, routes=self.suggested_routes())

    def touch(self, label: str) -> Outcome:
        """The touchscreen's button labelled ``label`` (or starting so), proposed as touching it does."""
        with self._lock:
            if self.game.finished:
                return self._refuse(f"the game is over ({self.game.game_end_reason}); no more actions")
            wanted = label.strip().lower()
            buttons = self.buttons()
            exact = [c for c in buttons if c.label.lower() == wanted]
            found = exact or [c for c in buttons if c.label.lower().startswith(wanted)]
            if not found:
                shown_labels = ", ".join(c.label for c in buttons[:8])
                more = f" and {len(buttons) - 8} more" if len(buttons) > 8 else ""
                if not buttons:
                    return self._refuse(f"no button {label!r}: there is nothing to touch now")
                return self._refuse(f"no button {label!r} now; the buttons are: {shown_labels}{more}")
            self._set_proposal(None)
            legal: list[LegalAction] = []
            for c in found:  # buttons of one legal action (a bid at two prices) are one proposal
                la = self.legal_matching(c.action)
                if la is not None and la not in legal:
                    legal.append(la)
            if len(legal) <= 1:
                return self.propose(found[0].action)
            try:
                return self.offer(self.title_proposal(legal, ()))
            except (GameError, IndexError) as exc:
                return self._refuse(str(exc) or f"no button {label!r} can be done now")

    def run_trains(self, routes: Sequence[tuple[str | None, Sequence[str]]]) -> Outcome:
        """Routes named by their stops (the terminal's ``run``): :meth:`TableTitle.run_by_stops`, proposed."""
        with self._lock:
            try:
                action = self.title.run_by_stops(self.game, routes)
            except GameError as exc:
                return self._refuse(str(exc))
            return self.propose(action)

    def network(self) -> Network | None:
        """The title's drawn network map now (``network(game)`` of its table module), or None."""
        return network_of(self.game)

    def drawn_network(self) -> Network | None:
        """The drawn map as the screen shows it: :meth:`network`, and while one link's build is
        proposed, that link marked (``proposed``) and the second links of the legal two-link builds
        going on from where it ended (``following``: touching a far end proposes that build)."""
        return drawnmap.drawn_network(self)

    def line_start(self, place: str) -> Result | None:
        """A first place touched on the drawn map: None when some legal build starts there (the map
        waits for the other end); otherwise refused, saying so (nothing changes)."""
        return drawnmap.line_start(self, place)

    def extend_line(self, place: str) -> Outcome | None:
        """A place touched on the drawn map while one link's build is proposed: the legal two-link
        builds (the second link from where the first ended) of that railroad whose second link
        reaches ``place``, proposed; None when there is no such build (the touch starts afresh)."""
        return drawnmap.extend_line(self, place)

    def propose_line(self, first: str, second: str) -> Outcome:
        """Two places touched on the drawn map: the legal builds of the line joining them, proposed
        (several, such as two railroads or two ways of jumping: options); refused with the reason
        when no legal build joins them."""
        return drawnmap.propose_line(self, first, second)

    def propose_options(self, options: Sequence[Option], card: str, actor: str) -> Outcome:
        """One proposal for the tapped ``card`` over ``options`` (a choice when there are several),
        the first selected."""
        return self.offer(self.options_proposal(options, actor, (card,)))


def describe_action(game: TableGame, action: Action, *, applied: bool = False) -> str:
    """A sentence for an action of ``game``: ``Player 2 buys 10% SLSF from the IPO for $100``, in
    its title's words (:meth:`TableTitle.describe`).

    The proposals (taps, buttons, the camera) describe an action before it is applied; the undo
    describes the last action after it was (``applied``), when who sold a share and at what price
    can no longer be read off the game."""
    return table_title(game.title).describe(game, action, applied=applied)
