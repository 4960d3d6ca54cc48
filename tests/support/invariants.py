"""The random and property tests' invariant checks: money conserved, ``Game.audit()`` empty
(certificates held once, limits), and each title's own bounds, checked after every action."""

from __future__ import annotations

from typing import Any

from companion.engine import Game
from companion.engine.entities import Player
from companion.titles.cobs import CobsGame
from companion.titles.tsr import load_data
from companion.titles.tsr.game import GameTSR
from tests.support.engine import total_money
from tests.support.tsr import money

DATA = load_data()
TRACK = DATA["stock_value_track"]
SHARES = {r["sym"]: r["shares"] for r in DATA["railroads"]}


def certificate_invariants(game: Game, money: int, action: dict[str, Any]) -> None:
    assert total_money(game) == money, "money appeared or vanished"
    problems = game.audit()
    assert not problems, f"{problems} after {action}"
    if action.get("type") == "buy_shares" and action.get("entity_type") == "player":
        buyer = game.entity_of(action)
        assert isinstance(buyer, Player)
        corp = game.share(action["shares"][0]).corporation
        sp = corp.share_price
        if sp is None or not (sp.is_("multiple_buy") or sp.is_("unlimited")):
            assert buyer.percent_of(corp) <= 60, f"{buyer.name} holds {buyer.percent_of(corp)}% of {corp.sym}"
        if sp is None or sp.counts_for_limit:
            assert game.num_certs(buyer) <= game.cert_limit(), f"{buyer.name} is over the certificate limit"
        assert len(action["shares"]) == len(set(action["shares"]))
        if "percent" in action:
            assert action["percent"] == sum(game.share(s).percent for s in action["shares"])


def tsr_invariants(game: GameTSR, total: int) -> None:
    assert money(game) == total, "money is conserved"
    problems = game.audit()  # certificates, who holds them, links and income
    assert not problems, problems
    ids = [c.id for r in game.railroads for c in r.certificates]
    assert len(ids) == sum(SHARES.values()), "every certificate exists"
    for r in game.railroads:
        assert len(r.certificates) == SHARES[r.sym]
        assert r.income == 0 or 2 <= r.income <= 70, "income only as the track allows"
        assert r.stock_value is None or r.stock_value in TRACK, "stock values only on the track"
    assert game.nationalisation_value in TRACK and game.nationalisation_value >= 24
    assert 0 <= game.timing < game.timing_length
    assert game.dividends_paid <= game.dividends_to_end, "never past the end of the dividends track"


def cobs_invariants(game: CobsGame) -> None:
    total = game.bank.cash + sum(p.cash for p in game.players) + sum(c.cash for c in game.companies)
    assert total == int(game.data["bank_cash"]), "money is conserved"
    problems = game.audit()  # certificates, limits, resources and bonus goods all in the game
    assert not problems, problems
    for co in game.companies:
        assert 0 <= co.step < len(game.share_values) and co.appeal <= 16
        for f in co.factories:
            assert f.automated <= int(f.spec["automation"])
        assert all(v >= 0 for v in co.resources.values()) and co.goods >= 0
    for p in game.players:
        for co in game.companies:
            kinds = {c.kind for c in p.certificates if c.company is co}
            assert not {"director", "preferred"} <= kinds
    assert 0 <= game.bonus_goods_left <= 10 and 0 <= game.labour_market <= 12
    assert all(v >= 0 for v in game.haymarket.values()) and all(v >= 0 for v in game.bag.values())
