"""The core every title shares: players, the bank, the action log, undo, previews, legal actions.

:class:`TableGame` knows nothing of maps, trains or stock markets: it holds the players and the
bank, applies actions through the current round's steps (each refused action leaves the state as
it was: a snapshot is put back), previews them on the game itself and puts it back, undoes them
from snapshots and checkpoints, and answers the one question every
input asks, :meth:`TableGame.legal_actions`.  18xx titles build on :class:`companion.engine.game.Game`
(a subclass with the shared 18xx mechanics); a title without a map or trains subclasses this class
directly and supplies its rounds, steps and entities (docs/ENGINE.md, "Titles").
"""

from __future__ import annotations

import contextlib
import copy
import json
import weakref
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self, TypeVar

from companion.engine.checks import FIELD_SHAPES, REQUIRED_FIELDS, Shape, check_action_shape, check_fields
from companion.engine.entities import Bank, Player
from companion.engine.errors import GameError, GameOver
from companion.engine.rounds import ActionDict, LegalAction, Round
from companion.engine.snapshot import Snapshot

_T = TypeVar("_T")

__all__ = ["MoneyMove", "Preview", "TableGame"]


@dataclass
class MoneyMove:
    """A change in someone's cash, for previews: ``who`` is a player id, a corporation sym or ``"bank"``."""

    who: Any
    before: int
    after: int


@dataclass
class Preview:
    """What an action would do, computed by trying it on the game and putting the game back."""

    money: list[MoneyMove] = field(default_factory=list)
    share_prices: dict[str, tuple[int, int]] = field(default_factory=dict)
    log: list[str] = field(default_factory=list)
    basis: tuple[Any, int, str] | None = field(default=None, repr=False, compare=False)
    """The game, its state version and the action (as JSON) this preview was computed from: an
    :meth:`Game.apply` of the same action to the same, unchanged game need not try it again."""
    snapshot: Snapshot | None = field(default=None, repr=False, compare=False)
    """The game as it was (and is again) before the trial: what an apply of the same action to the
    same, unchanged game keeps for an undo instead of taking another."""


class TableGame:
    """A game of any title: players, bank, rounds of steps, the action log and its undo."""

    title = "base"
    #: a snapshot restores these lists as they were without looking into them: log lines and
    #: applied actions are never changed once made (companion.engine.snapshot)
    SNAPSHOT_SHALLOW: ClassVar[frozenset[str]] = frozenset({"log", "actions"})
    CHECKPOINT_EVERY = 25
    #: how many of the latest actions an undo takes back by restoring the snapshot taken before
    #: each (beyond them: from a checkpoint)
    UNDO_SNAPSHOTS = 25
    #: the fields each action type needs (companion.engine.checks; a title adds its own types)
    REQUIRED_FIELDS: dict[str, tuple[str, ...]] = REQUIRED_FIELDS
    #: the shape of each action field (companion.engine.checks; a title adds its own fields)
    FIELD_SHAPES: dict[str, Shape] = FIELD_SHAPES

    def __init__(
        self,
        data: dict[str, Any],
        players: list[tuple[Any, str]],
        optional_rules: frozenset[str] | set[str] | list[str] = frozenset(),
        seed: int = 0,
    ) -> None:
        n = len(players)
        lo, hi = data["meta"]["player_range"]
        if not lo <= n <= hi:
            raise GameError(f"{data['title']} is for {lo}-{hi} players, not {n}")
        self.data = data
        self.player_spec = list(players)
        self.seed = seed
        self.optional_rules = frozenset(optional_rules)
        self.log: list[str] = []
        self.actions: list[ActionDict] = []
        self._checkpoints: tuple[tuple[int, Snapshot], ...] = ()
        """(actions, the snapshot of the game after that many actions) every ``CHECKPOINT_EVERY``
        actions at the table, the two latest: an undo further back than the undo records restores
        one in place and replays the actions since."""
        self._snapshot_kinds: dict[type, int] = {}  # how a snapshot notes each class (Snapshot)
        self._undo_snapshots: list[tuple[int, int, Snapshot]] = []
        """(actions, version) after each of the latest actions applied at the table, with the
        snapshot taken before it: :meth:`undo` restores it while the game is still in that state."""
        self.checkpointing = False
        """Keep the snapshot of the state every ``CHECKPOINT_EVERY`` actions, so an undo replays only
        the actions since (:meth:`keep_checkpoints`; the table does, replays do not)."""
        self.version = 0
        """Counts the changes of state (every processed action and undo); previews remember it."""
        self.follows_record = False
        """The game replays a record that has its automatic actions written out (an 18xx.games
        export): an action without ``auto_actions`` had none, so the engine makes none itself (as
        18xx.games loads an export).  Otherwise (at the table) the engine takes its own."""
        self.finished = False
        self.game_end_reason: str | None = None
        self.game_end_trigger: tuple[str, str] | None = None
        self.turn = 1
        self.query_epoch: int | None = None
        """While not None, nothing changes the state: the steps may remember what they answered
        (:meth:`open_queries`)."""
        self._epochs = 0
        self._resumable: int | None = None
        """The query window the last action ended in, while nothing has changed since (the engine
        has done nothing else): the next action's choice of step takes it up again
        (:meth:`resume_queries`).  Opening or closing any other window forgets it."""
        self._remembered_epoch = 0
        self._remembered: dict[str, Any] = {}
        self.bank = Bank(cash=int(data["bank_cash"]))
        self.players = [self.make_player(pid, name) for pid, name in players]
        for p in self.players:
            self.bank.spend(int(data["starting_cash"][str(n)]), p)
        self.build()
        self.setup()
        self.round: Round = self.initial_round()
        self.round.setup()
        self.close_queries()  # set up: whoever holds the game may change it before its first action

    # -- construction hooks ----------------------------------------------------------------------------------
    def make_player(self, pid: Any, name: str) -> Player:
        """Title hook: a player (a title may keep more on its players)."""
        return Player(id=pid, name=name)

    def build(self) -> None:
        """Title hook: make the title's own entities (corporations, railroads, market, board…)."""

    def setup(self) -> None:
        """Title hook: title-specific setup after the entities exist."""

    def initial_round(self) -> Round:
        raise NotImplementedError

    def next_round(self) -> None:
        """Title hook: the round after the current one."""
        raise NotImplementedError

    def static_state(self) -> list[Any]:
        """Title hook: objects that never change during a game and need not be copied."""
        return []

    def cheap_copies(self) -> dict[int, Any]:
        """Title hook: parts of the state that copy themselves faster than a deep copy
        (``{id(part): its copy}``, e.g. the map)."""
        return {}

    # -- query windows -------------------------------------------------------------------------------------
    def open_queries(self) -> None:
        """Start a window in which the state does not change (a new one unless one is open): the
        round's steps remember their :meth:`Step.actions` answers until :meth:`close_queries`.  The
        engine opens one around each read-only stretch (choosing the step for an action, the checks
        after it, a public query) and closes it before anything can change the state."""
        if self.query_epoch is None:
            self._resumable = None
            self._epochs += 1
            self.query_epoch = self._epochs

    def close_queries(self) -> None:
        """End the query window: from now on the state may change."""
        self.query_epoch = None
        self._resumable = None

    def suspend_queries(self) -> None:
        """End the query window where nothing has changed since its questions and the engine goes
        on to the next action (the end of :meth:`replay_action`, the start of :meth:`process_single`):
        that action's choice of step may take it up again (:meth:`resume_queries`), unless
        anything opens or closes a window first."""
        if self.query_epoch is not None:
            self._resumable = self.query_epoch
            self.query_epoch = None

    def resume_queries(self) -> None:
        """Open the window for choosing the step of an action: the one the previous action ended in
        when :meth:`suspend_queries` left it resumable (its answers are of this very state), else a
        new one (:meth:`open_queries`)."""
        if self.query_epoch is None and self._resumable is not None:
            self.query_epoch = self._resumable
            self._resumable = None
        else:
            self.open_queries()

    def remembered(self, key: str, compute: Callable[[], _T]) -> _T:
        """``compute()``, remembered under ``key`` for the open query window (a question many steps
        ask between two changes of state, e.g. which corporations are over their train limit);
        outside a window, ``compute()`` itself.  The answer must be treated as read-only."""
        epoch = self.query_epoch
        if epoch is None:
            return compute()
        if self._remembered_epoch != epoch:
            self._remembered_epoch = epoch
            self._remembered = {}
        if key in self._remembered:
            return self._remembered[key]  # type: ignore[no-any-return]
        answer = compute()
        self._remembered[key] = answer
        return answer

    @contextlib.contextmanager
    def queries(self) -> Iterator[None]:
        """A query window for the block (inside one already open: that one)."""
        opened = self.query_epoch is None
        self.open_queries()
        try:
            yield
        finally:
            if opened:
                self.close_queries()

    # -- entities --------------------------------------------------------------------------------------------
    def player(self, pid: Any) -> Player:
        for p in self.players:
            if p.id == pid or str(p.id) == str(pid):
                return p
        raise GameError(f"unknown player {pid!r}")

    def entity_of(self, action: ActionDict) -> Any:
        """Who takes ``action`` (a title adds its own entity types)."""
        kind = action.get("entity_type")
        if kind == "player":
            return self.player(action.get("entity"))
        raise GameError(f"action has an unknown entity type {kind!r}")

    # -- the API a table needs -----------------------------------------------------------------------------
    def current_entity(self) -> Any:
        with self.queries():
            return self.round.current_entity()

    def legal_action_types(self, entity: Any = None) -> list[str]:
        if self.finished:
            return []
        with self.queries():
            entity = entity if entity is not None else self.current_entity()
            if entity is None:
                return []
            return self.round.actions_for(entity)

    #: action types that can involve a card (a title names its own: certificates, companies, trains…)
    CARD_ACTION_TYPES: frozenset[str] = frozenset()

    def related_entities(self, current: Any) -> list[Any]:
        """Title hook: who else may act now beside ``current`` (none by default)."""
        return []

    def legal_actions(self, entity: Any = None, types: Collection[str] | None = None) -> list[LegalAction]:
        """The exact actions the engine accepts now, complete as they would be applied.

        With ``entity``: that entity's.  Without: everything that may be done now by whoever may
        act: the acting entity and those :meth:`related_entities` names (in an 18xx: the
        corporations a player presides, an operating corporation's private companies and its
        president).  ``run_routes`` is not listed (see ``suggest_routes``).
        ``types`` limits the answer to those action types (listing tile lays is the slow part).
        Every listed action is accepted by :meth:`apply` as it stands."""
        if self.finished:
            return []
        with self.queries():
            return self._legal_actions(entity, types)

    def _legal_actions(self, entity: Any, types: Collection[str] | None) -> list[LegalAction]:
        if entity is not None:
            return self.round.legal_actions(entity, types)
        current = self.current_entity()
        if current is None:
            return []
        related = [current, *self.related_entities(current)]
        out: list[LegalAction] = []
        seen: set[str] = set()
        for who in related:
            for la in self.round.legal_actions(who, types):
                key = json.dumps(la.action, sort_keys=True)
                if key not in seen:
                    seen.add(key)
                    out.append(la)
        return out

    def actions_involving(self, card: str) -> list[LegalAction]:
        """The legal actions that involve one card (a certificate, private company or train id):
        what a tap on that card may mean now."""
        return [la for la in self.legal_actions(types=self.CARD_ACTION_TYPES) if card in la.cards]

    def apply(self, action: ActionDict, preview: Preview | None = None) -> list[str]:
        """Apply one action; raise :class:`GameError` with the reason (state unchanged) if illegal.

        Returns the log lines the action produced.
        """
        # Tried on this game itself: a refused action puts back the snapshot taken before it, in
        # place, so references the caller holds (players, corporations) stay valid either way.
        # At the table (checkpointing) the snapshot is also what an undo of this action restores;
        # elsewhere a preview of this very action on this game as it is now has tried it already.
        previewed = self.previewed(action, preview)
        if previewed and not self.checkpointing:
            self.close_queries()  # an action from outside the engine: nothing remembered is taken up
            return self.replay_action(action)
        before = preview.snapshot if previewed and preview is not None else None
        if before is None:
            before = self.snapshot()
        self.close_queries()
        try:
            lines = self.replay_action(action)
        except BaseException:
            before.restore()
            raise
        if self.checkpointing:
            count = len(self.actions) - 1  # the actions before this one: the state ``before`` notes
            if count % self.CHECKPOINT_EVERY == 0:
                self._checkpoint(count, before)
            kept = self._undo_snapshots[-(self.UNDO_SNAPSHOTS - 1) :] if self.UNDO_SNAPSHOTS > 1 else []
            self._undo_snapshots[:] = [*kept, (len(self.actions), self.version, before)]
        return lines

    def _checkpoint(self, count: int, snapshot: Snapshot) -> None:
        """Keep ``snapshot`` (the game after ``count`` actions) as a checkpoint, with the latest one
        before it: an undo rarely goes further back than that."""
        if count and not any(n == count for n, _ in self._checkpoints):
            older = [cp for cp in self._checkpoints if cp[0] < count]
            self._checkpoints = (*older[-1:], (count, snapshot))

    def snapshot(self) -> Snapshot:
        """What :meth:`Snapshot.restore` needs to put this game back as it is now, in place."""
        shared: list[Any] = [self.data, *self.static_state()]
        kinds = self._snapshot_kinds
        return Snapshot(self, shared, opaque=[self._undo_snapshots, self._checkpoints, kinds], kinds=kinds)

    def previewed(self, action: ActionDict, preview: Preview | None) -> bool:
        """Whether ``preview`` was computed from ``action`` on this game as it is now."""
        if preview is None or preview.basis is None:
            return False
        ref, version, text = preview.basis
        try:
            same_action = text == json.dumps(action, sort_keys=True, default=str)
        except (TypeError, ValueError):
            return False
        return bool(ref() is self and version == self.version and same_action)

    def clone(self) -> Self:
        """An independent copy of the game state (static title data is shared, never mutated).
        The copy keeps no checkpoints and makes none."""
        memo: dict[int, Any] = {id(self.data): self.data}
        for static in self.static_state():
            memo[id(static)] = static
        memo.update(self.cheap_copies())
        # applied actions and log lines are never changed: the copy shares them (its lists are its own)
        for action in self.actions:
            memo[id(action)] = action
        memo[id(self.actions)] = list(self.actions)
        memo[id(self.log)] = list(self.log)
        memo[id(self._checkpoints)] = ()
        memo[id(self._undo_snapshots)] = []
        memo[id(self._snapshot_kinds)] = self._snapshot_kinds  # classes only: shared
        out: Self = copy.deepcopy(self, memo)
        out.checkpointing = False
        out.query_epoch = None
        out._resumable = None
        return out

    def undo(self) -> ActionDict:
        """Take back the last action; return it.  Raises if there is none.

        At the table (:meth:`keep_checkpoints`) the snapshot taken before each of the latest
        ``UNDO_SNAPSHOTS`` actions is put back in place while the game is as that action left it;
        further back the latest checkpoint before it is put back in place and the actions since are
        replayed (the objects the game held then are its own again); without one, every action is
        replayed into a new state."""
        if not self.actions:
            raise GameError("there is nothing to undo")
        last = self.actions[-1]
        version, checkpointing, checkpoints = self.version, self.checkpointing, self._checkpoints
        records = self._undo_snapshots
        if records and records[-1][:2] == (len(self.actions), version):
            # the game is as the last action left it: put back the state from just before it (the
            # game's own bookkeeping is not part of a snapshot: it is set again, not restored)
            records.pop()[2].restore()
            self._undo_snapshots = records
            self.checkpointing = checkpointing
            self._checkpoints = tuple(cp for cp in checkpoints if cp[0] <= len(self.actions))
            self.version = version + 1
            if records and records[-1][0] == len(self.actions):
                # the game is again as the action before left it: its record applies
                records[-1] = (len(self.actions), self.version, records[-1][2])
            return last
        target = len(self.actions) - 1
        usable = tuple(cp for cp in checkpoints if cp[0] <= target)
        if usable:
            # the records and the later checkpoints are of states gone
            count, checkpoint = usable[-1]
            later = self.actions[count:target]
            checkpoint.restore()
            self._undo_snapshots = []
            for action in later:
                self.replay_action(action)
        else:
            self._adopt(self.replayed(self.actions[:target]))
        self._checkpoints, self.checkpointing = usable, checkpointing
        self.version = version + 1
        return last

    def keep_checkpoints(self) -> None:
        """From now on keep the snapshot of the state every ``CHECKPOINT_EVERY`` actions (and one
        now), so that an undo is quick; a game at the table does, a bulk replay need not.  The
        checkpoint after ``n`` actions is the snapshot the next :meth:`apply` takes anyway (for its
        undo), so keeping one costs nothing on the way of a tap."""
        self.checkpointing = True
        if self.actions:
            self._checkpoint(len(self.actions), self.snapshot())

    def _adopt(self, other: Self) -> None:
        """Become ``other`` (a rebuilt state): take its state, and point its round and steps, which
        refer to the game they act on, at this game instead."""
        self.__dict__.update(other.__dict__)
        rnd = self.round
        for obj in [rnd, *getattr(rnd, "steps", [])]:
            if getattr(obj, "game", None) is other:
                obj.game = self

    def before_last(self) -> Self:
        """A new game as this one was before its last action (this one is unchanged): a copy of
        the state the last undo record or the latest checkpoint notes (put back for the copy, then
        this game's own state again), with the actions since replayed; else every action replayed."""
        if not self.actions:
            raise GameError("there is nothing to undo")
        return self.rewound(len(self.actions) - 1)

    def rewind(self, count: int) -> None:
        """Take back every action after the first ``count``, in place (an undo back to a point): one
        by one while the undo records apply, then as :meth:`undo` goes further back, from the latest
        checkpoint at or before ``count`` with the actions since replayed; every action replayed only
        where no checkpoint is that early."""
        if not 0 <= count <= len(self.actions):
            raise GameError(f"the game has {len(self.actions)} actions, not {count}")
        while len(self.actions) > count:
            records = self._undo_snapshots
            if not (records and records[-1][:2] == (len(self.actions), self.version)):
                break
            self.undo()
        if len(self.actions) == count:
            return
        version, checkpointing = self.version, self.checkpointing
        usable = tuple(cp for cp in self._checkpoints if cp[0] <= count)
        if usable:
            base, checkpoint = usable[-1]
            later = self.actions[base:count]
            checkpoint.restore()
            self._undo_snapshots = []
            for action in later:
                self.replay_action(action)
        else:
            self._adopt(self.replayed(self.actions[:count]))
        self._checkpoints, self.checkpointing = usable, checkpointing
        self.version = version + 1

    def rewound(self, count: int) -> Self:
        """A new game as this one was after its first ``count`` actions (this one is unchanged), made
        as :meth:`before_last` makes its copy: from the latest checkpoint at or before ``count``, with
        the actions since replayed; every action replayed only where no checkpoint is that early."""
        if not 0 <= count <= len(self.actions):
            raise GameError(f"the game has {len(self.actions)} actions, not {count}")
        if count == len(self.actions):
            return self.clone()
        records = self._undo_snapshots
        if (
            count == len(self.actions) - 1
            and records
            and records[-1][:2] == (len(self.actions), self.version)
        ):
            return self._replayed_from(count, records[-1][2], count)  # the last action's undo record
        usable = [cp for cp in self._checkpoints if cp[0] <= count]
        if not usable:
            return self.replayed(self.actions[:count])
        return self._replayed_from(*usable[-1], count)

    def _replayed_from(self, base: int, then: Snapshot, count: int) -> Self:
        """A new game with the state ``then`` notes (this game after ``base`` actions; put back for
        the copy, then this game's own state again) and the actions up to ``count`` replayed."""
        now = self.snapshot()
        then.restore()
        try:
            game: Self = self.clone()
        finally:
            now.restore()
        for action in self.actions[base:count]:
            game.replay_action(action)
        return game

    def replayed(self, actions: list[ActionDict]) -> Self:
        """A new game of the same title and players with ``actions`` applied (no checkpoints)."""
        game = type(self)(self.data, self.player_spec, self.optional_rules, self.seed)
        game.checkpointing = False
        for action in actions:
            game.replay_action(action)
        return game

    def preview(self, action: ActionDict) -> Preview:
        """What ``action`` would do (money moves, share price moves) without doing it: it is tried
        on this game, which is then put back exactly as it was (:meth:`snapshot`)."""
        before, prices = self.cash_table(), self.price_table()
        snapshot = self.snapshot()
        try:
            self.checkpointing = False  # a trial keeps no checkpoint
            self.close_queries()
            lines = self.replay_action(action)
            after, later = self.cash_table(), self.price_table()
        finally:
            snapshot.restore()
        out = Preview(log=lines)
        # an action that is not plain data is simply tried again when applied
        with contextlib.suppress(TypeError, ValueError):
            out.basis = (weakref.ref(self), self.version, json.dumps(action, sort_keys=True, default=str))
            out.snapshot = snapshot
        for key, cash in after.items():
            if before.get(key) != cash:
                out.money.append(MoneyMove(key, before.get(key, 0), cash))
        for sym, price in prices.items():
            if later.get(sym, price) != price:
                out.share_prices[sym] = (price, later[sym])
        return out

    def cash_table(self) -> dict[Any, int]:
        """Everyone's cash: the bank, each player (by id) and each :meth:`treasuries` entry."""
        table: dict[Any, int] = {"bank": self.bank.cash}
        for p in self.players:
            table[p.id] = p.cash
        table.update(self.treasuries())
        return table

    def treasuries(self) -> dict[str, int]:
        """Title hook: the cash of everything else that holds money (corporations, railroads…)."""
        return {}

    def audit(self) -> list[str]:
        """What is wrong with the state now, one sentence each (empty: nothing): money is conserved
        (the bank's, the players' and every treasury's cash add up to the bank the game started
        with), no player's or treasury's cash is below zero (a broken bank's may be), and the
        title's own invariants (:meth:`audit_holdings`: every certificate held once, each
        corporation's shares adding up, loans, limits).  The replays, the random games, the
        property tests and ``companion games check`` ask it."""
        problems: list[str] = []
        cash = self.cash_table()
        total, start = sum(cash.values()), int(self.data["bank_cash"])
        if total != start:
            problems.append(f"money is not conserved: {total} in the game, {start} at its start")
        names = {p.id: p.name for p in self.players}
        problems += [  # the bank may: once broken it pays on from nothing until the game ends
            f"{names.get(who, who)} has {amount} in cash, below zero"
            for who, amount in cash.items()
            if amount < 0 and who != "bank"
        ]
        return problems + self.audit_holdings()

    def audit_holdings(self) -> list[str]:
        """Title hook: what is wrong with who holds what (certificates, loans, limits)."""
        return []

    def price_table(self) -> dict[str, int]:
        """Title hook: the prices a preview reports the moves of (share prices, stock values)."""
        return {}

    def replay_action(self, action: ActionDict, *, auto: bool | None = None) -> list[str]:
        """Process ``action`` (with its automatic actions): the next action of a recorded game.

        The fast path of a replay (a stored log, an export, a fixture): no snapshot is taken, so an
        action the engine refuses leaves this game half-changed and unusable; actions from players
        go through :meth:`apply`, which puts the game back as it was when it refuses one.

        The window its last questions were asked in is left resumable (:meth:`suspend_queries`):
        processed right after, the next action chooses its step in it.  Code that changes the game
        by hand between two calls (a test setting up a position) calls :meth:`close_queries`
        first; :meth:`apply`, :meth:`preview` and every public query start afresh."""
        try:
            lines = self._process_one(action, not self.follows_record if auto is None else auto)
        except BaseException:
            self.close_queries()
            raise
        self.suspend_queries()
        return lines

    def _process_one(self, action: ActionDict, auto: bool) -> list[str]:
        start = len(self.log)
        check_action_shape(action)
        if self.already_done(action):
            self.actions.append(action)  # kept in the log as recorded; nothing changes
            return []
        if self.finished and action.get("type") != "message":
            raise GameOver(f"the game is over ({self.game_end_reason}); no more actions")
        self.process_single(action)
        recorded = action.get("auto_actions")
        if recorded is not None:
            for sub in recorded:
                self.process_single(sub)
        elif auto:
            generated: list[ActionDict] = []
            for _ in range(50):
                self.open_queries()  # after_action's window, if still open: nothing changed since
                subs = self.round.auto_actions() if not self.finished else []
                if not subs:
                    break
                for sub in subs:
                    self.process_single(sub)
                    generated.append(sub)
            if generated:
                # recorded like 18xx.games does, so the log replays the same way anywhere
                action = {**action, "auto_actions": generated}
        self.actions.append(action)
        return self.log[start:]

    def already_done(self, action: ActionDict) -> bool:
        """Title hook: ``action`` of a recorded game is one the title's rules have since taken by
        themselves (an older record enters a step that is now automatic), so replaying it changes
        nothing; by default no action is."""
        return False

    def process_single(self, action: ActionDict) -> None:
        self.suspend_queries()  # nothing has changed yet: the step is chosen in that window
        try:
            self._process_single(action)
        except BaseException:
            self.close_queries()
            raise

    def _process_single(self, action: ActionDict) -> None:
        self.version += 1
        kind = check_action_shape(action)
        check_fields(action, self.REQUIRED_FIELDS, self.FIELD_SHAPES)
        if kind == "message" or kind.startswith("program_"):
            return
        if kind == "end_game":
            self.end_game("manually_ended")
            return
        entity = self.entity_of(action)
        self.check_action(action)
        self.round.process(action, entity)
        self.after_action()

    def check_action(self, action: ActionDict) -> None:
        """Title hook: refuse an action that contradicts itself before any step sees it."""

    def after_action(self) -> None:
        """After each action: move on to the next round while the current one is over."""
        guard = 0
        while True:
            self.open_queries()
            if self.finished or not self.round.finished():
                break  # the window stays open: the automatic actions are asked next
            self.close_queries()
            guard += 1
            if guard > 20:
                raise GameError("internal error: rounds do not advance")
            self.next_round()

    # -- the end ------------------------------------------------------------------------------------------
    def end_game(self, reason: str) -> None:
        if self.finished:
            return
        self.finished = True
        self.game_end_reason = reason
        scores = ", ".join(f"{p.name} (${v})" for p, v in ((p, self.player_value(p)) for p in self.players))
        self.log.append(f"-- Game over: {scores} --")

    def player_value(self, player: Player) -> int:
        """Title hook: a player's final score."""
        return player.cash

    def trace_state(self) -> dict[str, Any]:
        """Title hook: the title's own part of a replay trace entry (``companion replay --trace``)."""
        return {}

    def before_18xx_games_check(self, action: ActionDict) -> Any:
        """Title hook: what :meth:`differs_on_18xx_games` needs to know of the game just before
        ``action`` is processed (None: nothing)."""
        return None

    def differs_on_18xx_games(self, action: ActionDict, before: Any) -> str | None:
        """Title hook, asked just after ``action`` was processed (``before``: what
        :meth:`before_18xx_games_check` said of the game before it): in words, how the 18xx.games
        engine, given the same action, parts from this one by a documented rule difference
        (docs/ENGINE.md); None when it does not.  ``companion export`` warns with it."""
        return None

    def result(self) -> dict[Any, int]:
        return {p.id: self.player_value(p) for p in self.players}
