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

import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import ModuleType
from typing import Any

from companion.engine import Game, GameError, as_18xx, new_game
from companion.engine.checks import shown
from companion.engine.core import MoneyMove, Preview, TableGame
from companion.engine.entities import Company, Corporation, Player, Share, SharePool, Train
from companion.engine.operating import OperatingRound
from companion.engine.rounds import LegalAction, entity_fields
from companion.engine.stock import AuctionRound, StockRound
from companion.engine.titles import currency_of, format_money
from companion.hardware.events import ReaderEvent, TagEvent, TagSource
from companion.interop.actions import ExportError
from companion.store import Store, StoreError
from companion.table.tags import Item, ItemKind, TagError, TagRegistry
from companion.table.titles import Network, network_of, table_module

log = logging.getLogger("companion.table")

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

Action = dict[str, Any]


class Button(StrEnum):
    """The three panel buttons (the same values as ``companion.hardware.panel.PanelButton``)."""

    CONFIRM = "confirm"
    CANCEL = "cancel"
    UNDO = "undo"


#: How much a second tap of the same card raises an adjustable price.
BID_STEP = 5
COMPANY_STEP = 5
TRAIN_STEP = 10


@dataclass(frozen=True)
class Option:
    """One choice of a proposal (a par price): its label, action and preview."""

    label: str
    action: Action
    preview: Preview
    text: str


@dataclass(frozen=True)
class Proposal:
    """A proposed action, checked by the engine, waiting for confirm or cancel.

    ``options``: the choices (par prices), ``selected`` the one ``action``
    and ``preview`` stand for.  ``price_range``: the lowest and highest price
    the UI may set with :meth:`TableService.set_price` (bids, trains bought
    from another corporation, private companies).  ``cards``: the tapped
    cards it is made of (a sale gathers several).
    """

    kind: str
    text: str
    action: Action
    preview: Preview
    actor: str
    options: tuple[Option, ...] = ()
    selected: int = 0
    price_range: tuple[int, int] | None = None
    price_step: int = 0
    cards: tuple[str, ...] = ()
    hint: str = "confirm to do it, cancel to drop it"

    @property
    def details(self) -> list[str]:
        """The engine's log lines for the action (what it would write)."""
        return list(self.preview.log)


@dataclass(frozen=True)
class Result:
    """What happened to a tap, button press or confirmation.

    ``ok`` False: refused, ``text`` says why, nothing changed.  ``applied``:
    an action was stored (``seq`` in the store) and applied to the engine.
    """

    ok: bool
    text: str
    action: Action | None = None
    seq: int | None = None
    applied: bool = False
    log: tuple[str, ...] = field(default_factory=tuple)


Outcome = Proposal | Result


def game_from_store(store: Store, game_id: int) -> TableGame:
    """The game as the store has it: its title and players with every effective action applied
    (``StoreError`` naming the first logged action the engine refuses); any title's game (an 18xx
    ``Game``, or a title without a map)."""
    game: TableGame = store.replayed(game_id)
    return game


def _without_ids(actions: list[Action]) -> list[Action]:
    """``actions`` without the log ``id`` the store gives each and the notes the engine adds
    (``_corp``): what the game and the store both hold of them."""
    return [{k: v for k, v in a.items() if k != "id" and not k.startswith("_")} for a in actions]


def _cash_moves(now: TableGame, then: TableGame) -> list[MoneyMove]:
    """What going from ``now`` to ``then`` (an undo, a redo) does to everyone's cash."""
    before, after = now.cash_table(), then.cash_table()
    return [
        MoneyMove(key, before.get(key, 0), cash) for key, cash in after.items() if before.get(key) != cash
    ]


def money_in(game: TableGame, amount: object) -> str:
    """``amount`` in the currency of ``game``'s title (1861: ``1,000₽``)."""
    return format_money(currency_of(game.title), amount)


def _bare_amount(label: str) -> str:
    """A price label without its currency or separators (``"$1,000"``, ``"1000₽"`` → ``"1000"``)."""
    return "".join(ch for ch in label if ch.isdigit()) or label.strip()


def _printed(name: object) -> str:
    """What is printed on a train or tile: its id without the copy number (``2-0`` → ``2``)."""
    text = str(name)
    return text.rpartition("-")[0] or text


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class TableService:
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
    def g18(self) -> Game:
        """The game as an 18xx game (the 18xx taps: certificates in an IPO, private companies,
        trains); ``GameError`` for a title without a map, which its table module serves."""
        return as_18xx(self.game)

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

    def _propose(self, proposal: Proposal) -> Proposal:
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

    def _refuse(self, text: str) -> Result:
        return self._result(Result(False, text))

    # -- events ----------------------------------------------------------------------------------------
    def run(self, source: TagSource) -> None:
        """Handle every event of ``source`` until it ends or is closed."""
        for event in source.events():
            self.handle(event)

    def handle(self, event: ReaderEvent) -> Outcome | None:
        """A reader event: a tag placed is interpreted, a tag lifted is ignored."""
        with self._lock:
            try:
                if isinstance(event, TagEvent):
                    return self.tap(event.uid)
                return None
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
                return self._interpret(item)
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
            if proposal.kind == "undo":
                return self._confirm_undo(proposal)
            if proposal.kind in ("undo_to", "redo"):
                return self._confirm_rewind(proposal)
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
                self._store_undo(action)
                self._set_proposal(None)
                reason = str(exc) if isinstance(exc, GameError) else f"internal error: {exc!r}"
                if not isinstance(exc, GameError):
                    log.exception("table: the engine failed on %s", action)
                return self._refuse(reason)
            self._set_proposal(None)
            return self._result(
                Result(True, proposal.text, action=action, seq=seq, applied=True, log=tuple(lines))
            )

    def _store_undo(self, action: Action) -> None:
        try:
            self.store.undo(self.game_id, entity=action.get("entity"), entity_type=action.get("entity_type"))
        except StoreError:
            log.exception("table: could not take action back out of the store")
            raise

    def undo(self) -> Outcome:
        """Propose taking back the last action (confirm does it); with a proposal pending, drop that first."""
        with self._lock:
            if self._proposal is not None:
                return self.cancel()
            actions = [a for a in self.game.actions if a.get("type") != "message"]
            if not actions:
                return self._refuse("there is nothing to undo")
            last = self.game.actions[-1]
            try:
                before = self.game.before_last()
            except GameError as exc:
                return self._refuse(f"cannot undo: {exc}")
            preview = Preview(log=[f"undo: {describe_action(self.game, last, applied=True)}"])
            preview.money.extend(_cash_moves(self.game, before))
            text = f"Undo: {describe_action(self.game, last, applied=True)}"
            return self._propose(
                Proposal(
                    "undo",
                    text,
                    {"type": "undo", "entity": last.get("entity"), "entity_type": last.get("entity_type")},
                    preview,
                    actor=str(last.get("entity")),
                    hint="confirm to take it back, cancel to keep it",
                )
            )

    def _confirm_undo(self, proposal: Proposal) -> Result:
        try:
            seq = self.store.undo(
                self.game_id,
                entity=proposal.action.get("entity"),
                entity_type=proposal.action.get("entity_type"),
            )
        except StoreError as exc:
            return self._refuse(f"not undone: {exc}")
        self.game.undo()
        self._set_proposal(None)
        return self._result(Result(True, proposal.text, action=proposal.action, seq=seq, applied=True))

    # -- undo back to an earlier point, redo -------------------------------------------------------------
    def undo_to(self, keep: int) -> Outcome:
        """Propose taking back every action after the first ``keep`` (a pending proposal is dropped);
        confirm stores one undo record (18xx.games' ``action_id``) and rebuilds the game."""
        with self._lock:
            self._set_proposal(None)
            actions = self.game.actions
            if not 0 <= keep < len(actions):
                return self._refuse(
                    f"undo back to before action {keep + 1}: the game has {len(actions)} actions"
                )
            try:
                stored = self.store.effective_actions(self.game_id)
            except StoreError as exc:
                return self._refuse(f"cannot undo: {exc}")
            before = self.game.rewound(keep)
            taken = [describe_action(self.game, a, applied=True) for a in actions[keep:]]
            preview = Preview(log=[f"undo: {line}" for line in reversed(taken)])
            preview.money.extend(_cash_moves(self.game, before))
            last = actions[-1]
            record = {
                "type": "undo",
                "entity": last.get("entity"),
                "entity_type": last.get("entity_type"),
                "action_id": int(stored[keep - 1]["id"]) if keep else 0,
            }
            count = len(taken)
            text = f"Undo {_plural(count, 'action')} back to before: {taken[0]}"
            return self._propose(
                Proposal(
                    "undo_to",
                    text,
                    record,
                    preview,
                    actor=str(last.get("entity")),
                    hint="confirm to take them back (redo brings them back), cancel to keep them",
                )
            )

    def redoable(self) -> list[Action]:
        """The actions a redo would bring back (those the latest undo took back, until a new action)."""
        with self._lock:
            try:
                seqs = self.store.effective_seqs(self.game_id, {"type": "redo"})
                return self.store.actions_at(self.game_id, seqs[len(self.game.actions) :])
            except StoreError:
                return []

    def redo(self) -> Outcome:
        """Propose bringing back what the latest undo took back (confirm does it)."""
        with self._lock:
            self._set_proposal(None)
            restored = self.redoable()
            if not restored:
                return self._refuse("there is nothing to redo: redo brings back an undo until a new action")
            # tried on the game itself and put back exactly as it was, as a preview is (no copy)
            game, lines, refused = self.game, [], None
            before, now, checkpointing = game.cash_table(), game.snapshot(), game.checkpointing
            try:
                game.checkpointing = False  # a trial keeps no checkpoint
                for action in restored:
                    game.close_queries()
                    lines += game._process(action)
                after = game.cash_table()
                first = describe_action(game, restored[0], applied=True)
            except GameError as exc:
                refused = f"cannot redo: {exc}"
            finally:
                now.restore()
                game.checkpointing = checkpointing
            if refused is not None:
                return self._refuse(refused)
            preview = Preview(log=lines)
            preview.money.extend(
                MoneyMove(key, before.get(key, 0), cash)
                for key, cash in after.items()
                if before.get(key) != cash
            )
            more = f" and {_plural(len(restored) - 1, 'more action')}" if len(restored) > 1 else ""
            return self._propose(
                Proposal(
                    "redo",
                    f"Redo: {first}{more}",
                    {"type": "redo"},
                    preview,
                    actor=str(restored[-1].get("entity")),
                    hint="confirm to bring it back, cancel to leave it undone",
                )
            )

    def _confirm_rewind(self, proposal: Proposal) -> Result:
        """Store the undo (to a point) or redo record, then bring the game there in place: an undo
        back to a point takes the actions back one by one (from the undo records and checkpoints), a
        redo applies again what it brings back (its proposal tried them).  Only a game whose actions
        are not those of the store is rebuilt by replaying every action, before anything is stored."""
        record = proposal.action
        done = "redone" if record["type"] == "redo" else "undone"
        try:
            # read in full only the actions brought back and the last one both share
            seqs = self.store.effective_seqs(self.game_id, record)
            now = self.game.actions
            shared = min(len(seqs), len(now))
            last = self.store.actions_at(self.game_id, seqs[shared - 1 : shared] if shared else [])
            in_place = _without_ids(last) == _without_ids(now[shared - 1 : shared] if shared else [])
            # a redo of many actions replays the game: applying each would note an undo record each
            in_place = in_place and len(seqs) - len(now) <= self.game.UNDO_SNAPSHOTS
            target = now[: len(seqs)] + self.store.actions_at(self.game_id, seqs[len(now) :])
            if not in_place:  # not the store's game: rebuilt from the store, before anything is stored
                target = self.store.actions_at(self.game_id, seqs)
            game = self.game if in_place else self.game.replayed(target)
            if record["type"] == "redo":
                seq = self.store.redo(self.game_id)
            else:
                seq = self.store.undo(self.game_id, **{k: v for k, v in record.items() if k != "type"})
        except (StoreError, GameError, ExportError) as exc:
            return self._refuse(f"not {done}, nothing changed: {exc}")
        try:
            if in_place and len(game.actions) > len(target):
                game.rewind(len(target))
            for action in target[len(game.actions) :] if in_place else []:
                game.apply(action)
        except GameError:  # tried by the proposal, so not expected: the whole replay decides
            log.exception("table: %s in place failed; replaying the game", done)
            game = self.game.replayed(target)
        game.keep_checkpoints()
        self.game = game
        self._set_proposal(None)
        return self._result(Result(True, proposal.text, action=record, seq=seq, applied=True))

    # -- the UI's choices ------------------------------------------------------------------------------
    def choose(self, index: int) -> Outcome:
        """Select option ``index`` (0-based) of the pending proposal (a par price)."""
        with self._lock:
            p = self._proposal
            if p is None or not p.options:
                return self._refuse("there is no choice to make: tap a card first")
            if not 0 <= index < len(p.options):
                return self._refuse(f"choose 1 to {len(p.options)}, not {index + 1}")
            return self._propose(self._with_option(p, index))

    def _money(self, amount: object) -> str:
        return money_in(self.game, amount)

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
            wanted = _bare_amount(label)
            for i, option in enumerate(p.options):
                if _bare_amount(option.label) == wanted:
                    return self.choose(i)
            return self._refuse(f"{label} is not one of {', '.join(o.label for o in p.options)}")

    def next_option(self) -> Outcome:
        """The next option (wrapping), or the next price step for an adjustable price."""
        with self._lock:
            p = self._proposal
            if p is None:
                return self._refuse("nothing proposed")
            if p.options:
                return self._propose(self._with_option(p, (p.selected + 1) % len(p.options)))
            if p.price_range is not None:
                lo, hi = p.price_range
                price = int(p.action["price"]) + p.price_step
                return self.set_price(lo if price > hi else price)
            return self._propose(p)

    def set_price(self, price: int) -> Outcome:
        """Set the price of the pending bid, train or private company purchase."""
        with self._lock:
            p = self._proposal
            if p is None or p.price_range is None:
                return self._refuse("there is no price to set: tap a private company or a train first")
            try:
                return self._propose(self._at_price(p, price))
            except GameError as exc:
                return self._refuse(str(exc))

    def _at_price(self, p: Proposal, price: object) -> Proposal:
        """``p`` at ``price``; ``GameError`` if the price is not a whole number in its range (a fixed
        price, for a proposal without a range)."""
        if not isinstance(price, int) or isinstance(price, bool):
            raise GameError(f"the price must be a whole number of dollars, not {shown(price)}")
        current = int(p.action["price"])
        if p.price_range is None:
            if price != current:
                raise GameError(f"the price is {self._money(current)}, not {self._money(price)}")
            return p
        lo, hi = p.price_range
        if not lo <= price <= hi:
            raise GameError(
                f"the price must be between {self._money(lo)} and {self._money(hi)}, not {self._money(price)}"
            )
        if price == current:
            return p
        action = {**p.action, "price": price}
        preview = self.game.preview(action)
        return replace(p, action=action, preview=preview, text=self._price_text(p.kind, action, preview))

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

        A bid, a private company purchase or a train bought from another corporation gets the
        proposal tapping its card gives, with its price range (:meth:`set_price` adjusts it),
        at the action's price."""
        with self._lock:
            module = self._module
            if module is not None and text is None:
                matched = self._title_legal(action)
                if matched is not None:
                    try:
                        return self._propose(self._title_proposal(module, [matched], matched.cards, action))
                    except GameError as exc:
                        return self._refuse(str(exc))
            if (
                text is None
                and module is None
                and action.get("type") in ("bid", "buy_company", "buy_train")
                and "price" in action
            ):
                try:
                    priced = self._priced(action)
                except GameError as exc:
                    return self._refuse(str(exc))
                except (KeyError, ValueError, TypeError, AttributeError) as exc:
                    log.exception("table: pricing %s failed", action)
                    return self._refuse(
                        f"the engine cannot do this {action.get('type')} action ({exc}); nothing changed"
                    )
                if priced is not None:
                    return priced
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
            return self._propose(
                Proposal(
                    str(action.get("type")), words, dict(action), preview, actor=str(action.get("entity"))
                )
            )

    def _priced(self, action: Action) -> Proposal | None:
        """The tap path's proposal for a priced action, at the action's price (``None``: not one)."""
        kind = action["type"]
        entity = self.game.entity_of(action)
        if entity is not self.game.current_entity():
            return None  # the engine's own refusal says why
        card = str(action.get("train") if kind == "buy_train" else action.get("company"))
        same = [
            la
            for la in self.game.actions_involving(card)
            if la.type == kind
            and la.action["entity"] == action["entity"]
            and la.action.get("exchange") == action.get("exchange")
        ]
        legal = same[0] if same else None
        if kind == "buy_train" and isinstance(entity, Corporation):
            out = self._buy_train(self.g18.train(card), entity, legal)
        elif kind == "bid" and isinstance(entity, Player) and isinstance(self.game.round, AuctionRound):
            out = self._bid(self.g18.company(card), entity, legal)
        elif kind == "buy_company" and isinstance(entity, Corporation | Player):
            out = self._buy_company(self.g18.company(card), entity, legal)
        else:
            return None
        return self._propose(self._at_price(out, action["price"]))

    # -- interpretation --------------------------------------------------------------------------------
    def _preview(self, action: Action) -> Preview:
        """The engine's preview; ``GameError`` with its reason if the action is illegal."""
        try:
            return self.game.preview(action)
        except GameError:
            raise
        except (
            KeyError,
            ValueError,
            TypeError,
            AttributeError,
        ) as exc:  # the engine choked: say so, change nothing
            log.exception("table: preview failed for %s", action)
            raise GameError(
                f"the engine cannot do this {action.get('type')} action ({exc}); nothing changed"
            ) from exc

    def _interpret(self, item: Item) -> Outcome:
        """What a tap on a card means: one question to the engine, "which legal actions involve
        this card?" (``Game.actions_involving``).  When none does, the card's own checks say why
        in the players' words."""
        module = self._module
        if module is not None:
            return self._title_tap(module, item)
        if item.kind is ItemKind.PLAYER:
            return self._player_card(item)
        legal = self.game.actions_involving(item.id)
        if item.kind is ItemKind.CERTIFICATE:
            return self._certificate(item, legal)
        if item.kind is ItemKind.COMPANY:
            return self._company(item, legal)
        if item.kind is ItemKind.MARKER:
            return self._marker(item, legal)
        return self._train(item, legal)

    # -- a title that answers for itself at the table (no map: companion/table/titles) --------------------
    @property
    def _module(self) -> ModuleType | None:
        """The game's title's table module, or None (an 18xx title, served by the taps below)."""
        return table_module(self.game.title)

    def _title_tap(self, module: ModuleType, item: Item) -> Outcome:
        """A tap in a title with a table module: the legal actions involving the card, each an
        option (tapped through with the same card; a player card passes).  A card tapped while
        another card's proposal is pending joins it when some legal action involves both (two
        shares bought in one turn); otherwise it starts afresh."""
        p = self._proposal
        if p is not None and p.kind not in ("undo", "undo_to", "redo") and item.id in p.cards:
            return self.next_option()
        if item.kind is ItemKind.PLAYER:
            player = self._seat(item)
            passes = [
                la
                for la in self.game.legal_actions()
                if la.type == "pass" and la.action.get("entity") == player.id
            ]
            if not passes:
                current = self._current()
                if current is not player:
                    raise GameError(f"it is {current.name}'s turn, not {player.name}'s")
                raise GameError(f"{player.name} cannot pass now: {self._step_description(player)}")
            return self._propose(self._title_proposal(module, passes, (item.id,)))
        legal = self.game.actions_involving(item.id)
        if p is not None and p.cards and p.kind not in ("undo", "undo_to", "redo"):
            both = [la for la in legal if set(p.cards) <= set(la.cards)]
            if both:
                return self._propose(self._title_proposal(module, both, (*p.cards, item.id)))
        if not legal:
            why = getattr(module, "why_not", None)
            reason = why(self.game, item.id) if why is not None else None
            raise GameError(reason or self._nothing_to_do(item))
        # a card means what it can do alone first (one share before two); passing is the player card's
        meant = sorted((la for la in legal if la.type != "pass"), key=lambda la: len(la.cards)) or legal
        return self._propose(self._title_proposal(module, meant, (item.id,)))

    def touch(self, label: str) -> Outcome:
        """The touch button labelled ``label`` (or starting so) in a title with a table module: the
        legal action its ``choice`` labels so, proposed as the touchscreen does (several matching:
        options).  The 18xx buttons are on the touchscreen only."""
        with self._lock:
            module = self._module
            if module is None:
                return self._refuse(f"{self.game.title}'s buttons are on the touchscreen; tap a card here")
            if self.game.finished:
                return self._refuse(f"the game is over ({self.game.game_end_reason}); no more actions")
            wanted = label.strip().lower()
            labelled = [(module.choice(self.game, la).label, la) for la in self.game.legal_actions()]
            exact = [la for text, la in labelled if text.lower() == wanted]
            found = exact or [la for text, la in labelled if text.lower().startswith(wanted)]
            if not found:
                shown_labels = ", ".join(text for text, _ in labelled[:8])
                more = f" and {len(labelled) - 8} more" if len(labelled) > 8 else ""
                return self._refuse(f"no button {label!r} now; the buttons are: {shown_labels}{more}")
            self._set_proposal(None)
            try:
                return self._propose(self._title_proposal(module, found, ()))
            except GameError as exc:
                return self._refuse(str(exc))

    def network(self) -> Network | None:
        """The title's drawn network map now (``network(game)`` of its table module), or None."""
        return network_of(self.game)

    def drawn_network(self) -> Network | None:
        """The drawn map as the screen shows it: :meth:`network`, and while one link's build is
        proposed, that link marked (``proposed``) and the second links of the legal two-link builds
        going on from where it ended (``following``: touching a far end proposes that build)."""
        with self._lock:
            net = self.network()
            p = self._proposal
            if net is None or p is None or p.action.get("type") != "build_links":
                return net
            first = [str(x) for x in p.action.get("links") or []]
            if len(first) != 1:
                return net
            following = tuple(dict.fromkeys(str(la.action["links"][1]) for la in self._second_links(net)))
            return replace(net, proposed=tuple(first), following=following)

    def _second_links(self, net: Network, place: str | None = None) -> list[LegalAction]:
        """The legal two-link builds extending the proposed one-link build (same railroad, same
        first link and jumps), whose second link reaches ``place`` beyond the first (any: None)."""
        p = self._proposal
        assert p is not None
        first = list(p.action.get("links") or [])
        places = {ln.id: ln.places for ln in net.lines}
        return [
            la
            for la in self.game.legal_actions()
            if la.type == "build_links"
            and la.action.get("corporation") == p.action.get("corporation")
            and len(la.action["links"]) == 2
            and list(la.action["links"])[:1] == first
            and list(la.action.get("jumps") or []) == list(p.action.get("jumps") or [])
            and (
                place is None
                or (
                    place in places.get(str(la.action["links"][1]), ())
                    and place not in places.get(first[0], ())
                )
            )
        ]

    def line_start(self, place: str) -> Result | None:
        """A first place touched on the drawn map: None when some legal build starts there (the map
        waits for the other end); otherwise refused, saying so (nothing changes)."""
        with self._lock:
            net = self.network()
            if net is None:
                return self._refuse(f"{self.game.title} has no drawn map")
            try:
                name = net.place(place).name
            except StopIteration:
                return self._refuse(f"there is no place {place!r} on the map")
            lit = net.lit()
            if any(place in ln.places for ln in lit):
                return None
            names = [ln.name for ln in lit]
            more = f" and {len(names) - 4} more" if len(names) > 4 else ""
            where = (
                f"{self._who_acts()} may build {', '.join(names[:4])}{more}"
                if names
                else "no link can be built now"
            )
            return self._refuse(f"no link from {name} can be built now: {where}")

    def extend_line(self, place: str) -> Outcome | None:
        """A place touched on the drawn map while one link's build is proposed: the legal two-link
        builds (the second link from where the first ended) of that railroad whose second link
        reaches ``place``, proposed; None when there is no such build (the touch starts afresh)."""
        with self._lock:
            p = self._proposal
            module = self._module
            if p is None or module is None or p.action.get("type") != "build_links":
                return None
            first = list(p.action.get("links") or [])
            net = self.network()
            if len(first) != 1 or net is None:
                return None
            legal = self._second_links(net, place)
            if not legal:
                return None
            self._set_proposal(None)
            try:
                return self._propose(self._title_proposal(module, legal, ()))
            except GameError as exc:
                return self._refuse(str(exc))

    def propose_line(self, first: str, second: str) -> Outcome:
        """Two places touched on the drawn map: the legal builds of the line joining them, proposed
        (several, such as two railroads or two ways of jumping: options); refused with the reason
        when no legal build joins them."""
        with self._lock:
            net = self.network()
            module = self._module
            if net is None or module is None:
                return self._refuse(f"{self.game.title} has no drawn map")
            try:
                a, b = net.place(first), net.place(second)
            except StopIteration:
                return self._refuse(f"there is no place {first!r} or {second!r} on the map")
            lines = net.joining(a.id, b.id)
            actions = [x for ln in lines for x in ln.actions]
            if not actions:
                ends = sorted(
                    {net.place(p).name for ln in net.lit() if a.id in ln.places for p in ln.places} - {a.name}
                )
                why = (
                    f"no link joins {a.name} and {b.name}"
                    if not lines
                    else f"{lines[0].name} cannot be built now"
                )
                more = (
                    f"; from {a.name} {self._who_acts()} may build to {', '.join(ends)}"
                    if ends
                    else f"; nothing can be built from {a.name} now"
                )
                return self._refuse(why + more)
            legal = [la for la in self.game.legal_actions() if la.action in actions]
            self._set_proposal(None)
            try:
                return self._propose(self._title_proposal(module, legal, ()))
            except GameError as exc:
                return self._refuse(str(exc))

    def _who_acts(self) -> str:
        return str(getattr(self.game.current_entity(), "name", "nobody"))

    def _nothing_to_do(self, item: Item) -> str:
        current = self.game.current_entity()
        who = getattr(current, "name", "nobody")
        return f"{item.label} has no use now: it is {who}'s turn ({self._step_description(current).lower()})"

    def _title_legal(self, action: Action) -> LegalAction | None:
        """The legal action ``action`` is (at another price within its range, for a bid)."""

        def bare(a: Action) -> Action:
            return {k: v for k, v in a.items() if k != "price"}

        for la in self.game.legal_actions():
            if la.action == action or (la.price_range is not None and bare(la.action) == bare(action)):
                return la
        return None

    def _title_proposal(
        self,
        module: ModuleType,
        legal: Sequence[LegalAction],
        cards: tuple[str, ...],
        at: Action | None = None,
    ) -> Proposal:
        """One proposal over ``legal`` (options when several), worded and labelled by the title's
        table module; a single action with a price range is priced within it (``at``'s price)."""
        options = []
        for la in legal:
            preview = self._preview(la.action)
            text = describe_action(self.game, la.action)
            options.append(Option(module.choice(self.game, la).label, la.action, preview, text))
        first = options[0]
        entity = self.game.entity_of(first.action)
        actor = str(getattr(entity, "name", first.action.get("entity")))
        price_range = legal[0].price_range if len(legal) == 1 else None
        step = int(getattr(module, "PRICE_STEP", 1))
        if price_range is None:
            proposal = self._options_proposal(options, actor, cards)
        else:
            hint = f"tap again or press + to raise by {self._money(step)}, confirm to do it"
            proposal = self._options_proposal(options, actor, cards, price_range, step, hint)
        if at is not None and price_range is not None and "price" in at:
            proposal = self._at_price(proposal, at["price"])
        return proposal

    @staticmethod
    def _of(legal: Sequence[LegalAction], kind: str) -> list[LegalAction]:
        return [la for la in legal if la.type == kind]

    def _current(self) -> Any:
        entity = self.game.current_entity()
        if entity is None:
            raise GameError("nobody is to act right now")
        return entity

    def _round_name(self) -> str:
        rnd = self.game.round
        if isinstance(rnd, OperatingRound) and rnd.current_operator is not None:
            return f"the operating round ({rnd.current_operator.sym} operates)"
        return f"the {rnd.name.lower()}" if isinstance(rnd, StockRound | OperatingRound) else "the auction"

    def _seat(self, item: Item) -> Player:
        try:
            seat = int(item.id.rpartition("-")[2])
        except ValueError:
            raise GameError(f"{item.label} is not a player card") from None
        if not 1 <= seat <= len(self.game.player_spec):
            raise GameError(f"there is no Player {seat} at this table ({len(self.game.player_spec)} players)")
        return self.game.player(self.game.player_spec[seat - 1][0])

    # player card: the acting player passes / ends the turn
    def _player_card(self, item: Item) -> Outcome:
        player = self._seat(item)
        current = self._current()
        if isinstance(current, Corporation):
            if current.owner is not player:
                owner = current.owner.name if current.owner else "nobody"
                raise GameError(f"{current.sym} is operating and {owner} is its president, not {player.name}")
            entity: Any = current
        elif current is not player:
            raise GameError(f"it is {current.name}'s turn, not {player.name}'s")
        else:
            entity = player
        if "pass" not in self.game.legal_action_types(entity):
            raise GameError(f"{entity.name} cannot pass now: {self._step_description(entity)}")
        action = self._entity_action("pass", entity)
        preview = self._preview(action)
        return self._propose(Proposal("pass", self._pass_text(entity, preview), action, preview, entity.name))

    def _step_description(self, entity: Any) -> str:
        step = self.game.round.active_step()
        return step.description if step is not None else "nothing to do"

    def _pass_text(self, entity: Any, preview: Preview) -> str:
        rnd = self.game.round
        step = rnd.active_step()
        drops = "; ".join(
            f"{sym} share price {self._money(a)} → {self._money(b)}"
            for sym, (a, b) in preview.share_prices.items()
        )
        meaning = self.g18.pass_meaning(entity)
        if meaning is not None:
            return meaning + (f": {drops}" if drops else "")
        if isinstance(entity, Corporation):
            return f"{entity.sym} passes ({self._step_description(entity).lower()})"
        if isinstance(rnd, StockRound) and rnd.current_actions:
            return f"{entity.name} ends their turn"
        auctioning = getattr(step, "auctioning", None)
        if isinstance(rnd, AuctionRound) and isinstance(auctioning, Company):
            return f"{entity.name} passes on {auctioning.sym}"
        return f"{entity.name} passes"

    def _entity_action(self, kind: str, entity: Any, **fields: Any) -> Action:
        if not isinstance(entity, Player | Corporation):
            raise GameError(f"{getattr(entity, 'name', entity)} cannot act here")
        return {"type": kind, **entity_fields(entity), **fields}

    # certificates: buy, sell (gathered), par, price protection
    def _acting_player(self, kind: str) -> Player:
        current = self._current()
        if isinstance(current, Player):
            return current
        if (
            isinstance(current, Corporation)
            and current.owner is not None
            and kind in self.game.legal_action_types(current.owner)
        ):
            return current.owner
        raise GameError(f"certificates are bought and sold in the stock round; it is {self._round_name()}")

    def _certificate(self, item: Item, legal: Sequence[LegalAction]) -> Outcome:
        share = self.g18.share(item.id)
        corp = share.corporation
        if corp.closed:
            raise GameError(f"{corp.sym} has closed; its certificates are out of the game")
        owner = share.owner
        bids = self._of(legal, "bid")
        if bids:  # 1867, 1861: a minor company's certificate is auctioned in the stock round
            p = self._proposal
            if p is not None and p.kind == "bid" and p.cards == (share.id,):
                return self.next_option()  # the same card again: the next price
            return self._propose(self._minor_bid(share, bids[0]))
        merges = [la for la in legal if la.type in ("merge", "convert")]
        if merges:  # 1867, 1861 merger round: the card of the partner, or of the major to form
            return self._choose_between("merge", merges, (share.id,))
        takeover = self._takeover(corp)
        if takeover:  # 1833NE's takeover round: a certificate of the target names it
            return self._choose_between("take_over", takeover, (share.id,))
        pars = self._of(legal, "par")
        if pars:
            return self._par(share, self.game.entity_of(pars[0].action), pars)
        own = [
            la
            for la in legal
            if la.type in ("sell_shares", "buy_shares")
            and la.action.get("entity_type") == "corporation"
            and la.action.get("entity") == corp.sym
        ]
        if own and (len(own) > 1 or own[0].type == "sell_shares"):
            return self._own_shares(share, own)
        if owner is corp or isinstance(owner, SharePool):
            self._own_shares_in_order(share)
        buys = self._of(legal, "buy_shares")
        if buys:
            buyer = self.game.entity_of(buys[0].action)
            shares = [self.g18.share(i) for i in buys[0].action["shares"]]
            if isinstance(buyer, Player) and len(shares) > 1:
                return self._price_protect(shares, buyer)
            if isinstance(buyer, Player):
                return self._buy(share, buyer, "the IPO" if owner is corp else "the market")
            return self.propose(buys[0].action)  # a corporation buys back its own share
        current = self._current()
        if isinstance(owner, Player) and (owner is current or isinstance(current, Corporation)):
            # a sale gathers the certificates tapped; the engine refuses a set it does not allow
            return self._sell(share, owner)
        player = self._acting_player("buy_shares" if not isinstance(owner, Player) else "sell_shares")
        if isinstance(owner, Player):
            raise GameError(
                f"{share.id} belongs to {owner.name}; it is {player.name}'s turn "
                f"(buy from the IPO or the market, sell your own certificates)"
            )
        if owner is corp:
            if not corp.ipoed:
                if not share.president:
                    raise GameError(
                        f"{corp.sym} has not been parred: tap its president's certificate to par it"
                    )
                return self._par(share, player)
            return self._buy(share, player, "the IPO")
        if isinstance(owner, SharePool):
            return self._buy(share, player, "the market")
        raise GameError(f"{share.id} is held by {owner.name} and cannot be bought")

    def _takeover(self, corp: Corporation) -> list[LegalAction]:
        """The legal takeovers of ``corp`` (paid in cash or in shares), or its answers to one
        offered to it (accept, refuse): what a tap of one of its certificates means in a takeover
        round (none in other rounds and titles)."""
        kinds = {"take_over", "accept_takeover", "refuse_takeover"}
        return [
            la
            for la in self.game.legal_actions(types=kinds)
            if la.action.get("corporation") == corp.sym
            or (la.type != "take_over" and la.action.get("entity") == corp.sym)
        ]

    def _own_shares_in_order(self, share: Share) -> None:
        """``GameError`` naming the certificate to tap when the operating corporation may issue
        (or redeem) its shares now but the engine's choices begin with another one of them."""
        corp = share.corporation
        if self.game.current_entity() is not corp:
            return
        kind = "sell_shares" if share.owner is corp else "buy_shares"
        offered = self.game.legal_actions(corp, types={kind})
        ids = sorted({i for la in offered if la.type == kind for i in la.action["shares"]}, key=_share_index)
        if ids:
            verb = "issues" if kind == "sell_shares" else "redeems"
            raise GameError(f"{corp.sym} {verb} its certificates in order: tap {ids[0]}")

    def _own_shares(self, share: Share, legal: Sequence[LegalAction]) -> Outcome:
        """A corporation's own certificate tapped while it may issue (from its treasury) or redeem
        (from the market) that many shares at once: how many, each an option labelled with its
        count and money (1833NE: ``1 share $70``, ``2 shares $140``); the same card again takes
        the next."""
        p = self._proposal
        if p is not None and p.cards == (share.id,) and p.options and p.kind in ("sell_shares", "buy_shares"):
            return self._propose(self._with_option(p, (p.selected + 1) % len(p.options)))
        options = []
        corp = share.corporation
        for la in sorted(legal, key=lambda la: len(la.action["shares"])):
            preview = self._preview(la.action)
            money = abs(self._paid(preview, corp.sym))
            n = len(la.action["shares"])
            label = f"{_plural(n, 'share')} {self._money(money)}"
            options.append(Option(label, la.action, preview, describe_action(self.game, la.action)))
        return self._propose_options(options, share.id, corp.sym)

    def _buy(self, share: Share, player: Player, source: str) -> Outcome:
        p = self._proposal
        if p is not None and p.kind == "buy" and p.cards == (share.id,):
            return self._propose(p)
        action = self._entity_action("buy_shares", player, shares=[share.id], percent=share.percent)
        preview = self._preview(action)
        cost = self._paid(preview, player.id)
        text = f"{player.name} buys {share.percent}% {share.corporation.sym} from {source} for {self._money(cost)}"
        return self._propose(Proposal("buy", text, action, preview, player.name, cards=(share.id,)))

    def _price_protect(self, shares: list[Share], player: Player) -> Outcome:
        corp = shares[0].corporation
        action = self._entity_action(
            "buy_shares", player, shares=[s.id for s in shares], percent=sum(s.percent for s in shares)
        )
        preview = self._preview(action)
        cost = self._paid(preview, player.id)
        text = (
            f"{player.name} price protects {sum(s.percent for s in shares)}% {corp.sym} "
            f"from the market for {self._money(cost)}"
        )
        return self._propose(
            Proposal("price_protect", text, action, preview, player.name, cards=tuple(s.id for s in shares))
        )

    def _sell(self, share: Share, player: Player) -> Outcome:
        corp = share.corporation
        p = self._proposal
        cards: list[str] = [share.id]
        if p is not None and p.kind == "sell" and p.actor == player.name:
            previous = [self.g18.share(c) for c in p.cards]
            if previous and previous[0].corporation is corp:
                if share.id in p.cards:
                    cards = [c for c in p.cards if c != share.id]
                    if not cards:
                        self._set_proposal(None)
                        return self._result(Result(True, f"{player.name} sells nothing: the sale is dropped"))
                else:
                    cards = [*p.cards, share.id]
        shares = sorted((self.g18.share(c) for c in cards), key=lambda s: s.index)
        percent = sum(s.percent for s in shares)
        action = self._entity_action("sell_shares", player, shares=[s.id for s in shares], percent=percent)
        preview = self._preview(action)
        gain = -self._paid(preview, player.id)
        text = f"{player.name} sells {percent}% {corp.sym} to the market for {self._money(gain)}"
        moves = [
            f"{sym} share price {self._money(a)} → {self._money(b)}"
            for sym, (a, b) in preview.share_prices.items()
        ]
        if moves:
            text += "; " + "; ".join(moves)
        return self._propose(
            Proposal(
                "sell",
                text,
                action,
                preview,
                player.name,
                cards=tuple(s.id for s in shares),
                hint=f"tap more {corp.sym} certificates to add them (again to take one out); confirm to sell",
            )
        )

    def _par(self, share: Share, player: Player, pars: Sequence[LegalAction] = ()) -> Outcome:
        """The par prices the engine allows for the corporation of this president's certificate."""
        corp = share.corporation
        p = self._proposal
        if p is not None and p.kind == "par" and p.cards == (share.id,) and p.options:
            return self._propose(self._with_option(p, (p.selected + 1) % len(p.options)))
        options: list[Option] = []
        for la in pars:
            preview = self._preview(la.action)
            price = int(str(la.action["share_price"]).split(",")[0])
            cost = self._paid(preview, player.id)
            text = (
                f"{player.name} pars {corp.sym} at {self._money(price)} and buys the president's certificate "
                f"({share.percent}%) for {self._money(cost)}"
            )
            options.append(Option(f"{self._money(price)}", la.action, preview, text))
        if not options:
            raise GameError(f"{player.name} cannot par {corp.sym} now")
        proposal = Proposal(
            "par",
            options[0].text,
            options[0].action,
            options[0].preview,
            player.name,
            options=tuple(options),
            cards=(share.id,),
        )
        return self._propose(self._with_option(proposal, 0))

    def _choose_between(self, kind: str, legal: Sequence[LegalAction], cards: tuple[str, ...]) -> Outcome:
        """Several things a card may mean now (a company's token on one of its hexes, a train
        bought outright or traded in): each an option, tapped through, confirmed."""
        p = self._proposal
        if p is not None and p.kind == kind and p.cards == cards and p.options:
            return self._propose(self._with_option(p, (p.selected + 1) % len(p.options)))
        options = []
        for la in legal:
            preview = self._preview(la.action)
            text = describe_action(self.game, la.action)
            options.append(Option(text, la.action, preview, text))
        first = options[0]
        proposal = Proposal(
            kind,
            first.text,
            first.action,
            first.preview,
            str(first.action["entity"]),
            options=tuple(options),
            cards=cards,
        )
        return self._propose(self._with_option(proposal, 0))

    def _with_option(self, p: Proposal, index: int) -> Proposal:
        option = p.options[index]
        others = len(p.options) - 1
        hint = (
            f"par price {index + 1} of {len(p.options)} ({', '.join(o.label for o in p.options)}); "
            "tap the certificate again for the next, confirm to par"
            if p.kind == "par"
            else f"option {index + 1} of {others + 1}; tap again for the next, confirm to accept"
        )
        return replace(
            p, selected=index, action=option.action, preview=option.preview, text=option.text, hint=hint
        )

    @staticmethod
    def _paid(preview: Preview, who: Any) -> int:
        """What ``who`` pays in the preview (negative: receives)."""
        for move in preview.money:
            if move.who == who:
                return move.before - move.after
        return 0

    # private companies: auction bids, purchase by the operating corporation
    def _company(self, item: Item, legal: Sequence[LegalAction]) -> Outcome:
        company = self.g18.company(item.id)
        if company.closed:
            raise GameError(f"{company.sym} has closed")
        p = self._proposal
        if p is not None and p.kind in ("bid", "buy_company") and p.cards == (company.sym,):
            return self.next_option()  # the same card again: the next price
        for kind, build in (("bid", self._bid), ("buy_company", self._buy_company)):
            found = self._of(legal, kind)
            if found:
                return self._propose(build(company, self.game.entity_of(found[0].action), found[0]))
        abilities = [la for la in legal if la.type in ("assign", "lay_tile")]
        if abilities:
            return self._choose_between("ability", abilities, (company.sym,))
        rnd = self.game.round
        current = self._current()
        if isinstance(rnd, AuctionRound) and isinstance(current, Player):
            return self._propose(self._bid(company, current))
        if isinstance(rnd, OperatingRound) and isinstance(current, Corporation):
            return self._propose(self._buy_company(company, current))
        if isinstance(rnd, StockRound) and isinstance(current, Player):
            if "buy_company" not in self.game.legal_action_types(current):
                raise GameError(
                    f"{current.name} cannot buy a private company from another player now "
                    f"(not in this phase, or after buying this turn)"
                )
            return self._propose(self._buy_company(company, current))
        raise GameError(
            f"private companies are auctioned at the start, bought by corporations in operating rounds "
            f"and, from some phase on, by players from each other in stock rounds; it is {self._round_name()}"
        )

    def _bid(self, company: Company, player: Player, legal: LegalAction | None = None) -> Proposal:
        if company.owner is not None:
            raise GameError(f"{company.sym} already belongs to {company.owner.name}")
        if legal is None:
            raise GameError(
                f"{player.name} cannot bid on {company.sym} now: {self._step_description(player)}"
            )
        return self._bid_proposal(legal, player.name, company.sym)

    def _bid_proposal(self, legal: LegalAction, actor: str, card: str) -> Proposal:
        """An auction bid at the engine's first offer, raised by further taps of ``card``."""
        fixed = legal.price_range is None
        lo, hi = legal.price_range or (int(legal.action["price"]),) * 2
        action = dict(legal.action)
        preview = self._preview(action)
        return Proposal(
            "bid",
            self._price_text("bid", action, preview, purchase=fixed),
            action,
            preview,
            actor,
            price_range=None if fixed else (lo, max(lo, hi)),
            price_step=BID_STEP,
            cards=(card,),
            hint="confirm to buy it"
            if fixed
            else f"tap again or press + to raise by {self._money(BID_STEP)}, confirm to bid",
        )

    def _minor_bid(self, share: Share, legal: LegalAction) -> Proposal:
        """A bid for a minor company's certificate (1867, 1861), raised as a private company's is."""
        return self._bid_proposal(legal, self.game.entity_of(legal.action).name, share.id)

    def _buy_company(
        self, company: Company, buyer: Corporation | Player, legal: LegalAction | None = None
    ) -> Proposal:
        """The operating corporation buys a private company within the title's price range, or (in a
        stock round) a player buys one from another player at any price they agree on."""
        name = buyer.sym if isinstance(buyer, Corporation) else buyer.name
        if company.owner is buyer:
            raise GameError(f"{name} already owns {company.sym}")
        if not isinstance(company.owner, Player):
            raise GameError(f"{company.sym} is not owned by a player and cannot be bought")
        agreed = "" if isinstance(buyer, Corporation) else "the price the players agree on: "
        if legal is None or legal.price_range is None:
            lo, _ = self.g18.company_price_range(company, buyer)
            if buyer.cash < lo:
                raise GameError(
                    f"{name} has {self._money(buyer.cash)} and cannot pay the {self._money(lo)} "
                    f"that {company.sym} costs at least"
                )
            raise GameError(f"{name} cannot buy {company.sym} now: {self._step_description(buyer)}")
        lo, hi = legal.price_range
        action = dict(legal.action)
        preview = self._preview(action)
        return Proposal(
            "buy_company",
            self._price_text("buy_company", action, preview),
            action,
            preview,
            name,
            price_range=(lo, hi),
            price_step=COMPANY_STEP,
            cards=(company.sym,),
            hint=f"{agreed}tap again or press + to raise by {self._money(COMPANY_STEP)} "
            f"({self._money(lo)} to {self._money(hi)}), confirm to buy",
        )

    # trains: the operating corporation buys
    def _train(self, item: Item, legal: Sequence[LegalAction]) -> Outcome:
        train = self.g18.train(item.id)
        p = self._proposal
        if p is not None and p.kind == "buy_train" and p.cards == (train.id,) and p.price_range is not None:
            return self.next_option()
        discards = self._of(legal, "discard_train")
        if discards:
            return self.propose(discards[0].action)
        buys = [la for la in self._of(legal, "buy_train") if la.action["train"] == train.id]
        trade_ins = [la for la in buys if "exchange" in la.action]
        if trade_ins and len(buys) > 1:
            return self._choose_between("buy_train", buys, (train.id,))
        sides = [la for la in buys if la.action.get("variant") and la.price_range is None]
        if len({la.action["variant"] for la in sides}) > 1:
            return self._sides(train, sides)
        current = self._current()
        if not isinstance(self.game.round, OperatingRound) or not isinstance(current, Corporation):
            raise GameError(f"trains are bought by the operating corporation; it is {self._round_name()}")
        return self._propose(self._buy_train(train, current, buys[0] if buys else None))

    def _sides(self, train: Train, sides: Sequence[LegalAction]) -> Outcome:
        """A double-sided card (1833NE's 3/5 or 2+2): which side to buy, each side the engine
        allows an option labelled with its name and price; a further tap of the card turns it
        to the next side."""
        p = self._proposal
        if p is not None and p.kind == "buy_train" and p.cards == (train.id,) and p.options:
            return self._propose(self._with_option(p, (p.selected + 1) % len(p.options)))
        options = []
        for la in sides:
            action = dict(la.action)
            preview = self._preview(action)
            label = f"{action['variant']} {self._money(action['price'])}"
            options.append(Option(label, action, preview, self._price_text("buy_train", action, preview)))
        return self._propose_options(options, train.id, str(options[0].action["entity"]))

    def _propose_options(self, options: Sequence[Option], card: str, actor: str) -> Outcome:
        """One proposal for the tapped ``card`` over ``options`` (a choice when there are several),
        the first selected."""
        return self._propose(self._options_proposal(options, actor, (card,)))

    def _options_proposal(
        self,
        options: Sequence[Option],
        actor: str,
        cards: tuple[str, ...],
        price_range: tuple[int, int] | None = None,
        price_step: int = 0,
        hint: str = Proposal.hint,
    ) -> Proposal:
        """A proposal of ``cards`` over ``options`` (a choice when there are several, the first
        selected); a single action with a ``price_range`` is priced within it by ``price_step``."""
        first = options[0]
        proposal = Proposal(
            str(first.action["type"]),
            first.text,
            first.action,
            first.preview,
            actor,
            options=tuple(options) if len(options) > 1 else (),
            price_range=price_range,
            price_step=price_step if price_range is not None else 0,
            cards=cards,
            hint=hint,
        )
        return self._with_option(proposal, 0) if proposal.options else proposal

    def _marker(self, item: Item, legal: Sequence[LegalAction]) -> Outcome:
        """A marker (1833NE's ferry): the legal actions that involve it (buying a ferry in each
        port the operating corporation reaches), each an option, tapped through."""
        if not legal:
            raise GameError(self._nothing_to_do(item))
        p = self._proposal
        if p is not None and p.cards == (item.id,) and p.options:
            return self._propose(self._with_option(p, (p.selected + 1) % len(p.options)))
        options = []
        for la in legal:
            preview = self._preview(la.action)
            text = describe_action(self.game, la.action)
            if la.cost:
                text += f" for {self._money(la.cost)}"
            where = la.action.get("city")  # a ferry's port names the option
            label = self.g18.map.place_name(str(where)) if isinstance(where, str) else text
            options.append(Option(label, la.action, preview, text))
        return self._propose_options(options, item.id, str(options[0].action["entity"]))

    def _buy_train(self, train: Train, corp: Corporation, legal: LegalAction | None = None) -> Proposal:
        if train.rusted:
            raise GameError(f"that {train.name}-train has rusted and is out of the game")
        if train.owner is corp:
            raise GameError(f"{corp.sym} already owns that {train.name}-train")
        if legal is None:
            if train.owner is None and train not in self.g18.depot_trains():
                for_sale = ", ".join(sorted({t.name for t in self.g18.depot_trains()})) or "none"
                raise GameError(
                    f"that {train.name}-train is not for sale yet; the bank sells: {for_sale}-trains"
                )
            if train.owner is not None and corp.cash < 1:
                raise GameError(f"{corp.sym} has no money to buy a train from {train.owner.sym}")
            raise GameError(
                f"{corp.sym} cannot buy that {train.name}-train now: {self._step_description(corp)}"
            )
        price_range = legal.price_range
        action = dict(legal.action)
        preview = self._preview(action)
        return Proposal(
            "buy_train",
            self._price_text("buy_train", action, preview),
            action,
            preview,
            corp.sym,
            price_range=price_range,
            price_step=TRAIN_STEP,
            cards=(train.id,),
            hint=(
                "confirm to buy it"
                if price_range is None
                else f"tap again or press + to raise by {self._money(TRAIN_STEP)} "
                f"({self._money(1)} to {self._money(corp.cash)}), confirm to buy"
            ),
        )

    def _price_text(self, kind: str, action: Action, preview: Preview, *, purchase: bool = False) -> str:
        module = self._module
        if module is not None:
            return describe_action(self.game, action)
        price = int(action["price"])
        if kind == "bid" and "corporation" in action:
            corp = self.g18.corporation(str(action["corporation"]))
            player = self.game.player(action["entity"])
            return f"{player.name} bids {self._money(price)} for {corp.sym} ({corp.name})"
        if kind == "bid":
            player = self.game.player(action["entity"])
            company = self.g18.company(action["company"])
            if purchase:
                return f"{player.name} buys {company.sym} ({company.name}) for {self._money(price)}"
            return f"{player.name} bids {self._money(price)} for {company.sym} ({company.name})"
        if kind == "buy_company":
            company = self.g18.company(action["company"])
            buyer = self.game.entity_of(action)
            who = buyer.sym if isinstance(buyer, Corporation) else buyer.name
            seller = company.owner.name if company.owner is not None else "the bank"
            return f"{who} buys {company.sym} ({company.name}) from {seller} for {self._money(price)}"
        train = self.g18.train(action["train"])
        source = "the bank" if train.owner is None else train.owner.sym
        side = str(action.get("variant") or train.name)
        text = f"{action['entity']} buys a {side}-train from {source} for {self._money(price)}"
        corp = self.g18.corporation(str(action["entity"]))
        if corp.owner is not None:
            extra = self._paid(preview, corp.owner.id)
            if extra > 0:
                text += f" ({corp.owner.name} contributes {self._money(extra)})"
        return text


def _share_index(share_id: str) -> int:
    """A certificate's number (``BW_3`` → 3)."""
    tail = share_id.rpartition("_")[2]
    return int(tail) if tail.isdigit() else 0


def _certificates(ids: Sequence[str]) -> str:
    """Certificates as their cards name them: "the president's certificate", "certificates 5, 6"."""
    numbers = [i.rpartition("_")[2] for i in ids]
    words = ["the president's certificate" if n == "0" else n for n in numbers]
    plain = [w for w in words if w.isdigit()]
    parts = [w for w in words if not w.isdigit()]
    if plain:
        parts.append(("certificate " if len(plain) == 1 else "certificates ") + ", ".join(plain))
    return " and ".join(parts)


def describe_action(game: TableGame, action: Action, *, applied: bool = False) -> str:
    """A sentence for an action of ``game``: ``Player 2 buys 10% SLSF from the IPO for $100``.

    The proposals (taps, buttons, the camera) describe an action before it is applied; the undo
    describes the last action after it was (``applied``), when who sold a share and at what price
    can no longer be read off the game.  A title with a table module of its own
    (``companion/table/titles``) words its actions itself."""
    module = table_module(game.title)
    if module is not None:
        words: str = module.describe_action(game, action)
        return words
    return _describe_18xx(as_18xx(game), action, applied=applied)


def _treasury_change(game: Game, action: Action, word: str) -> str:
    """`` for $140``: what an issue brings or a redemption costs the corporation, by the engine's
    preview (the title prices them: 1833NE a column below or above the share price); "" when the
    engine refuses it."""
    try:
        preview = game.preview(action)
    except GameError:
        return ""
    change = sum(abs(m.after - m.before) for m in preview.money if m.who == action.get("entity"))
    return f" {word} {money_in(game, change)}" if change else ""


def _describe_18xx(game: Game, action: Action, *, applied: bool) -> str:
    kind = str(action.get("type"))
    try:
        entity = game.entity_of(action)
        who = entity.sym if isinstance(entity, Corporation | Company) else entity.name
    except GameError:
        who = str(action.get("entity"))
    ids = [str(s) for s in action.get("shares") or []]
    if kind == "buy_shares":
        try:
            shares: list[Share] = [game.share(i) for i in ids]
        except GameError:
            return f"{who} buys {', '.join(ids)}"
        if not shares:
            return f"{who} buys nothing"
        corp, pct = shares[0].corporation, sum(s.percent for s in shares)
        if who == corp.sym:  # a corporation buying its own shares from the market redeems them
            detail = f" ({_certificates(ids)})" if applied else _treasury_change(game, action, "for")
            return f"{who} redeems {pct}% of its shares from the market" + detail
        if applied:
            return f"{who} buys {pct}% {corp.sym} ({_certificates(ids)})"
        owner = shares[0].owner
        where = "the IPO" if owner is corp else "the market" if isinstance(owner, SharePool) else owner.name
        return f"{who} buys {pct}% {corp.sym} from {where} for {money_in(game, sum(s.price for s in shares))}"
    if kind == "sell_shares":
        sym = ids[0].rpartition("_")[0] if ids else "?"
        pct = action.get("percent") or len(ids) * 10
        detail = f" ({_certificates(ids)})" if applied else ""
        if who == sym:  # a corporation selling its own treasury shares issues them
            detail = detail or _treasury_change(game, action, "for")
            return f"{who} issues {pct}% of its shares to the market" + detail
        return f"{who} sells {pct}% {sym}" + detail
    if kind == "par":
        price = str(action.get("share_price")).split(",")[0]
        home = f" with its home in {action['city']}" if action.get("city") else ""
        return f"{who} pars {action.get('corporation')} at {money_in(game, price)}{home}"
    if kind == "take_over":
        paid = "its own shares" if action.get("payment") == "shares" else "cash"
        return f"{who} takes over {action.get('corporation')}, paying in {paid}"
    if kind in ("accept_takeover", "refuse_takeover"):
        return f"{who} {kind.split('_')[0]}s the takeover"
    if kind == "bid":
        target = action.get("company") or action.get("corporation")
        return f"{who} bids {money_in(game, action.get('price'))} for {target}"
    if kind == "buy_train":
        side = action.get("variant") or _printed(action.get("train"))
        return f"{who} buys a {side}-train for {money_in(game, action.get('price'))}"
    if kind == "buy_ferry":
        return f"{who} buys the ferry in {game.map.place_name(str(action.get('city')))}"
    if kind == "discard_train":
        return f"{who} discards the {_printed(action.get('train'))}-train"
    if kind == "buy_company":
        return f"{who} buys {action.get('company')} for {money_in(game, action.get('price'))}"
    if kind == "convert":
        return f"{who} converts into a major company"
    if kind == "merge":
        target = str(action.get("corporation"))
        try:
            started = game.corporation(target).ipoed
        except GameError:
            started = True
        return f"{who} merges with {target}" if started else f"{who} forms {target}"
    if kind == "remove_token":
        return f"{who} removes its token from {action.get('city')}"
    if kind == "choose" and action.get("choice") == "nationalize":
        return f"{who} is nationalised"
    if kind == "choose":
        return f"{who} chooses {action.get('choice')}"
    if kind == "pass":
        return f"{who} passes"
    if kind == "lay_tile":
        number = _printed(action.get("tile"))
        return f"{who} lays tile {number} on {action.get('hex')} (rotation {action.get('rotation')})"
    if kind == "place_token":
        return f"{who} places a token in {action.get('city')}"
    if kind == "assign":
        does = game.assignment_words(action)
        return f"{who} {does}" if does else f"{who} places its token on {action.get('target')}"
    if kind == "run_routes":
        routes = action.get("routes") or []
        total = sum(int(r.get("revenue", 0)) for r in routes)
        return f"{who} runs {_plural(len(routes), 'train')} for {money_in(game, total)}"
    if kind == "dividend":
        words = {"payout": "pays out", "withhold": "withholds", "half": "pays half"}
        return f"{who} {words.get(str(action.get('kind')), str(action.get('kind')))}"
    return f"{who}: {kind.replace('_', ' ')}"
