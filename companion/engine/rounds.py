"""Rounds as pipelines of steps.

A round owns the entities that act in it (players or corporations) and an
ordered list of steps.  Each step says which action types it accepts from an
entity right now; the first active step that *blocks* is the one a ``pass``
applies to.  Titles compose rounds from shared steps and override a few.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.engine.entities import Company, Player
from companion.engine.errors import GameError

if TYPE_CHECKING:
    from companion.engine.game import Game

Entity = Any  # Player | Corporation | Company
ActionDict = dict[str, Any]


@dataclass(frozen=True)
class LegalAction:
    """One action the engine accepts now, complete as it would be applied.

    ``cards`` are the physical cards it involves (certificate ids, private company syms, train
    ids), so a tap on a card is a filter over the legal actions.  Where the players choose the
    price (an auction bid, a price agreed between players), ``price_range`` is the lowest and
    highest the engine accepts and ``action["price"]`` is the first offer.
    """

    action: ActionDict
    cards: tuple[str, ...] = ()
    price_range: tuple[int, int] | None = None
    cost: int | None = None
    """What it costs the acting corporation, where that is known before applying it (a tile lay's
    terrain cost, a station token's price)."""

    @property
    def type(self) -> str:
        return str(self.action["type"])

    @property
    def passes(self) -> bool:
        """Whether this is passing (the player card's meaning, never a card's own)."""
        return self.type == "pass"

    def priced(self, price: int) -> ActionDict:
        """The action at another price within its range (``ValueError`` outside it)."""
        if self.price_range is None:
            raise ValueError("this action's price is fixed")
        lo, hi = self.price_range
        if not lo <= price <= hi:
            raise ValueError(f"the price must be between {lo} and {hi}")
        return {**self.action, "price": price}


def entity_fields(entity: Entity) -> dict[str, Any]:
    """The ``entity``/``entity_type`` fields of an action by ``entity`` (18xx.games format)."""
    if isinstance(entity, Player):
        return {"entity": entity.id, "entity_type": "player"}
    if isinstance(entity, Company):
        return {"entity": entity.sym, "entity_type": "company"}
    return {"entity": entity.sym, "entity_type": "corporation"}


#: the keys of a step's remembered answers besides an action kind: its whole list, whether it has any
_LIST = "*list"
_ANY = "*any"
#: the key of a step's remembered :meth:`Step.blocking` answer (no entity's id is 0)
_BLOCKING = (0, "*blocking")


class Step:
    """One phase of a round's work (auction, buy shares, lay track, ...)."""

    description = "step"
    blocks_default = True

    def __init__(self, game: Game, round_: Round, *, blocks: bool | None = None) -> None:
        self.game = game
        self.round = round_
        self.passed = False
        self.acted = False
        self._blocks = self.blocks_default if blocks is None else blocks
        self._answers_epoch = 0
        self._answers: dict[tuple[int, str], Any] = {}
        """What this step answered in the query window ``_answers_epoch``: (entity's id, ``LIST``)
        → its :meth:`actions`, (id, ``ANY``) → :meth:`has_actions`, (id, kind) → :meth:`accepts`,
        ``BLOCKING`` → :meth:`blocking`, (id, method name) → :meth:`window_answer` (one dict: a
        snapshot notes one object per step)."""

    #: whether :meth:`has_actions` (:meth:`accepts`) answers for this class's :meth:`actions` (both
    #: defined by the same class): a subclass that changes ``actions`` without them is answered from
    #: its list
    _has_actions_exact = True
    _accepts_exact = True
    #: whether the class's acting entity is the round's (it keeps :meth:`active_entities` as it is):
    #: :meth:`current_entity` then reads it without building the list
    _round_entity = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        lists = _defined_by(cls, "actions")
        cls._has_actions_exact = lists is _defined_by(cls, "has_actions")
        cls._accepts_exact = lists is _defined_by(cls, "accepts")
        cls._round_entity = (
            _defined_by(cls, "active_entities") is Step and _defined_by(cls, "current_entity") is Step
        )

    def _window_answers(self) -> dict[tuple[int, str], Any] | None:
        """What this step remembers in the open query window (None: no window is open); emptied
        when the window is not the one the remembered answers belong to (the same dict: no new
        object for the collector at every window)."""
        epoch = self.game.query_epoch
        if epoch is None:
            return None
        answers = self._answers
        if self._answers_epoch != epoch:
            self._answers_epoch = epoch
            answers.clear()
        return answers

    def cached_actions(self, entity: Entity) -> list[str]:
        """:meth:`actions`, remembered while the game's state cannot change (one query window of
        :meth:`TableGame.open_queries`): a round asks each step the same question many times
        between two changes of state.  Outside a window this is :meth:`actions` itself."""
        answers = self._window_answers()
        if answers is None:
            return self.actions(entity)
        key = (id(entity), _LIST)
        kinds: list[str] | None = answers.get(key)
        if kinds is None:
            kinds = answers[key] = self.actions(entity)
        return list(kinds)

    def cached_has_actions(self, entity: Entity) -> bool:
        """:meth:`has_actions`, remembered like :meth:`cached_actions` (and answered from its list
        when that is remembered)."""
        answers = self._window_answers()
        if answers is None:
            return self.has_actions(entity) if self._has_actions_exact else bool(self.actions(entity))
        kinds = answers.get((id(entity), _LIST))
        if kinds is not None:
            return bool(kinds)
        if not self._has_actions_exact:
            return bool(self.cached_actions(entity))
        key = (id(entity), _ANY)
        answer: bool | None = answers.get(key)
        if answer is None:
            answer = answers[key] = self.has_actions(entity)
        return answer

    def cached_accepts(self, entity: Entity, kind: str) -> bool:
        """:meth:`accepts`, remembered like :meth:`cached_actions` (and answered from its list when
        that is remembered)."""
        answers = self._window_answers()
        if answers is None:
            return self.accepts(entity, kind) if self._accepts_exact else kind in self.actions(entity)
        kinds = answers.get((id(entity), _LIST))
        if kinds is not None:
            return kind in kinds
        if not self._accepts_exact:
            return kind in self.cached_actions(entity)
        key = (id(entity), kind)
        answer: bool | None = answers.get(key)
        if answer is None:
            answer = answers[key] = self.accepts(entity, kind)
        return answer

    def window_answer(self, name: str, entity: Entity) -> Any:
        """``getattr(self, name)(entity)``, remembered in the open query window like the step's own
        answers: a question several of them are made of (the stock round's "can this player buy
        anything", asked by :meth:`has_actions` and again by :meth:`accepts`)."""
        answers = self._window_answers()
        if answers is None:
            return getattr(self, name)(entity)
        key = (id(entity), name)
        if key in answers:
            return answers[key]
        answer = answers[key] = getattr(self, name)(entity)
        return answer

    # -- what the step accepts -------------------------------------------------------------------------
    def actions(self, entity: Entity) -> list[str]:
        return []

    def has_actions(self, entity: Entity) -> bool:
        """Whether :meth:`actions` lists anything: what :meth:`blocking` asks.  A step whose list
        is slow to build may answer without building it, stopping at the first action it finds; a
        class that overrides :meth:`actions` must override this too for its own to be used."""
        return bool(self.actions(entity))

    def accepts(self, entity: Entity, kind: str) -> bool:
        """Whether :meth:`actions` lists ``kind``: what choosing the step for an action asks.  As
        with :meth:`has_actions`, a class that overrides :meth:`actions` overrides this too for its
        own to be used."""
        return kind in self.actions(entity)

    def active(self) -> bool:
        return not self.passed

    def blocks(self) -> bool:
        return self._blocks

    def active_entities(self) -> list[Entity]:
        entities = self.round.entities
        if not entities:
            return []
        return [entities[self.round.entity_index]]

    def current_entity(self) -> Entity | None:
        if self._round_entity:
            rnd = self.round
            return rnd.entities[rnd.entity_index] if rnd.entities else None
        ents = self.active_entities()
        return ents[0] if ents else None

    def current_actions(self) -> list[str]:
        entity = self.current_entity()
        if entity is None or getattr(entity, "closed", False):
            return []
        return self.cached_actions(entity)

    def current_has_actions(self) -> bool:
        entity = self.current_entity()
        if entity is None or getattr(entity, "closed", False):
            return False
        return self.cached_has_actions(entity)

    def blocking(self) -> bool:
        """Whether the step waits for its current entity: it blocks and that entity has something to
        do (remembered in the open query window, like the answers it is made of)."""
        if not self.blocks():
            return False
        answers = self._window_answers()
        if answers is None:
            return self.current_has_actions()
        answer: bool | None = answers.get(_BLOCKING)
        if answer is None:
            answer = answers[_BLOCKING] = self.current_has_actions()
        return answer

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        """Every concrete action of :meth:`actions` ``entity`` may take now, as it would be applied.

        Each step lists its own; ``run_routes`` is the one type no step lists (its choices are
        every set of routes; the route optimiser suggests the best).  The base lists ``pass``."""
        if "pass" in self.actions(entity):
            return [LegalAction({"type": "pass", **entity_fields(entity)})]
        return []

    # -- lifecycle ----------------------------------------------------------------------------------------
    def setup(self) -> None:
        """Called when a new entity starts its turn."""

    def pass_(self) -> None:
        self.passed = True

    def unpass(self) -> None:
        self.passed = False
        self.acted = False

    def skip(self) -> None:
        self.pass_()

    def auto_actions(self, entity: Entity) -> list[ActionDict]:
        return []

    def process(self, action: ActionDict) -> None:
        handler: Callable[[ActionDict], None] | None = getattr(self, f"process_{action['type']}", None)
        if handler is None:
            raise GameError(f"{self.description} cannot process {action['type']}")
        handler(action)

    def process_pass(self, action: ActionDict) -> None:
        self.pass_()

    def explain(self, entity: Entity, action: ActionDict) -> str | None:
        """Why ``action`` is not allowed now, in the player's words (None: no specific reason)."""
        current = self.current_entity()
        if current is not None and entity is not current and self.actions(current):
            return f"it is {entity_name(current)}'s turn, not {entity_name(entity)}'s"
        return None


class Round:
    """Base round: entities in order, an entity index and a step pipeline."""

    name = "Round"
    short = "R"

    def __init__(self, game: Game, step_classes: list[Any], round_num: int = 1) -> None:
        self.game = game
        self._active_epoch = 0
        self._active_first: Step | None = None
        """:meth:`active_step`'s answer (the first blocking step, asked many times in one window) in
        the query window ``_active_epoch`` (no window is numbered 0)."""
        self.round_num = round_num
        self.entity_index = 0
        self.entities: list[Entity] = self.select_entities()
        self.last_to_act: Any = None
        self.pass_order: list[Any] = []
        self.steps: list[Step] = []
        for spec in step_classes:
            cls, opts = spec if isinstance(spec, tuple) else (spec, {})
            self.steps.append(cls(game, self, **opts))
        for step in self.steps:
            step.setup()

    def select_entities(self) -> list[Entity]:
        return []

    def setup(self) -> None:
        pass

    # -- queries -----------------------------------------------------------------------------------------
    def active_step(self, entity: Entity | None = None) -> Step | None:
        if entity is not None:
            is_company = getattr(entity, "is_company", False)
            for step in self.steps:
                if step.active() and (is_company or step.blocking()) and step.cached_has_actions(entity):
                    return step
            return None
        epoch = self.game.query_epoch
        if epoch is None:
            return self._first_blocking_step()
        if self._active_epoch != epoch:
            self._active_first = self._first_blocking_step()
            self._active_epoch = epoch
        return self._active_first

    def _first_blocking_step(self) -> Step | None:
        for step in self.steps:
            if step.active() and step.blocking():
                return step
        return None

    def active_entities(self) -> list[Entity]:
        step = self.active_step()
        return step.active_entities() if step else []

    def current_entity(self) -> Entity | None:
        ents = self.active_entities()
        return ents[0] if ents else None

    def finished(self) -> bool:
        return self.active_step() is None

    def actions_for(self, entity: Entity) -> list[str]:
        out: list[str] = []
        for step in self.steps:
            if not step.active():
                continue
            for a in step.cached_actions(entity):
                if a not in out:
                    out.append(a)
            if step.blocking():
                break
        return out

    def legal_actions(self, entity: Entity, types: Collection[str] | None = None) -> list[LegalAction]:
        """The concrete legal actions of ``entity`` (of the given ``types`` only, if given): each
        action type from the step that would process it (the same choice :meth:`process` makes)."""
        out: list[LegalAction] = []
        claimed: set[str] = set()
        for step in self.steps:
            if not step.active():
                continue
            kinds = step.cached_actions(entity)
            wanted = [k for k in kinds if k not in claimed and (types is None or k in types)]
            if wanted == ["pass"]:
                # only its pass is wanted: the step's own listing (tile lays...) can be slow
                out += Step.legal_actions(step, entity)
            elif wanted:
                out += [la for la in step.legal_actions(entity) if la.type in wanted]
            claimed.update(kinds)
            if step.blocking():
                break
        return out

    def step_for(self, entity: Entity, action_type: str) -> Step | None:
        for step in self.steps:
            if not step.active():
                continue
            if action_type in step.cached_actions(entity):
                return step
            if step.blocking():
                break
        return None

    # -- processing ---------------------------------------------------------------------------------------
    def process(self, action: ActionDict, entity: Entity) -> None:
        kind = action["type"]
        chosen: Step | None = None
        self.game.resume_queries()  # choosing the step changes nothing
        for step in self.steps:
            if not step.active():
                continue
            accepts = step.cached_accepts(entity, kind)
            blocking = step.blocking()
            if blocking and not accepts:
                reason = step.explain(entity, action)
                if reason:
                    raise GameError(reason)
                raise GameError(
                    f"{entity_name(entity)} cannot {kind.replace('_', ' ')} now: {step.description}"
                )
            if blocking or accepts:
                chosen = step
                break
        if chosen is None:
            for step in self.steps:
                if step.active() and hasattr(step, f"process_{kind}"):
                    reason = step.explain(entity, action)
                    if reason:
                        raise GameError(reason)
            raise GameError(f"{entity_name(entity)} cannot {kind.replace('_', ' ')} now")
        self.game.close_queries()
        chosen.acted = True
        chosen.process(action)
        self.skip_steps(keep_open=True)
        self.after_process(action, entity)

    def skip_steps(self, *, keep_open: bool = False) -> None:
        """Skip the steps at the front that have nothing to ask of the current entity.

        ``keep_open``: when it stops at a step that blocks, its query window is left open (nothing
        has changed since its last question), so what it learnt answers the questions asked next;
        the caller closes it (``game.close_queries()``) before anything may change the state."""
        game = self.game
        game.close_queries()  # asked after a change: nothing remembered before it holds
        try:
            for step in self.steps:
                if game.query_epoch is None:
                    game.open_queries()
                if not step.blocks() or not step.active():
                    continue
                current = self.entities[self.entity_index] if self.entities else None
                if getattr(current, "closed", False):
                    continue
                if step.blocking():
                    if keep_open:
                        return
                    break
                game.close_queries()
                step.skip()
        except BaseException:
            game.close_queries()
            raise
        game.close_queries()

    def after_process(self, action: ActionDict, entity: Entity) -> None:
        """After an action and the steps skipped after it: move on (the next entity...).  Called in the
        query window :meth:`skip_steps` left open, if any, which ``Game.after_action`` goes on asking
        in: an override asks first and calls ``self.game.close_queries()`` before it changes anything."""

    def auto_actions(self) -> list[ActionDict]:
        entity = self.current_entity()
        step = self.active_step(entity) if entity is not None else None
        return step.auto_actions(entity) if step else []

    def next_entity_index(self) -> None:
        self.entity_index = (self.entity_index + 1) % len(self.entities)

    def goto_entity(self, entity: Entity) -> None:
        self.entity_index = self.entities.index(entity)


def _defined_by(cls: type, name: str) -> type | None:
    """The class of ``cls``'s method resolution order that defines ``name``."""
    return next((k for k in cls.__mro__ if name in vars(k)), None)


def entity_name(entity: Entity) -> str:
    return str(getattr(entity, "name", entity))
