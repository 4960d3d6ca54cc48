"""The touchscreen's side of the table: one :class:`~companion.table.service.TableService`.

Every change goes through the table service (``companion/table/service.py``, see
``docs/TABLE.md``), whether it comes from an NFC tap, a panel button or a touch button:
the service proposes (the engine's preview, a sentence, options such as par prices), and
on confirm it writes the action to the store, then applies it.  This module adapts the
service's proposals and results for the screen (:class:`~companion.ui.viewmodels.Proposal`
toasts), keeps a transcript of what happened, tells the screens when the game changed,
and runs the camera check (:func:`check_board`).

The service may call back from the reader or panel threads; :class:`UISession` hands
every callback to ``post`` (the app passes a function that runs it on the Kivy thread).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.engine import Game
from companion.table.service import Proposal as ServiceProposal
from companion.table.service import Result, TableService
from companion.ui.viewmodels import Proposal, board_state

__all__ = ["CameraCheck", "UISession", "check_board", "mark_differences", "to_view"]

Action = dict[str, Any]
Listener = Callable[[], None]


def to_view(game: Game, outcome: ServiceProposal | Result | None) -> Proposal | None:
    """A service proposal (or refusal) as the toast shows it."""
    if outcome is None:
        return None
    if isinstance(outcome, Result):
        if outcome.ok:
            return None
        return Proposal("Not possible", (), outcome.action or {}, outcome.text)
    names = {p.id: p.name for p in game.players}
    details = [
        f"{'Bank' if m.who == 'bank' else names.get(m.who, str(m.who))}: ${m.before:,} -> ${m.after:,}"
        for m in outcome.preview.money
        if m.who != "bank"
    ]
    details += [f"{sym} share price ${a} -> ${b}" for sym, (a, b) in outcome.preview.share_prices.items()]
    return Proposal(
        outcome.text,
        tuple(details),
        dict(outcome.action),
        None,
        options=tuple(o.label for o in outcome.options),
        selected=outcome.selected,
        hint=outcome.hint,
    )


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


def tile_layer(game: Game) -> Any:
    """The corporation that may lay a tile now (``None`` if nobody may)."""
    from companion.engine.entities import Corporation

    entity = None if game.finished else game.current_entity()
    if isinstance(entity, Corporation) and "lay_tile" in game.legal_action_types(entity):
        return entity
    return None


def legal_lay_check(game: Game) -> Callable[[str, str, int], bool | str] | None:
    """For the reconciliation: may the acting corporation lay tile ``tile_id`` on a hex at a rotation?"""
    from companion.engine.map import MapError

    corp = tile_layer(game)
    if corp is None:
        return None

    def check(hex_id: str, tile_id: str, rotation: int) -> bool | str:
        names = game.map.available_tiles(tile_id)
        if not names:
            return f"no tile {tile_id} is left in the supply"
        try:
            game.map.validate_lay(corp.sym, hex_id, names[0], rotation, game.map_phase())
        except MapError as err:
            return str(err)
        return True

    return check


def check_board(game: Game, frame: NDArray[np.uint8], recognizer: Any) -> CameraCheck:
    """Recognise ``frame`` and reconcile it with the game's map.

    A tile the camera sees that the acting corporation may legally lay becomes a ``lay_tile``
    action in ``proposals`` (the camera path for tile lays: one touch to propose it)."""
    from vision.reconcile import reconcile

    board = board_state(game)
    result = recognizer.recognise(frame)
    if not result.ok:
        return CameraCheck(
            frame, (), (), (), result.seconds, f"the camera cannot see the board: {result.error}"
        )
    rec = reconcile(result.observations, dict(board.tiles), board.title, is_legal_lay=legal_lay_check(game))
    marked = mark_differences(frame, result.homography, board.geometry, [d.hex for d in rec.differences])
    corp = tile_layer(game)
    actions = []
    for p in rec.proposals:
        names = game.map.available_tiles(str(p["tile"]))
        if corp is not None and names:
            actions.append(
                {
                    "type": "lay_tile",
                    "entity": corp.sym,
                    "entity_type": "corporation",
                    "hex": p["hex"],
                    "tile": names[0],
                    "rotation": int(p["rotation"]),
                }
            )
    notes = tuple(d.describe() for d in rec.differences) + tuple(f"{h}: {why}" for h, why in rec.rejected)
    return CameraCheck(marked, notes, rec.cant_see, tuple(actions), result.seconds)


class UISession:
    """The screen's view of a :class:`TableService` game (``post`` runs a callback on the UI thread)."""

    def __init__(
        self, service: TableService, post: Callable[[Callable[[], None]], None] | None = None
    ) -> None:
        self.service = service
        self.post: Callable[[Callable[[], None]], None] = post or (lambda f: f())
        self.listeners: list[Listener] = []
        self.events: list[str] = []
        """Everything that happened, in words (the demo transcript is made of these)."""
        self.last_check: CameraCheck | None = None
        self.pending: Proposal | None = None
        self.on_proposal: Callable[[Proposal | None], None] | None = None
        """The app's toast: called on the UI thread with every new proposal or refusal (None: dropped)."""
        service.on_proposal = self._service_proposal
        service.on_result = self._service_result

    @property
    def game(self) -> Game:
        return self.service.game

    # -- service callbacks (any thread) ------------------------------------------------------------------
    def _service_proposal(self, proposal: ServiceProposal | None) -> None:
        def show() -> None:
            view = to_view(self.game, proposal)
            self.pending = view
            if view is not None:
                note = f"proposed: {view.text}"
                if view.details:
                    note += " (" + "; ".join(view.details) + ")"
                self.events.append(note)
            if self.on_proposal is not None:
                self.on_proposal(view)

        self.post(show)

    def _service_result(self, result: Result) -> None:
        def show() -> None:
            if result.ok:
                self.events.append(f"{'confirmed' if result.applied else 'ok'}: {result.text}")
                self.events.extend(f"  {line}" for line in result.log)
            else:
                self.events.append(f"refused: {result.text}")
                if self.on_proposal is not None:
                    self.on_proposal(to_view(self.game, result))
            if result.applied:
                self.pending = None
                self._changed()

        self.post(show)

    # -- what the screen asks (UI thread) -----------------------------------------------------------------
    def propose(self, action: Action) -> None:
        self.service.propose(action)

    def tap(self, uid: str) -> None:
        self.events.append(f"[tap] {uid}")
        self.service.tap(uid)

    def choose(self, index: int) -> None:
        self.service.choose(index)

    def confirm(self) -> None:
        self.service.press("confirm")

    def cancel(self) -> None:
        self.service.press("cancel")
        self.pending = None

    def ask_undo(self) -> None:
        """Propose taking back the last action (a pending proposal is dropped first)."""
        if self.service.proposal is not None:
            self.service.cancel()
        self.service.undo()

    def recorded(self, actions: list[Action]) -> None:
        """Store actions the demo has just replayed on the game (a recorded real game), in one
        transaction, and tell the screens."""
        if actions:
            self.service.store.append_many(self.service.game_id, actions)
        self._changed()

    # -- camera -----------------------------------------------------------------------------------------
    def record_check(self, check: CameraCheck) -> None:
        self.last_check = check
        if check.error:
            self.events.append(f"[camera] {check.error}")
        elif check.clean:
            self.events.append(f"[camera] the board matches the game ({len(check.cant_see)} hexes hidden)")
        else:
            self.events.extend(f"[camera] {d}" for d in check.differences)
        self._changed()

    # -- listeners ------------------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> None:
        self.listeners.append(listener)

    def _changed(self) -> None:
        for listener in list(self.listeners):
            listener()
