"""Redo and undo back to a point bring the table's game there in place, from the undo records and
checkpoints, instead of replaying the whole game (issue 40 item 6); the game they leave is the one
a whole replay of the stored log gives, action for action."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.engine.core import TableGame
from companion.interop.actions import effective_actions
from companion.interop.replay import trace_entry
from companion.store import Store
from companion.table.exchange import import_export
from companion.table.service import Proposal, TableService
from companion.table.tags import TagRegistry
from tests.support.paths import TESTS

FIXTURES = TESTS / "fixtures"


def state(game: TableGame) -> Any:
    """What the players see of ``game``: money, holdings, the round and turn, the title's own state
    (as the reference traces record it), the actions taken, who acts next and the latest log."""
    plain = [{k: v for k, v in a.items() if k != "id" and not k.startswith("_")} for a in game.actions]
    acting = getattr(game.current_entity(), "name", None) if hasattr(game, "current_entity") else None
    return trace_entry(game, {}), plain, acting, game.log[-20:], game.finished


def rewind(service: TableService, proposal: object) -> None:
    assert isinstance(proposal, Proposal), proposal
    result = service.confirm()
    assert result.ok, result.text


@pytest.mark.slow
@pytest.mark.parametrize(
    "fixture",
    [
        "18xx.games/1870/40469_white-to-yellow_price_protect_allowed.json",
        "18xx.games/1867/hs_ahjzadkh_19792.json",
    ],
)
def test_redo_and_undo_to_leave_the_game_a_whole_replay_gives(fixture: str, tmp_path: Path) -> None:
    export = json.loads((FIXTURES / fixture).read_text())
    export["actions"] = effective_actions(export["actions"])
    export.pop("result", None)
    db = tmp_path / "companion.sqlite3"
    with Store.open(db) as store, TagRegistry.open(db) as registry:
        game_id, _ = import_export(store, export)
        service = TableService.open(store, game_id, registry)
        n = len(service.game.actions)
        played = service.game

        replays: dict[str, Any] = {}

        def same_as_a_whole_replay() -> None:
            # a whole replay of the stored log; one per log (the same stored actions replay alike:
            # after each redo below the log is the whole game's again)
            log = json.dumps(store.effective_actions(game_id), sort_keys=True, default=str)
            if log not in replays:
                replays[log] = state(store.replayed(game_id))
            assert state(service.game) == replays[log]

        for keep in (n - 3, n - 10, n - 40, 5):  # the undo records, a checkpoint, further back than any
            before = state(service.game)
            rewind(service, service.undo_to(keep))
            assert len(service.game.actions) == keep
            if keep >= n - 10:
                assert service.game is played  # in place: the table's game object is still the same
            same_as_a_whole_replay()
            rewind(service, service.redo())
            assert len(service.game.actions) == n
            same_as_a_whole_replay()
            assert state(service.game) == before
            played = service.game

        rewind(service, service.undo_to(n - 2))  # an undo after redos, then a plain undo of one more
        rewind(service, service.undo())
        same_as_a_whole_replay()
        rewind(service, service.redo())  # brings back the last undo's action only
        assert len(service.game.actions) == n - 2
        same_as_a_whole_replay()
