"""The table's state at a glance, under Xvfb at 800×480, on the demo's real 1870 game: the auction's
open bids, net worth, each corporation's IPO and market shares, state and last run, the Shares
spreadsheet, and the game-over screen (the winner, a broken bank, no certificate "violations")."""

from __future__ import annotations

import pytest

from tests.support.ui import drive

STATES = """
def make_app():
    return CompanionApp(UISession(demo_service(6)), store=store, registry=registry)


def steps(app):
    yield "auction"
    app.replace_session(UISession(demo_service(420)))
    yield "table"
    app.show("shares")
    yield "shares"
    app.replace_session(UISession(demo_service()))
    yield "game-over"
"""


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory, display: str) -> dict[str, dict]:
    return drive(STATES, tmp_path_factory.mktemp("table-state"), display)


def test_the_auction_shows_what_is_for_sale_and_the_open_bids(shots: dict[str, dict]) -> None:
    texts = shots["auction"]["texts"]
    labelled = shots["auction"]["labelled"]
    assert "Private companies for sale" in texts
    # the demo game's first six actions: bids on MRBC (45, then 50), SCC 55, SLSF 145, GSC (85, 90)
    assert labelled["auction:MRBC"]["text"].endswith("bids Player 4 $50, Player 1 $45; next bid $55")
    assert labelled["auction:GSC"]["text"].endswith("bids Player 2 $90, Player 1 $85; next bid $95")
    assert labelled["auction:GRSC"]["text"] == "GRSC $20 (income $5): buy for $20"
    assert labelled["worth:Player 1"]["text"] == "$525"  # nothing bought yet: worth is the cash


def test_players_sit_in_a_stable_order_and_corporations_show_their_shares(shots: dict[str, dict]) -> None:
    labelled = shots["table"]["labelled"]
    rows = [labelled[f"player:Player {i}"]["box"][1] for i in range(1, 5)]
    assert rows == sorted(rows, reverse=True)  # seat order, top to bottom, whoever has the priority deal
    chips = {k: v["text"] for k, v in labelled.items() if k.startswith("corp:")}
    assert chips and all("IPO " in t and "% · market " in t for t in chips.values())
    assert any("· operated" in t and "ran $" in t for t in chips.values())


def test_the_spreadsheet_is_players_by_corporations(shots: dict[str, dict]) -> None:
    labelled = shots["shares"]["labelled"]
    cells = {k.split(":", 1)[1]: v["text"] for k, v in labelled.items() if k.startswith("sheet:")}
    corps = sorted({k.split(":")[1] for k in cells if k.startswith("IPO:")} - {"Cash", "Worth", "Certs"})
    assert corps, cells
    for sym in corps:
        held = [cells[f"Player {i}:{sym}"] for i in range(1, 5)]
        players = sum(int(h.split("%")[0]) for h in held if h)
        ipo = int(cells[f"IPO:{sym}"].rstrip("%") or 0)
        market = int(cells[f"Market:{sym}"].rstrip("%") or 0)
        assert players + ipo + market == 100, (sym, held, ipo, market)
        assert cells[f"State:{sym}"] in ("parred", "floated", "operated")
    assert all(cells[f"Player {i}:Worth"].startswith("$") for i in range(1, 5))


def test_game_over_names_the_winner_and_a_broken_bank(shots: dict[str, dict]) -> None:
    texts = shots["game-over"]["texts"]
    labelled = shots["game-over"]["labelled"]
    assert labelled["bank"]["text"] == "Bank broken"
    assert not any(t.startswith("Bank $-") for t in texts)
    assert labelled["acting"]["text"] == "Player 1 wins"
    assert labelled["winner"]["text"] == "Player 1 wins with $12,155"
    # at the end the certificate limit no longer applies: a count, not "30/16" in red
    assert labelled["certs:Player 1"]["text"] == "30"
