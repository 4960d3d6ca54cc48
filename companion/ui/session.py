"""The touchscreen's session: one game, proposals with confirm/cancel, undo, taps, camera checks.

Plain Python (no Kivy).  Every change goes the same way whether it comes from a touch
button, an NFC tap or the camera: :meth:`TableSession.propose` describes the action and
previews its money moves (a :class:`~companion.ui.viewmodels.Proposal` shown as a toast);
:meth:`TableSession.confirm` applies it through the engine, records it in the store, then
tells the listeners; :meth:`TableSession.cancel` drops it.  An illegal action is refused
with the engine's reason and changes nothing.

Taps are turned into actions here (:func:`action_for_item`) until the table service
(``companion.table.service``) takes that job: a certificate tapped by the acting player
is bought (from the IPO or the market) or, if the player holds it, sold; a train card
tapped in an operating round is bought from the bank; a private company card in the
auction is bid on at its minimum.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.engine import Game, GameError
from companion.engine.entities import Company, Corporation, Player
from companion.ui.viewmodels import Proposal, board_state, entity_label, proposal_for

__all__ = ["CameraCheck", "TableSession", "action_for_item", "check_board", "mark_differences"]

Action = dict[str, Any]
Listener = Callable[[], None]


def action_for_item(game: Game, kind: str, item_id: str) -> Action:
    """The action a tap on a tagged card means now; :class:`GameError` if it means nothing."""
    if game.finished:
        raise GameError("the game is over")
    actor = game.current_entity()
    if actor is None:
        raise GameError("nobody is acting now")
    if kind == "certificate":
        if not isinstance(actor, Player):
            raise GameError(f"{entity_label(actor)} is acting: certificates are tapped in a stock round")
        share = game.share(item_id)
        corp = share.corporation
        if share.owner is actor:
            return {
                "type": "sell_shares",
                "entity": actor.id,
                "entity_type": "player",
                "shares": [share.id],
                "percent": share.percent,
            }
        if share.president and not corp.ipoed:
            raise GameError(f"to start {corp.sym}, choose its par price on the screen (Par…)")
        if share.owner is corp or share.owner is game.pool:
            return {
                "type": "buy_shares",
                "entity": actor.id,
                "entity_type": "player",
                "shares": [share.id],
                "percent": share.percent,
            }
        raise GameError(f"{share.id} belongs to {entity_label(share.owner)}")
    if kind == "train":
        if not isinstance(actor, Corporation):
            raise GameError(f"{entity_label(actor)} is acting: trains are bought by an operating corporation")
        name = item_id.rsplit("-", 1)[0]
        for train in game.depot_trains():
            if train.name == name:
                price = int(game.train_price(train))  # type: ignore[attr-defined]
                return {
                    "type": "buy_train",
                    "entity": actor.sym,
                    "entity_type": "corporation",
                    "train": train.id,
                    "price": price,
                    "variant": train.name,
                }
        raise GameError(f"no {name}-train is for sale now")
    if kind == "company":
        company: Company = game.company(item_id)
        if isinstance(actor, Player) and "bid" in game.legal_action_types(actor):
            step = game.round.step_for(actor, "bid")
            price = (
                int(step.min_bid(company))
                if step is not None and hasattr(step, "min_bid")
                else company.min_bid
            )
            return {
                "type": "bid",
                "entity": actor.id,
                "entity_type": "player",
                "company": company.sym,
                "price": price,
            }
        raise GameError(f"{company.sym} can only be bought in the auction by tapping")
    raise GameError(f"a {kind} card means nothing to the game now")


@dataclass(frozen=True)
class CameraCheck:
    """One board check: the frame with differences marked and the sentences."""

    image: NDArray[np.uint8]
    differences: tuple[str, ...]
    cant_see: tuple[str, ...]
    proposals: tuple[dict[str, Any], ...]
    seconds: float
    error: str | None = None

    @property
    def clean(self) -> bool:
        return self.error is None and not self.differences


def mark_differences(
    frame: NDArray[np.uint8], homography: Any, geometry: Any, hexes: list[str]
) -> NDArray[np.uint8]:
    """Red rings and hex ids on the frame where the board differs from the game."""
    out = frame.copy()
    if homography is None:
        return out
    size = max(6, int(out.shape[1] / 40))
    for hex_id in hexes:
        x, y = geometry.center(hex_id)
        p = np.asarray(homography, dtype=np.float64) @ np.array([x, y, 1.0])
        u, v = int(p[0] / p[2]), int(p[1] / p[2])
        cv2.circle(out, (u, v), size * 2, (0, 0, 255), max(3, size // 3))
        cv2.putText(
            out,
            hex_id,
            (u + size * 2, v - size),
            cv2.FONT_HERSHEY_SIMPLEX,
            size / 12,
            (0, 0, 255),
            max(2, size // 5),
        )
    return out


def check_board(game: Game, frame: NDArray[np.uint8], recognizer: Any) -> CameraCheck:
    """Recognise ``frame`` and reconcile it with the game's map."""
    from vision.reconcile import reconcile

    board = board_state(game)
    result = recognizer.recognise(frame)
    if not result.ok:
        return CameraCheck(
            frame, (), (), (), result.seconds, f"the camera cannot see the board: {result.error}"
        )
    rec = reconcile(result.observations, dict(board.tiles), board.title)
    marked = mark_differences(frame, result.homography, board.geometry, [d.hex for d in rec.differences])
    return CameraCheck(
        marked,
        tuple(d.describe() for d in rec.differences),
        rec.cant_see,
        rec.proposals,
        result.seconds,
    )


@dataclass
class TableSession:
    """The game on the table.  ``make_game`` builds the game afresh (for undo by replay)."""

    make_game: Callable[[], Game]
    game: Game = field(init=False)
    store: Any = None
    game_id: int | None = None
    registry: Any = None
    pending: Proposal | None = field(default=None, init=False)
    listeners: list[Listener] = field(default_factory=list, init=False)
    events: list[str] = field(default_factory=list, init=False)
    """Everything that happened, in words (the demo transcript is made of these)."""
    last_check: CameraCheck | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.game = self.make_game()

    # -- replay ---------------------------------------------------------------------------------------
    def load(self, actions: list[Action]) -> None:
        """Replay ``actions`` (a saved game) on a fresh game."""
        self._rebuild(actions)
        self._changed()

    def fast_forward(self, actions: list[Action]) -> None:
        """Apply recorded actions without proposals (the demo skips ahead with this)."""
        for a in actions:
            self.game.apply(a)
        self._changed()

    # -- proposals ------------------------------------------------------------------------------------
    def propose(self, action: Action, source: str = "touch") -> Proposal:
        prop = proposal_for(self.game, action)
        self.pending = prop if prop.ok else None
        note = f"[{source}] proposed: {prop.text}"
        if prop.details:
            note += " (" + "; ".join(prop.details) + ")"
        if not prop.ok:
            note += f" -- refused: {prop.error}"
        self.events.append(note)
        return prop

    def confirm(self) -> list[str]:
        """Apply the pending proposal; returns the log lines it produced."""
        prop = self.pending
        if prop is None:
            raise GameError("nothing to confirm")
        self.pending = None
        lines = self.game.apply(copy.deepcopy(prop.action))
        if self.store is not None and self.game_id is not None:
            try:
                self.store.append(self.game_id, prop.action)
            except Exception:
                self._rebuild(self.game.actions[:-1])
                raise
        self.events.append(f"confirmed: {prop.text}")
        self.events.extend(f"  {line}" for line in lines)
        self._changed()
        return lines

    def cancel(self) -> None:
        if self.pending is not None:
            self.events.append(f"cancelled: {self.pending.text}")
        self.pending = None
        self._changed()

    def undo(self) -> str:
        """Take back the last action (replay all but the last); returns what was undone."""
        if not self.game.actions:
            raise GameError("there is nothing to undo")
        last = self.game.actions[-1]
        what = f"{last.get('type')} by {last.get('entity')}"
        self._rebuild(list(self.game.actions[:-1]))
        if self.store is not None and self.game_id is not None:
            self.store.undo(self.game_id)
        self.events.append(f"undone: {what}")
        self.pending = None
        self._changed()
        return what

    def _rebuild(self, actions: list[Action]) -> None:
        game = self.make_game()
        for a in actions:
            game._process(a)  # replay of actions already accepted once (see docs/UI.md, engine requests)
        self.game = game

    # -- taps -----------------------------------------------------------------------------------------
    def tap(self, uid: str) -> Proposal:
        """A tag was tapped: look it up and propose what it means."""
        item = self.registry.lookup(uid) if self.registry is not None else None
        if item is None:
            prop = Proposal(f"tag {uid}", (), {}, "this tag is not enrolled (Setup, Tag enrollment)")
            self.events.append(f"[tap] {uid}: not enrolled")
            self.pending = None
            return prop
        try:
            action = action_for_item(self.game, str(item.kind), item.id)
        except GameError as err:
            self.events.append(f"[tap] {item.label}: {err}")
            self.pending = None
            return Proposal(f"tapped {item.label}", (), {}, str(err))
        self.events.append(f"[tap] {item.label}")
        return self.propose(action, source="tap")

    # -- camera ---------------------------------------------------------------------------------------
    def camera_check(self, frame: NDArray[np.uint8], recognizer: Any) -> CameraCheck:
        check = check_board(self.game, frame, recognizer)
        self.last_check = check
        if check.error:
            self.events.append(f"[camera] {check.error}")
        elif check.clean:
            self.events.append(f"[camera] board matches the game ({len(check.cant_see)} hexes hidden)")
        else:
            self.events.extend(f"[camera] {d}" for d in check.differences)
        return check

    # -- listeners ------------------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> None:
        self.listeners.append(listener)

    def _changed(self) -> None:
        for listener in list(self.listeners):
            listener()
