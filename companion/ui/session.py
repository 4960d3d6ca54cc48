"""The touchscreen's side of the table: one :class:`~companion.table.service.TableService`.

Every change goes through the table service (``companion/table/service.py``, see
``docs/TABLE.md``), whether it comes from an NFC tap, a panel button or a touch button (taps and
panel presses reach it through the device runtime, ``companion/devices.py``, not through here):
the service proposes (the engine's preview, a sentence, options such as par prices), and
on confirm it writes the action to the store, then applies it.  This module adapts the
service's proposals and results for the screen (:class:`~companion.ui.viewmodels.Proposal`
toasts), keeps a transcript of what happened, tells the screens when the game changed,
and records the camera's checks (made by :mod:`companion.table.camera`).

The service may call back from the reader or panel threads; :class:`UISession` hands
every callback to ``post`` (the app passes a function that runs it on the Kivy thread).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from companion.engine import Game, as_18xx
from companion.engine.core import TableGame
from companion.table.proposal import UNDO_TO
from companion.table.service import Proposal as ServiceProposal
from companion.table.service import Result, TableService, describe_action
from companion.table.titles import table_title
from companion.titles import title_info
from companion.ui.viewmodels import Proposal, own_table

if TYPE_CHECKING:
    from companion.table.camera import CameraCheck
    from companion.table.titles import Network

__all__ = ["UISession", "to_view"]

Action = dict[str, Any]
Listener = Callable[[], None]

#: how many of the actions an undo to an earlier point takes back its toast lists
UNDO_LINES = 6


def to_view(game: TableGame, outcome: ServiceProposal | Result | None) -> Proposal | None:
    """A service proposal (or refusal) as the toast shows it."""
    if outcome is None:
        return None
    if isinstance(outcome, Result):
        if outcome.ok:
            return None
        return Proposal("Not possible", (), outcome.action or {}, outcome.text)
    details = table_title(game.title).money_lines(game, outcome.preview)
    if outcome.kind == UNDO_TO:
        # what will be taken back, newest first (the money it moves follows)
        shown = list(outcome.preview.log[:UNDO_LINES])
        more = len(outcome.preview.log) - len(shown)
        details = shown + ([f"and {more} more"] if more > 0 else []) + details
    return Proposal(
        outcome.text,
        tuple(details),
        dict(outcome.action),
        None,
        options=tuple(o.label for o in outcome.options),
        selected=outcome.selected,
        hint=outcome.hint,
        price_range=outcome.price_range,
        price_step=outcome.price_step,
    )


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
        self.marks: list[int] = []
        """The game log's length after each action, as far as known (:func:`viewmodels.log_marks`):
        kept up to date after each action and undo, recomputed by the Log screen when behind."""
        self.last_check: CameraCheck | None = None
        self.checked_at: int | None = None
        """How many actions the game had when :attr:`last_check` compared the board with it."""
        self.pending: Proposal | None = None
        self.on_proposal: Callable[[Proposal | None], None] | None = None
        """The app's toast: called on the UI thread with every new proposal or refusal (None: dropped)."""
        service.on_proposal = self._service_proposal
        service.on_result = self._service_result

    @property
    def game(self) -> TableGame:
        return self.service.game

    @property
    def has_map(self) -> bool:
        """The game is an 18xx with a map (its screens: table, shares, market, operating, map,
        camera); otherwise its title's table module serves it (a board of panels)."""
        return not own_table(self.service.game)

    @property
    def title_name(self) -> str:
        """The title's display name ("Trans-Siberian Railroad")."""
        return title_info(self.service.game.title).display_name

    @property
    def g18(self) -> Game:
        """The game as an 18xx game, for the 18xx screens (map, market, routes); ``GameError`` for a
        title without a map (its board screen shows the title's own panels)."""
        return as_18xx(self.service.game)

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

    def network(self) -> Network | None:
        """The drawn network map as the Board screen shows it (``TableService.drawn_network``:
        with the second links that may follow a proposed one-link build), or None."""
        return self.service.drawn_network()

    def line_start(self, place: str) -> bool:
        """A first place touched on a drawn network map: True when a legal build starts there (the
        map waits for the other end); otherwise the service refuses, saying why (the toast)."""
        return self.service.line_start(place) is None

    def extend_line(self, place: str) -> bool:
        """A place touched while one link's build is proposed: True when it proposed the two-link
        build going on to ``place``."""
        return self.service.extend_line(place) is not None

    def propose_line(self, first: str, second: str) -> None:
        """Two places touched on the drawn map: the service proposes the build joining them (or
        says why nothing joins them)."""
        self.service.propose_line(first, second)

    def choose(self, index: int) -> None:
        self.service.choose(index)

    def set_price(self, price: int) -> None:
        """Set the pending bid's or purchase's price (the toast's − / + buttons)."""
        self.service.set_price(price)

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

    def ask_undo_to(self, keep: int) -> None:
        """Propose taking back every action after the first ``keep`` (a log entry was picked)."""
        self.service.undo_to(keep)

    def ask_redo(self) -> None:
        """Propose bringing back what the latest undo took back."""
        self.service.redo()

    def redoable(self) -> int:
        """How many actions a redo would bring back (0: nothing to redo)."""
        return len(self.service.redoable())

    def recorded(self, actions: list[Action]) -> None:
        """Store actions the demo has just replayed on the game (a recorded real game), in one
        transaction, and tell the screens."""
        if actions:
            self.service.store.append_many(self.service.game_id, actions)
        self._changed()

    # -- camera -----------------------------------------------------------------------------------------
    def record_check(
        self, check: CameraCheck, *, quiet_if_unchanged: bool = False, offer: bool = False
    ) -> None:
        """Show a camera check.  The board watch checks every few seconds: with
        ``quiet_if_unchanged`` the transcript only gets a line when what the camera says changed.

        With ``offer`` (the background watch), a tile the players have just laid on the table that
        the acting corporation may legally lay there is proposed at once, so confirming it is all
        that is left to do; only when nothing else is proposed, and once per new verdict."""
        before = self.last_check
        self.last_check = check
        self.checked_at = len(self.game.actions)
        if quiet_if_unchanged and before is not None and _same_verdict(before, check):
            self._changed()
            return
        if check.error:
            self.events.append(f"[camera] {check.error}")
        elif check.clean:
            self.events.append(f"[camera] the board matches the game{check.hidden()}")
        else:
            self.events.extend(f"[camera] {line}" for line in check.notes())
        if offer and len(check.proposals) == 1 and self.service.proposal is None:
            seen = describe_action(self.game, check.proposals[0])
            self.events.append(f"[camera] proposes what it sees: {seen}")
            self.service.propose(dict(check.proposals[0]))
        self._changed()

    @property
    def check_is_current(self) -> bool:
        """The camera's last verdict was about the game as it is now (no action since, nor undo)."""
        return self.last_check is not None and self.checked_at == len(self.game.actions)

    # -- listeners ------------------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> None:
        self.listeners.append(listener)

    def _changed(self) -> None:
        n = len(self.game.actions)
        if len(self.marks) > n:  # taken back: the marks of the actions kept still hold
            self.marks = self.marks[:n]
        elif len(self.marks) == n - 1:
            self.marks.append(len(self.game.log))
        for listener in list(self.listeners):
            listener()


def _same_verdict(a: CameraCheck, b: CameraCheck) -> bool:
    return a.error == b.error and a.notes() == b.notes()
