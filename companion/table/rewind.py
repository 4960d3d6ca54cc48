"""Taking actions back and bringing them back at the table: undo (the last action), undo back to
a picked action, redo (what the latest undo took back).  Each is proposed first, with what it moves
(:class:`~companion.table.proposal.Proposal` with ``rewind``); confirm stores the 18xx.games undo or
redo record and brings the game there in place (the undo records and checkpoints), replaying the
whole game only when the store's actions are not the game's."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from companion.engine import GameError
from companion.engine.core import MoneyMove, Preview, TableGame
from companion.interop.actions import ExportError, is_message, is_redo, redo_record, undo_record
from companion.store import StoreError
from companion.table.proposal import REDO, UNDO, UNDO_TO, Action, Outcome, Proposal, Result, plural

if TYPE_CHECKING:
    from companion.table.service import TableService

log = logging.getLogger("companion.table")


def _without_ids(actions: list[Action]) -> list[Action]:
    """``actions`` without the log ``id`` the store gives each and the notes the engine adds
    (``_corp``): what the game and the store both hold of them."""
    return [{k: v for k, v in a.items() if k != "id" and not k.startswith("_")} for a in actions]


def _cash_moves(now: TableGame, then: TableGame) -> list[MoneyMove]:
    """What going from ``now`` to ``then`` (an undo, a redo) does to everyone's cash."""
    return _moves(now.cash_table(), then.cash_table())


def _moves(before: dict[Any, int], after: dict[Any, int]) -> list[MoneyMove]:
    """The cash that differs between two of a game's cash tables, as money moves."""
    return [
        MoneyMove(key, before.get(key, 0), cash) for key, cash in after.items() if before.get(key) != cash
    ]


def store_undo(table: TableService, action: Action) -> None:
    try:
        table.store.undo(table.game_id, entity=action.get("entity"), entity_type=action.get("entity_type"))
    except StoreError:
        log.exception("table: could not take action back out of the store")
        raise


def undo(table: TableService) -> Outcome:
    """Propose taking back the last action (confirm does it); with a proposal pending, drop that first."""
    with table._lock:
        if table._proposal is not None:
            return table.cancel()
        actions = [a for a in table.game.actions if not is_message(a)]
        if not actions:
            return table._refuse("there is nothing to undo")
        last = table.game.actions[-1]
        try:
            before = table.game.before_last()
        except GameError as exc:
            return table._refuse(f"cannot undo: {exc}")
        preview = Preview(log=[f"undo: {table.title.describe(table.game, last, applied=True)}"])
        preview.money.extend(_cash_moves(table.game, before))
        text = f"Undo: {table.title.describe(table.game, last, applied=True)}"
        return table.offer(
            Proposal(
                UNDO,
                text,
                undo_record(last),
                preview,
                actor=str(last.get("entity")),
                hint="confirm to take it back, cancel to keep it",
                rewind=True,
            )
        )


def confirm_undo(table: TableService, proposal: Proposal) -> Result:
    try:
        seq = table.store.undo(
            table.game_id,
            entity=proposal.action.get("entity"),
            entity_type=proposal.action.get("entity_type"),
        )
    except StoreError as exc:
        return table._refuse(f"not undone: {exc}")
    table.game.undo()
    table._set_proposal(None)
    return table._result(Result(True, proposal.text, action=proposal.action, seq=seq, applied=True))


def undo_to(table: TableService, keep: int) -> Outcome:
    """Propose taking back every action after the first ``keep`` (a pending proposal is dropped);
    confirm stores one undo record (18xx.games' ``action_id``) and rebuilds the game."""
    with table._lock:
        table._set_proposal(None)
        actions = table.game.actions
        if not 0 <= keep < len(actions):
            return table._refuse(
                f"undo back to before action {keep + 1}: the game has {len(actions)} actions"
            )
        try:
            stored = table.store.effective_actions(table.game_id)
        except StoreError as exc:
            return table._refuse(f"cannot undo: {exc}")
        before = table.game.rewound(keep)
        taken = [table.title.describe(table.game, a, applied=True) for a in actions[keep:]]
        preview = Preview(log=[f"undo: {line}" for line in reversed(taken)])
        preview.money.extend(_cash_moves(table.game, before))
        last = actions[-1]
        record = undo_record(last, int(stored[keep - 1]["id"]) if keep else 0)
        count = len(taken)
        text = f"Undo {plural(count, 'action')} back to before: {taken[0]}"
        return table.offer(
            Proposal(
                UNDO_TO,
                text,
                record,
                preview,
                actor=str(last.get("entity")),
                hint="confirm to take them back (redo brings them back), cancel to keep them",
                rewind=True,
            )
        )


def redoable(table: TableService) -> list[Action]:
    """The actions a redo would bring back (those the latest undo took back, until a new action)."""
    with table._lock:
        try:
            seqs = table.store.effective_seqs(table.game_id, redo_record())
            return table.store.actions_at(table.game_id, seqs[len(table.game.actions) :])
        except StoreError:
            return []


def redo(table: TableService) -> Outcome:
    """Propose bringing back what the latest undo took back (confirm does it)."""
    with table._lock:
        table._set_proposal(None)
        restored = redoable(table)
        if not restored:
            return table._refuse("there is nothing to redo: redo brings back an undo until a new action")
        # tried on the game itself and put back exactly as it was, as a preview is (no copy)
        game, lines, refused = table.game, [], None
        before, now, checkpointing = game.cash_table(), game.snapshot(), game.checkpointing
        try:
            game.checkpointing = False  # a trial keeps no checkpoint
            for action in restored:
                game.close_queries()
                lines += game.replay_action(action)
            after = game.cash_table()
            first = table.title.describe(game, restored[0], applied=True)
        except GameError as exc:
            refused = f"cannot redo: {exc}"
        finally:
            now.restore()
            game.checkpointing = checkpointing
        if refused is not None:
            return table._refuse(refused)
        preview = Preview(log=lines)
        preview.money.extend(_moves(before, after))
        more = f" and {plural(len(restored) - 1, 'more action')}" if len(restored) > 1 else ""
        return table.offer(
            Proposal(
                REDO,
                f"Redo: {first}{more}",
                redo_record(),
                preview,
                actor=str(restored[-1].get("entity")),
                hint="confirm to bring it back, cancel to leave it undone",
                rewind=True,
            )
        )


def confirm(table: TableService, proposal: Proposal) -> Result:
    """Store the undo (to a point) or redo record, then bring the game there in place: an undo
    back to a point takes the actions back one by one (from the undo records and checkpoints), a
    redo applies again what it brings back (its proposal tried them).  Only a game whose actions
    are not those of the store is rebuilt by replaying every action, before anything is stored."""
    record = proposal.action
    if not is_redo(record) and "action_id" not in record:
        return confirm_undo(table, proposal)  # the last action: the engine's checkpoint takes it back
    done = "redone" if is_redo(record) else "undone"
    try:
        # read in full only the actions brought back and the last one both share
        seqs = table.store.effective_seqs(table.game_id, record)
        now = table.game.actions
        shared = min(len(seqs), len(now))
        last = table.store.actions_at(table.game_id, seqs[shared - 1 : shared] if shared else [])
        in_place = _without_ids(last) == _without_ids(now[shared - 1 : shared] if shared else [])
        # a redo of many actions replays the game: applying each would note an undo record each
        in_place = in_place and len(seqs) - len(now) <= table.game.UNDO_SNAPSHOTS
        target = now[: len(seqs)] + table.store.actions_at(table.game_id, seqs[len(now) :])
        if not in_place:  # not the store's game: rebuilt from the store, before anything is stored
            target = table.store.actions_at(table.game_id, seqs)
        game = table.game if in_place else table.game.replayed(target)
        if is_redo(record):
            seq = table.store.redo(table.game_id)
        else:
            seq = table.store.undo(table.game_id, **{k: v for k, v in record.items() if k != "type"})
    except (StoreError, GameError, ExportError) as exc:
        return table._refuse(f"not {done}, nothing changed: {exc}")
    try:
        if in_place and len(game.actions) > len(target):
            game.rewind(len(target))
        for action in target[len(game.actions) :] if in_place else []:
            game.apply(action)
    except GameError:  # tried by the proposal, so not expected: the whole replay decides
        log.exception("table: %s in place failed; replaying the game", done)
        game = table.game.replayed(target)
    game.keep_checkpoints()
    table.game = game
    table._set_proposal(None)
    return table._result(Result(True, proposal.text, action=record, seq=seq, applied=True))
