"""End to end: real 1870 stock rounds played as NFC taps and confirm presses reach exactly the state of the
same actions applied directly (and of 18xx.games' own reference trace)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.engine import new_game
from companion.engine.stock import StockRound
from companion.interop.actions import effective_actions
from companion.interop.replay import load_export, load_trace, trace_entry
from companion.store import Store
from companion.table.script import enroll_demo_tags
from companion.table.service import Proposal, Result, TableService, game_from_store
from companion.table.tags import TagRegistry
from tests.support.table import FIXTURES, snapshot, table_moves, uid


def tap_and_confirm(service: TableService, move: dict[str, Any]) -> Result:
    """Make ``move`` with taps (and one confirm), as players would; returns the confirm's result."""
    game = service.game
    kind = move["type"]
    if move["entity_type"] == "corporation":
        # a corporation redeeming its own share is chosen on the touchscreen, not tapped
        assert isinstance(service.propose(move), Proposal)
    elif kind == "pass":
        out = service.tap(uid(f"player-{move['entity']}"))
        assert isinstance(out, Proposal), out
    elif kind == "par":
        out = service.tap(uid(f"{move['corporation']}_0"))
        assert isinstance(out, Proposal), out
        price = "$" + str(move["share_price"]).split(",")[0]
        # cycle with further taps of the president's certificate until the wanted par price shows
        for _ in range(len(out.options)):
            if out.options[out.selected].label == price:
                break
            out = service.tap(uid(f"{move['corporation']}_0"))
            assert isinstance(out, Proposal)
        assert out.options[out.selected].label == price
    elif kind in ("buy_shares", "sell_shares"):
        shares = list(move["shares"])
        owner = game.share(shares[0]).owner
        if (
            kind == "buy_shares" and len(shares) > 1
        ):  # price protection: tapping one sold certificate is enough
            out = service.tap(uid(shares[0]))
        else:
            assert kind == "sell_shares" or owner is not game.player(move["entity"])
            for share in shares:
                out = service.tap(uid(share))
                assert isinstance(out, Proposal), out
        assert isinstance(out, Proposal), out
        assert sorted(out.action["shares"]) == sorted(shares)
    else:
        raise AssertionError(f"no taps for {move}")
    result = service.confirm()
    assert result.ok and result.applied, result.text
    return result


def play_stock_round(tmp_path: Path, fixture: str, number: int) -> None:
    export = load_export(FIXTURES / fixture)
    seats = {p["id"]: n for n, p in enumerate(export["players"], start=1)}
    names = [p["name"] for p in export["players"]]
    actions = effective_actions(export["actions"])
    db = tmp_path / "table.sqlite3"
    store, registry = Store.open(db), TagRegistry.open(db)
    enroll_demo_tags(registry, "1870")
    reference = load_trace(FIXTURES / fixture.replace(".json", ".trace.jsonl"))
    by_id = {entry["id"]: entry for entry in reference}

    # everything before the stock round goes straight into the store and the engine
    game = new_game("1870", names)
    before: list[dict[str, Any]] = []
    rest = list(actions)
    while rest and not (isinstance(game.round, StockRound) and game.turn == number):
        for move in table_moves(rest.pop(0), seats):
            game.replay_action(move)
            before.append(move)
    game_id = store.create_game("1870", names)
    store.append_many(game_id, before)
    service = TableService(game, store, game_id, registry)
    direct = game.clone()  # the same moves applied directly, without the table

    def in_round() -> bool:
        return isinstance(service.game.round, StockRound) and service.game.turn == number

    played = 0
    last_id = None
    for action in rest:
        if not in_round():
            break  # the stock round is over
        for move in table_moves(action, seats):
            result = tap_and_confirm(service, move)
            assert result.action == move
            played += 1
            direct.apply(move)
        last_id = action["id"]
    assert played >= 15, f"only {played} moves were tapped"
    # exactly the state of the same actions applied directly
    assert snapshot(service.game) == snapshot(direct)
    # and of 18xx.games itself after the last action of the round
    ours = trace_entry(service.game, {"id": last_id})
    theirs = by_id[last_id]
    back = {str(seat): str(pid) for pid, seat in seats.items()}
    ours["players"] = {back[k]: v for k, v in ours["players"].items()}
    for key in ("bank", "players", "corporations", "turn", "phase"):
        assert ours[key] == theirs[key], key
    # the store holds exactly what the engine applied: a reopened game is the same
    reopened = game_from_store(store, service.game_id)
    assert snapshot(reopened) == snapshot(service.game)
    store.close()
    registry.close()


def test_first_stock_round_of_a_real_game_by_taps(tmp_path: Path) -> None:
    play_stock_round(tmp_path, "1870_game_end_bank.json", 1)


@pytest.mark.slow
def test_stock_round_with_sales_price_protection_and_redemptions(tmp_path: Path) -> None:
    # turn 3 of this game: a sale of three MP certificates gathered from three taps, price protection
    # by another president, a par, corporations redeeming shares, auto-passes made by hand
    play_stock_round(tmp_path, "1870_game_end_bank.json", 3)


def test_first_stock_round_of_another_game(tmp_path: Path) -> None:
    play_stock_round(tmp_path, "34110.json", 1)
