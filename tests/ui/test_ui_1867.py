"""1867 and 1861 on the touchscreen under Xvfb at 800×480: minors, majors and the national on the
Table screen, loans and their interest, money in roubles for 1861, the merger round's choices."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import TESTS
from tests.support.ui import Started, drive, headless_demo, selected, start_headless_demo

ROOT = TESTS / "fixtures" / "18xx.games"

BODY = """
from companion.interop.replay import load_export
from companion.table.exchange import import_export

def at(title, name, action_id):
    export = load_export(Path(ROOT) / title / f"{name}.json")
    cut = next(i for i, a in enumerate(export["actions"]) if a["id"] == action_id)
    game_id, _ = import_export(store, {**export, "actions": export["actions"][:cut]})
    return TableService.open(store, game_id, registry)

services = [
    at("1867", "hs_wuveadew_21268", 95),
    at("1867", "hs_wuveadew_21268", 467),
    at("1861", "29683", 545),
]

def make_app():
    return CompanionApp(UISession(services[0]), store=store, registry=registry)

def steps(app):
    app.show("table")
    yield "loans-1867"
    for service, name in zip(services[1:], ("merger-1867", "roubles-1861")):
        app.replace_session(UISession(service, app.post))
        app.refresh()
        yield name
"""


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory, display: str) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("ui1867")
    result = drive(f"ROOT = {str(ROOT)!r}\n" + BODY, out, display)
    result["out"] = out
    return result


def test_minors_majors_the_national_and_loans(shots: dict[str, Any]) -> None:
    labelled = shots["loans-1867"]["labelled"]
    cs = labelled["corp:CS"]["text"]
    assert "minor" in cs and "1 loan · interest $5/OR" in cs
    assert "national" in labelled["corp:CN"]["text"] and "run by the bank" in labelled["corp:CN"]["text"]
    assert any("loans left" in t for t in shots["loans-1867"]["texts"])
    assert (shots["out"] / "loans-1867.png").stat().st_size > 10_000


def test_the_merger_round_offers_its_choices(shots: dict[str, Any]) -> None:
    texts = "\n".join(shots["merger-1867"]["texts"])
    assert "Merge or convert…" in texts or "Convert BBG into a major company" in texts, texts


def test_1861_money_is_in_roubles(shots: dict[str, Any]) -> None:
    texts = shots["roubles-1861"]["texts"]
    body = "\n".join(texts)
    assert "₽" in body and "$" not in body, body


@pytest.fixture(scope="module", autouse=True)
def demos(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, tuple[Path, Started]]]:
    """``companion demo`` of 1867 and of 1861, both started with the module's first test (each has
    its own Xvfb) and waited for by their own tests: they run together, and while the others
    drive their app."""
    out = {}
    wanted = selected(request, "test_companion_demo_plays_1867_and_1861")
    for title in ("1867", "1861") if wanted else ():
        folder = tmp_path_factory.mktemp(f"demo-{title}") / "demo"
        out[title] = (folder, start_headless_demo(title, folder))
    yield out
    for _folder, started in out.values():
        started.stop()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("title", "bid", "merger"),
    [
        ("1867", "Player 3 bids $100 for CA", "BBG converts into a major company"),
        ("1861", "Player 1 bids 100₽ for N", "MB merges with N"),
    ],
)
def test_companion_demo_plays_1867_and_1861(
    demos: dict[str, tuple[Path, Started]], title: str, bid: str, merger: str
) -> None:
    folder, started = demos[title]
    demo = headless_demo(title, folder, started)
    assert demo.shots == [
        "01-table-auction.png",
        "02-minor-auction.png",
        "03-operating-round.png",
        "04-merger-round.png",
        "05-merger-choice.png",
        "06-shares.png",
        "07-table-game-over.png",
    ]
    transcript, records = demo.transcript, demo.records
    assert f"confirmed: {bid}" in transcript and f"confirmed: {merger}" in transcript
    assert "final: " in transcript
    assert merger in records["05-merger-choice.png"]["texts"]
    if title == "1861":
        screens = "\n".join(t for r in records.values() for t in r["texts"])
        assert "₽" in screens and "$" not in screens
