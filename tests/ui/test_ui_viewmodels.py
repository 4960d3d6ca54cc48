"""View models of the touchscreen, without a window, against real 1870 fixture states."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import Game, GameError, new_game
from companion.engine.entities import Corporation, Player
from companion.ui import viewmodels as vm
from companion.ui.scenario import Step, demo_export, replay_steps, strip_action


def _collect() -> dict[str, Any]:
    """One pass through the demo game keeping copies of the states the tests need."""
    export = demo_export()
    out: dict[str, Any] = {"samples": []}
    for step in replay_steps(export):
        g, a = step.game, step.action
        kinds = g.legal_action_types()
        if "auction" not in out and g.round.name == "Auction":
            out["auction"] = Step(step.index, a, copy.deepcopy(g))
        if "stock" not in out and g.turn >= 2 and a["type"] == "buy_shares" and "buy_shares" in kinds:
            out["stock"] = Step(step.index, a, copy.deepcopy(g))
        if (
            "run" not in out
            and a["type"] == "run_routes"
            and len(g.current_entity().trains) >= 2
            and step.index > 300
        ):
            out["run"] = Step(step.index, a, copy.deepcopy(g))
        if "dividend" not in out and a["type"] == "dividend" and a["kind"] == "payout" and step.index > 300:
            out["dividend"] = Step(step.index, a, copy.deepcopy(g))
        if step.index % 97 == 0:
            out["samples"].append(Step(step.index, a, copy.deepcopy(g)))
        out["end"] = g
    return out


_CACHE: dict[str, dict[str, Any]] = {}


def _states() -> dict[str, Any]:
    if "s" not in _CACHE:
        _CACHE["s"] = _collect()
    return _CACHE["s"]


@pytest.fixture(scope="module")
def states() -> dict[str, Any]:
    return _states()


def _total(game: Game) -> int:
    return game.bank.cash + sum(p.cash for p in game.players) + sum(c.cash for c in game.corporations)


def test_table_view_shows_bank_players_and_acting(states: dict[str, Any]) -> None:
    step: Step = states["stock"]
    g = step.game
    tv = vm.table_view(g)
    assert tv.bank_cash == g.bank.cash
    assert tv.round.startswith("Stock Round ")
    acting = g.current_entity()
    assert isinstance(acting, Player)
    assert tv.acting == acting.name and tv.acting_kind == "player"
    assert [p.name for p in tv.players if p.acting] == [acting.name]
    assert [p.name for p in tv.players if p.priority] == [g.priority_deal().name]
    seats = sorted(g.players, key=lambda p: p.id)  # seating order, wherever the priority deal is
    assert [r.seat for r in tv.players] == list(range(1, len(seats) + 1))
    for row, p in zip(tv.players, seats, strict=True):
        assert row.name == p.name and row.cash == p.cash and row.value == g.player_value(p)
        assert row.cert_count == g.num_certs(p) and row.cert_limit == g.cert_limit()
        for text in row.certificates:
            m = re.fullmatch(r"(\w+) (\d+)%( \(P\))?", text)
            assert m, text
            corp = g.corporation(m[1])
            assert int(m[2]) == p.percent_of(corp)
            assert bool(m[3]) == (corp.owner is p)
        held = {s.corporation.sym for s in p.shares}
        assert {c.split()[0] for c in row.certificates} == held
    assert "buy_shares" in tv.acting_actions


def test_table_view_president_shown_with_p(states: dict[str, Any]) -> None:
    g = states["run"].game
    tv = vm.table_view(g)
    corp = g.current_entity()
    assert isinstance(corp, Corporation) and corp.owner is not None
    row = next(p for p in tv.players if p.name == corp.owner.name)
    assert any(c.startswith(f"{corp.sym} ") and c.endswith("(P)") for c in row.certificates)
    # the corporation acts: its president is highlighted, the corporation row too
    assert row.acting and tv.acting == corp.sym and tv.acting_kind == "corporation"
    assert [c.sym for c in tv.corporations if c.acting] == [corp.sym]


def test_finished_game_shows_result(states: dict[str, Any]) -> None:
    g: Game = states["end"]
    tv = vm.table_view(g)
    assert tv.finished and tv.round == "Game over" and tv.acting == ""
    assert dict(tv.result) == {p.name: g.player_value(p) for p in g.players}
    assert [v for _, v in tv.result] == sorted((v for _, v in tv.result), reverse=True)


def test_market_view_tokens_zones_and_par(states: dict[str, Any]) -> None:
    g = states["run"].game
    mv = vm.market_view(g)
    assert len(mv.rows) == len(g.market.grid)
    for corp in g.corporations:
        if corp.ipoed and not corp.closed:
            cell = mv.cell_of(corp.sym)
            assert cell is not None and cell.price == corp.share_price.price
            engine_cell = g.market.grid[cell.row][cell.col]
            assert list(cell.tokens) == [c.sym for c in engine_cell.corporations]
    pars = {(c.row, c.col) for c in g.market.par_prices()}
    flagged = {(c.row, c.col) for row in mv.rows for c in row if c is not None and c.par}
    assert flagged == pars
    cells = [c for row in mv.rows for c in row if c is not None]
    assert any(c.color == vm.ZONE_COLORS["no_cert_limit"] for c in cells)
    assert all(c.color.startswith("#") for c in cells)
    assert ("#a5d6a7", "par price") in mv.legend


def test_operating_view_routes_and_dividend_preview(states: dict[str, Any]) -> None:
    step: Step = states["run"]
    g = step.game
    corp = g.current_entity()
    result = vm.suggest_routes(g, corp)
    assert result.optimal and len(result.routes) == len(corp.trains)
    played = sum(int(r["revenue"]) for r in step.action["routes"])
    assert result.total >= played  # the optimiser is at least as good as the humans
    dividends = vm.preview_dividends_after_run(g, corp, result.routes)
    ov = vm.operating_view(g, result, dividends=dividends)
    assert ov.active and ov.current == corp.sym and ov.treasury == corp.cash
    assert [o.sym for o in ov.order] == [c.sym for c in g.round.entities]
    assert [o.sym for o in ov.order if o.state == "current"] == [corp.sym]
    assert ov.trains == tuple(t.name for t in corp.trains)
    assert ov.tokens_left == corp.tokens_left()
    assert ov.routes.status == "done" and ov.routes.total == result.total
    assert sum(line.revenue for line in ov.routes.lines) == result.total
    assert f"${result.total}" in ov.routes.summary
    kinds = {d.kind: d for d in ov.dividends}
    assert {"payout", "withhold"} <= set(kinds)
    payout = kinds["payout"]
    per_share = result.total // corp.total_shares
    for name, amount in payout.receives:
        holder = next((p for p in g.players if p.name == name), None)
        if holder is not None:
            assert amount >= holder.num_shares_of(corp) * per_share
    assert payout.share_price is not None and payout.share_price[1] > payout.share_price[0]
    assert kinds["withhold"].receives == ((corp.sym, result.total),)
    assert g.current_entity() is corp and "run_routes" in g.legal_action_types()  # unchanged


def test_computing_routes_progress_flag(states: dict[str, Any]) -> None:
    g = states["run"].game
    ov = vm.operating_view(g, None, computing=True, progress=0.3)
    assert ov.routes.computing and "30%" in ov.routes.summary


def test_dividend_preview_matches_what_happens(states: dict[str, Any]) -> None:
    step: Step = states["dividend"]
    g = copy.deepcopy(step.game)
    corp = g.current_entity()
    options = {d.kind: d for d in vm.dividend_options(g, corp)}
    chosen = options[step.action["kind"]]
    before = {p.name: p.cash for p in g.players}
    price_before = corp.share_price.price
    g.apply(strip_action(step.action))
    for name, amount in chosen.receives:
        if name in before:
            assert next(p for p in g.players if p.name == name).cash - before[name] == amount
    if chosen.share_price is not None:
        assert chosen.share_price == (price_before, corp.share_price.price)


def test_log_view_merges_runs_and_dividends(states: dict[str, Any]) -> None:
    g: Game = states["end"]
    lv = vm.log_view(g)
    texts = [e.text for e in lv.entries]
    assert any(re.fullmatch(r"[A-Z]+ pays \$\d+ \(\$[\d.]+ per share\)", t) for t in texts)
    assert any(re.fullmatch(r"[A-Z]+ runs for \$\d+ and withholds it", t) for t in texts)
    assert not any(re.fullmatch(r"\w+ pays \$[\d.]+ per share", t) for t in texts)  # all merged
    assert any(e.kind == "heading" and e.text.startswith("-- Phase") for e in lv.entries)
    assert lv.actions == len(g.actions) and lv.can_undo
    assert len(vm.log_view(g, last=5).entries) == 5
    # corporations are named by symbol
    assert not any("Santa Fe" in t for t in texts)


def test_setup_view_from_title_data() -> None:
    sv = vm.setup_view()
    t = sv.title("1870")
    assert t.playable and (t.min_players, t.max_players) == (2, 7)
    assert "finish_on_400" in [r[0] for r in t.optional_rules]
    playable = [t.playable for t in sv.titles]
    assert playable == sorted(playable, reverse=True) and sv.title("1833NE").playable  # playable first
    assert sv.title("1861").playable and sv.title("1867").playable
    with pytest.raises(KeyError):
        sv.title("1830")


def test_stock_round_choices_are_legal(states: dict[str, Any]) -> None:
    g = states["stock"].game
    choices = vm.action_choices(g)
    groups = {c.group for c in choices}
    assert {"buy", "pass"} <= groups
    for choice in [c for c in choices if c.group in ("buy", "sell", "pass")] + [
        c for c in choices if c.group == "par"
    ][:3]:
        g.preview(choice.action)  # the engine accepts it (GameError otherwise)
        trial = copy.deepcopy(g)
        trial.apply(choice.action)
    played = strip_action(states["stock"].action)
    assert any(c.action == played for c in choices), played


def test_operating_choices_include_run_and_dividends(states: dict[str, Any]) -> None:
    g = copy.deepcopy(states["run"].game)
    corp = g.current_entity()
    result = vm.suggest_routes(g, corp)
    choices = vm.action_choices(g, routes=result)
    run = [c for c in choices if c.group == "run"]
    assert len(run) == 1 and f"${result.total}" in run[0].label
    g.apply(run[0].action)
    after = vm.action_choices(g)
    assert {c.action["kind"] for c in after if c.group == "dividend"} == {"payout", "half", "withhold"}


def test_auction_choices(states: dict[str, Any]) -> None:
    g = states["auction"].game
    choices = vm.action_choices(g)
    assert any(c.group == "bid" for c in choices) and any(c.group == "pass" for c in choices)
    for c in choices:
        g.preview(c.action)  # the engine accepts every button's action


def test_an_illegal_action_is_refused_and_changes_nothing(states: dict[str, Any]) -> None:
    g = states["stock"].game
    before = (g.bank.cash, [p.cash for p in g.players], len(g.log))
    other = next(p for p in g.players if p is not g.current_entity())
    with pytest.raises(GameError):
        g.preview({"type": "pass", "entity": other.id, "entity_type": "player"})
    with pytest.raises(GameError):
        g.preview({"type": "buy_shares", "entity": other.id, "entity_type": "player"})
    assert (g.bank.cash, [p.cash for p in g.players], len(g.log)) == before


def test_board_state_matches_map(states: dict[str, Any]) -> None:
    g = states["run"].game
    board = vm.board_state(g)
    laid = {h for h, s in g.map.state.items() if not s.preprinted}
    assert set(board.tiles) == laid
    corp = g.current_entity()
    assert any(corp.sym in slots for slots in board.tokens.values())


def test_new_game_views() -> None:
    g = new_game("1870", ["Ann", "Bob", "Cy", "Di"])
    tv = vm.table_view(g)
    assert tv.round == "Auction" and tv.acting == "Ann" and len(tv.players) == 4
    assert tv.corporations == ()
    ov = vm.operating_view(g)
    assert not ov.active and ov.current == ""
    assert vm.log_view(g).actions == 0


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_views_keep_money_and_certificates_consistent(data: st.DataObject) -> None:
    samples: list[Step] = _states()["samples"]
    step = data.draw(st.sampled_from(samples))
    g = step.game
    tv = vm.table_view(g)
    assert tv.bank_cash + sum(p.cash for p in tv.players) + sum(c.cash for c in g.corporations) == _total(g)
    assert _total(g) == _total(new_game("1870", [p.name for p in g.players]))
    assert sum(1 for p in tv.players if p.priority) == 1
    assert sum(1 for p in tv.players if p.acting) <= 1
    mv = vm.market_view(g)
    tokens = [t for row in mv.rows for c in row if c is not None for t in c.tokens]
    assert sorted(tokens) == sorted(c.sym for c in g.corporations if c.share_price and not c.closed)


def test_routes_run_for_drawing(states: dict[str, Any]) -> None:
    step: Step = states["run"]
    g = step.game.clone()
    g.apply(strip_action(step.action))
    drawn = vm.routes_run(g)
    assert [r.train for r in drawn] == [r["train"] for r in step.action["routes"]]
    assert sum(r.revenue for r in drawn) == sum(int(r["revenue"]) for r in step.action["routes"])
    for r, played in zip(drawn, step.action["routes"], strict=True):
        assert [f"{h}-{n}" for h, n in r.stops] == played["nodes"]
        assert [list(c) for c in r.connections] == played["connections"]
    assert vm.routes_run(step.game) == []  # before the run there is nothing to draw


def test_the_auction_lists_the_privates_for_sale_and_every_standing_bid(states: dict[str, Any]) -> None:
    export = demo_export()
    steps = replay_steps(export)
    for step in steps:
        if step.index == 6:  # six bids made: MRBC 45 and 50, SCC 55, SLSF 145, GSC 85 and 90
            break
    g = step.game
    rows = {r.sym: r for r in vm.table_view(g).auction}
    names = {p.id: p.name for p in g.players}
    assert set(rows) == {c.sym for c in g.companies if c.owner is None and g.auction_bids(c.sym) is not None}
    for sym, r in rows.items():
        low, high = g.auction_bids(sym) or (0, None)
        assert r.price == low and (r.bids[0][1] if r.bids else None) == high
    first = {a["company"]: names[a["entity"]] for a in export["actions"][:6] if a["type"] == "bid"}
    assert rows["MRBC"].bids[0] == (first["MRBC"], 50) and len(rows["MRBC"].bids) == 2
    assert rows["GRSC"].buy_now and rows["GRSC"].text == "GRSC $20 (income $5): buy for $20"


def test_the_spreadsheet_adds_up_and_game_over_names_the_winner(states: dict[str, Any]) -> None:
    g = states["stock"].game
    tv = vm.table_view(g)
    sheet = vm.spreadsheet(tv)
    for c in tv.corporations:
        corp = g.corporation(c.sym)
        held = sum(p.percent_of(corp) for p in g.players)
        assert held + c.ipo_percent + c.market_percent == 100
        for p in g.players:
            cell = sheet.cell(p.name, c.sym)
            assert cell == (
                "" if not p.percent_of(corp) else f"{p.percent_of(corp)}%" + (" P" if corp.owner is p else "")
            )
        assert sheet.cell("Treasury", c.sym) == vm.money(corp.cash)
    end = vm.table_view(states["end"])
    values = states["end"].result()
    best = max(values.values())
    assert end.winner == " and ".join(p.name for p in states["end"].players if values[p.id] == best)
    assert end.headline == f"{end.winner} wins"
    assert end.bank_broken and end.bank_text == "Bank broken"
    assert not any(p.over_limit for p in end.players)  # the limit no longer applies
    assert all(p.certs_text == str(p.cert_count) for p in end.players)
