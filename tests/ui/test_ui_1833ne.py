"""1833NE on the touchscreen under Xvfb at 800×480: the operating corporation's finances (its
treasury shares, the issue and redemption prices, what a full and a half payout give each holder,
its trains, the ferries, the connection bonuses of the phase), a double-sided train card's tap
asking which side, a ferry marker's tap, and the Takeover game's offers on the Table screen."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.interop.replay import export_game
from tests.support.g1833ne import EXAMPLE, index_of
from tests.support.ui import drive

BODY = """
from companion.interop.replay import load_export
from companion.table.exchange import import_export
from companion.table.script import demo_uid, enroll_demo_tags
from companion.table.tags import find_item

enroll_demo_tags(registry, "1833NE", ["takeover_game"])

def at(export, count):
    game_id, _ = import_export(store, {**export, "actions": export["actions"][:count]})
    return TableService.open(store, game_id, registry)

example = load_export(EXAMPLE)
services = [at(example, n) for n in COUNTS]

def make_app():
    return CompanionApp(UISession(services[0]), store=store, registry=registry)

def settled(app):
    # the route search and the map drawn, then one more frame for the tables to lay out
    for _ in range(200):
        if not app.busy:
            break
        yield ""
    yield ""

def steps(app):
    app.show("operating")
    yield from settled(app)
    yield "issue"
    for service, name in zip(services[1:], ("redeem", "ferry", "payout", "side")):
        app.replace_session(UISession(service, app.post))
        app.show("operating")
        yield from settled(app)
        yield name
    app.tap(demo_uid(find_item("1833NE", "3/5-0")))
    yield "side-toast"
    app.replace_session(UISession(services[2], app.post))
    app.show("operating")
    yield from settled(app)
    app.tap(demo_uid(find_item("1833NE", "ferry-2")))
    yield "ferry-toast"
"""


def _cut(kind: str, entity: Any, nth: int = 0) -> int:
    """The example export's action count before the ``nth`` ``kind`` of ``entity`` (its raw list
    holds no undos, so effective and raw indexes agree)."""
    return index_of(kind, entity, nth)


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory, display: str) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("ui1833ne")
    raw = json.loads(EXAMPLE.read_text())
    assert not any(a["type"] in ("undo", "redo") for a in raw["actions"])
    counts = [
        _cut("sell_shares", "BW"),
        _cut("buy_shares", "HR"),
        _cut("buy_ferry", "HR"),
        _cut("dividend", "HR"),
        _cut("buy_train", "BW", 2),
    ]
    result = drive(f"EXAMPLE = {str(EXAMPLE)!r}\nCOUNTS = {counts!r}\n" + BODY, out, display)
    result["out"] = out
    return result


def _texts(shot: dict[str, Any]) -> str:
    return "\n".join(shot["texts"])


def _cells(shot: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in shot["labelled"].items() if k.startswith("cell:operating:")}


def test_issuing_shows_the_treasury_shares_and_the_price_a_column_below(shots: dict[str, Any]) -> None:
    texts = _texts(shots["issue"])
    assert "BW's shares" in texts
    assert "Issue (a column below)" in texts and "$70 each" in texts and "now: up to 4" in texts
    assert "$90 each" in texts
    assert "Connection bonuses in phase I" in texts and "Montreal (B3) – Boston (G22)" in texts
    assert "Sell… (4)" in texts or "BW issues 1 share for $70" in texts  # the buttons, priced


def test_redeeming_shows_the_price_a_column_above(shots: dict[str, Any]) -> None:
    texts = _texts(shots["redeem"])
    assert "Redeem (a column above)" in texts and "$20 each" in texts and "now: up to 4" in texts
    assert "not at this share price" in texts  # at $10 nothing can be issued


def test_the_ferry_panel_says_where_one_may_be_bought_and_a_tap_proposes_it(shots: dict[str, Any]) -> None:
    assert "HR may buy one now ($40): New Haven (C26); tap a ferry marker" in _texts(shots["ferry"])
    assert shots["ferry-toast"]["labelled"]["toast"]["text"] == "HR buys the ferry in New Haven (C26) for $40"


def test_a_half_payout_shows_what_each_holder_gets(shots: dict[str, Any]) -> None:
    shot = shots["payout"]
    texts = _texts(shot)
    assert "HR ran for $80: what each holder gets" in texts
    rows = {}
    cells = _cells(shot)
    for name, cell in cells.items():
        _, _, n, r, c = name.split(":")
        rows.setdefault((n, r), {})[int(c)] = cell["text"]
    table = {row[0]: (row[1], row[2], row[3]) for row in rows.values() if len(row) == 4}
    assert table["H1, 2 shares"] == ("$16", "$8", "$0")
    assert table["HR (treasury), 8 shares"] == ("$64", "$32", "$0")
    assert table["HR keeps"] == ("$0", "$40", "$80")
    assert "New Haven (C26)" in texts and "New" in texts  # the ferry it owns, with the "New" marker


def test_the_tap_of_a_double_sided_card_asks_which_side(shots: dict[str, Any]) -> None:
    assert "3/5 $180 or 2+2 $140" in _texts(shots["side"])  # the next card, both its sides
    toast = shots["side-toast"]
    assert toast["labelled"]["toast"]["text"] == "BW buys a 3/5-train from the bank for $180"
    texts = toast["texts"]
    assert "3/5 $180" in texts and "2+2 $140" in texts


def test_the_panels_are_readable_at_800x480(shots: dict[str, Any]) -> None:
    out: Path = shots["out"]
    for name in ("issue", "redeem", "ferry", "payout", "side", "side-toast", "ferry-toast"):
        assert (out / f"{name}.png").stat().st_size > 10_000
        cells = _cells(shots[name])
        assert cells, name
        rows: dict[tuple[str, str], list[tuple[int, list[float]]]] = {}
        for cell_name, cell in cells.items():
            x, _y, w, h = cell["box"]
            assert x >= 0 and x + w <= 800 + 1, (name, cell_name, cell["box"])  # inside the window
            assert w >= 30 and h >= 13 * 1.6 - 1, (name, cell_name, cell["box"])  # room for its text
            _, _, n, r, c = cell_name.split(":")
            rows.setdefault((n, r), []).append((int(c), cell["box"]))
        for row in rows.values():  # laid out side by side, left to right, on one line
            boxes = [box for _c, box in sorted(row)]
            assert all(a[0] + a[2] <= b[0] + 1 for a, b in zip(boxes, boxes[1:], strict=False)), (name, boxes)
            assert len({round(box[1]) for box in boxes}) == 1, boxes


TAKEOVER = """
from companion.table.exchange import import_export

game_id, _ = import_export(store, json.loads(Path(EXPORT).read_text()))
service = TableService.open(store, game_id, registry)

def make_app():
    return CompanionApp(UISession(service), store=store, registry=registry)

def steps(app):
    app.show("table")
    yield "takeover"
"""


@pytest.mark.slow
def test_the_takeover_offers_are_listed_with_their_terms(tmp_path: Path, display: str) -> None:
    from companion.titles.g1833ne import takeover as tk
    from tests.support.g1833ne import buyer_of, first_takeover_offer

    game = first_takeover_offer()
    buyer = buyer_of(game)
    export = tmp_path / "takeover.json"
    export.write_text(json.dumps(export_game(game)))
    shot = drive(f"EXPORT = {str(export)!r}\n" + TAKEOVER, tmp_path / "ui", display)["takeover"]
    texts = _texts(shot)
    assert f"Takeover offers: {buyer.sym}" in texts
    for target, payment, deal in tk.offers(game, buyer):
        assert f"${deal.total_cash:,}" in texts
        assert f"Take over {target.sym} {'in its shares' if payment == 'shares' else 'in cash'}" in texts or (
            "Takeover…" in texts
        )
    for name, cell in shot["labelled"].items():
        if name.startswith("cell:table:"):
            x, _y, w, _h = cell["box"]
            assert x >= 0 and x + w <= 801, (name, cell["box"])
