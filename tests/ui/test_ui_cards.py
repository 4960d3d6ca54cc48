"""A table without a reader under Xvfb at 800×480 (issue 42 item 11): Setup's "Tap a card…" lists the
game's cards by name, a card touched is a tap on the simulated reader through the device runtime
(proposed, confirmed, money moved); enrolment names the cards of the open game's title; an
unknown tag's toast offers "Enroll this card" on the spot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.ui import companion_run, drive

pytestmark = pytest.mark.slow

COMMON = """
from companion.devices import DeviceRuntime
from companion.hardware.reader import SimulatedReader

RESULT = {}


def visible(app, text):
    return [w for w in app.root_layout.walk() if getattr(w, "text", None) == text]


def press(app, text):
    found = visible(app, text)
    assert found, f"no button {text!r} on the screen: {sorted(set(app.texts()))[:60]}"
    found[0].dispatch("on_press")


def card(app, name):
    found = [w for w in app.root_layout.walk() if getattr(w, "card", None) == name]
    assert found, f"no card {name!r}"
    found[0].dispatch("on_press")


def group(app, name):
    found = [w for w in app.root_layout.walk() if getattr(w, "card_group", None) == name]
    assert found, f"no group {name!r}"
    found[0].dispatch("on_press")


def wait(cond):
    for _ in range(60):
        if cond():
            return
        yield ""
    raise AssertionError("the app did not answer")
"""

TAP = (
    COMMON
    + """
def make_app():
    service = TableService.new(store, registry, "1870", ["Ann", "Bob", "Cy", "Di"])
    devices = DeviceRuntime(registry, reader=SimulatedReader(follow=True))
    return CompanionApp(UISession(service), store=store, registry=registry, devices=devices)


def steps(app):
    game = app.session.game
    app.show("setup")
    yield "setup"
    press(app, "Tap a card…")
    yield "cards"
    group(app, "Companies")
    yield "companies"
    cash = game.players[0].cash
    card(app, "GRSC private company (Great River Shipping Company, $20)")
    yield from wait(lambda: app.toast is not None)
    yield "tap-toast"
    press(app, "Confirm")
    yield from wait(lambda: len(game.actions) == 1)
    RESULT["paid"] = cash - game.players[0].cash
    RESULT["owner"] = game.company("GRSC").owner.name
    # a blank tag on the reader: its toast offers to enroll it, here and now
    press(app, "A new tag")
    yield from wait(lambda: app.toast is not None)
    yield "unknown-toast"
    uid = app.devices.unknown_uid
    press(app, "Enroll this card")
    yield "name-tag"
    group(app, "SLSF")
    yield ""
    card(app, "SLSF president's certificate (20 %)")
    yield "named"
    RESULT["named"] = registry.lookup(uid).id
    # enrolment mode: a card, then the next tap (a new tag on the simulated reader)
    press(app, "Enroll")
    yield ""
    card(app, "SLSF share certificate 1 of 8 (10 %)")
    yield "enrolling"
    press(app, "A new tag")
    yield from wait(lambda: app.devices.enrolling is None and "enrolled tag" in app.events()[-1])
    yield "enrolled"
    RESULT["enrolled"] = [e.item.id for e in registry.enrolled("1870") if e.uid != uid and e.item.id != "GRSC"]
    RESULT["events"] = app.events()
    (OUT / "result.json").write_text(json.dumps(RESULT))
"""
)


def _texts(record: dict[str, object]) -> str:
    texts = record["texts"]
    assert isinstance(texts, list)
    return "\n".join(str(t) for t in texts)


def test_a_card_touched_on_the_tap_panel_is_a_tap_through_the_runtime(tmp_path: Path, display: str) -> None:
    shots = drive(TAP, tmp_path, display)
    result = json.loads((tmp_path / "result.json").read_text())
    setup = _texts(shots["setup"])
    assert "Tag enrollment" in setup and "Tap a card…" in setup and "Enroll tags…" in setup
    cards = _texts(shots["cards"])
    assert "Tap a card: 1870 (simulated reader)" in cards
    assert "ATSF" in cards and "Companies" in cards and "Trains" in cards and "Player cards" in cards
    assert "president's certificate (20 %)" in cards and "ATSF_0" not in cards
    companies = _texts(shots["companies"])
    assert "GRSC private company (Great River Shipping Company, $20)" in companies
    toast = _texts(shots["tap-toast"])
    assert "Ann buys GRSC (Great River Shipping Company) for $20" in toast and "Confirm" in toast
    assert result["paid"] == 20 and result["owner"] == "Ann"
    unknown = _texts(shots["unknown-toast"])
    assert "Enroll this card" in unknown and "no card carries it yet" in unknown
    assert "companion tags enroll" not in unknown  # not a shell command at the table
    assert "Which card carries tag 04" in _texts(shots["name-tag"])
    assert result["named"] == "SLSF_0"
    assert "Enrolled tag 04" in _texts(shots["named"])
    enrolling = _texts(shots["enrolling"])
    assert "Tap the tag of SLSF share certificate 1 of 8 (10 %) on the reader" in enrolling
    assert result["enrolled"] == ["SLSF_1"]
    assert any(e.startswith("[tap] 04") and "(GRSC private company" in e for e in result["events"])


TSR = (
    COMMON
    + """
def make_app():
    return CompanionApp(None, store=store, registry=registry)


def steps(app):
    yield "new-game"
    app.start_new_game("TSR", ["Ann", "Bob", "Cy"], [])
    yield ""
    app.show("setup")
    yield ""
    press(app, "Enroll tags…")
    yield "enroll-tsr"
    card(app, "Red share certificate 1 of 5")
    yield "waiting"
"""
)


def test_enrolment_lists_the_open_games_cards_by_name(tmp_path: Path, display: str) -> None:
    """A TSR game started after the app opened on 1870's New game screen: its cards, in words."""
    shots = drive(TSR, tmp_path, display)
    texts = _texts(shots["enroll-tsr"])
    assert "Enroll tags: TSR" in texts and "Red 0/5" in texts and "share certificate 1 of 5" in texts
    assert "ATSF" not in texts and "red_1" not in texts
    assert "Tap the tag of Red share certificate 1 of 5 on the reader" in _texts(shots["waiting"])
    assert "A new tag" not in texts  # no simulated reader given to this app: no blank tags either


def test_companion_run_offers_the_tap_panel_with_the_simulated_reader_only(
    tmp_path: Path, display: str
) -> None:
    """``companion run`` hands its configured reader to the device runtime: the simulated one (the
    default) can be tapped from Setup, a reader board cannot."""
    for mode, offered in (("simulated", True), ("serial", False)):
        folder = tmp_path / mode
        folder.mkdir()
        (folder / "c.toml").write_text(
            f'[game]\ntitle = "1870"\ndatabase = "db.sqlite3"\n[reader]\nmode = "{mode}"\n'
            'port = "/dev/null-reader"\n'
        )
        proc = companion_run(
            ["--config", "c.toml", "--exit-after", "2", "--screenshot", "s.png"], display, folder
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        texts = (folder / "s.txt").read_text().split("what happened:")[0].splitlines()
        assert "Enroll tags…" in texts
        assert ("Tap a card…" in texts) is offered
