"""Trans-Siberian Railroad's drawn map on the touchscreen under Xvfb at 800×480 (issue 15, item 3):
the cities as named dots, the links in their builders' colours, the legal ones highlighted;
touching one city then another proposes the engine's build (jump payments in the toast before
confirming); a city with nothing legal from it says so."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.title_table import screen_shots
from tests.support.tsr import UI_OPENING

BODY = (
    UI_OPENING
    + """

def make_app():
    return CompanionApp(UISession(service), store=store, registry=registry)

def touch(app, place):
    assert app.touch_map(place), place

def save(name, value):
    (OUT / f"{name}.data.json").write_text(json.dumps(value))

def drawn(app):
    # what the Board screen's map draws now: the highlighted lines, the build on the toast
    net = app.screens["board"].netmap.network
    return {"lit": sorted(ln.id for ln in net.highlighted()), "proposed": list(net.proposed)}

def steps(app):
    app.refresh()
    yield "map"
    board = app.screens["board"]
    save("map", {"lit": sorted(ln.id for ln in vm.network_view(game).lit()),
                 "built": {ln.id: ln.color for ln in vm.network_view(game).lines if ln.color},
                 "drawn": drawn(app),
                 "screen": [*board.to_window(*board.pos), *board.size]})
    touch(app, "moscow")
    yield "first-end"
    touch(app, "nizhnynovgorod")
    yield "build-toast"
    seconds = sorted({la.action["links"][1] for la in game.legal_actions()
                      if la.type == "build_links" and la.action["links"][:1] == ["moscow-nizhnynovgorod"]
                      and len(la.action["links"]) == 2})
    save("build-toast", {"proposed": service.proposal.action,
                         "legal": [la.action for la in game.legal_actions()],
                         "drawn": drawn(app), "seconds": seconds,
                         "screen": [*board.to_window(*board.pos), *board.size]})
    touch(app, "kirov")  # a third city: on from Nizhny Novgorod, a two-link build
    yield "two-link-toast"
    app.cancel()
    yield ""  # the toast gone, the screen laid out again
    save("cancelled", {"drawn": drawn(app)})
    # a real finger through the window (and the Board screen's scrolling): Oryol's dot
    from kivy.tests.common import UnitTestTouch

    board = app.screens["board"]
    wx, wy = board.netmap.to_window(*board.netmap.where(board.netmap.network.place("oryol")))
    finger = UnitTestTouch(wx, wy)
    finger.touch_down()
    yield ""  # a quick tap: the scrolling Board screen hands a still finger on to the map
    finger.touch_up()
    yield "finger-oryol"
    assert board.selected == "oryol", board.selected
    touch(app, "bryansk")
    yield "jump-toast"
    app.confirm()
    yield "jumped"
    save("jumped", {"red": game.railroad("red").links, "blue_cash": game.railroad("blue").cash})
    touch(app, "omsk")  # Bob's turn: nothing can be built from Omsk
    yield "nothing"
    save("nothing", {"actions": len(game.actions), "proposal": service.proposal is not None})
"""
)


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory, display: str) -> dict[str, Any]:
    import json

    result = screen_shots(tmp_path_factory, display, BODY, "uitsrmap")
    result["data"] = {
        p.name.split(".")[0]: json.loads(p.read_text()) for p in result["out"].glob("*.data.json")
    }
    return result


def test_the_map_draws_every_city_named_and_readable_at_800x480(shots: dict[str, Any]) -> None:
    labelled = shots["map"]["labelled"]
    places = {k: v for k, v in labelled.items() if k.startswith("place:")}
    assert len(places) == 56  # every city named (the 13 border locations are unnamed stubs)
    assert places["place:moscow"]["text"] == "Moscow"
    assert all(v["box"][0] >= 0 and v["box"][0] + v["box"][2] <= 801 for v in places.values())
    assert all(v["box"][3] >= 11 for v in places.values())  # 10-point names, no smaller
    box = labelled["network-map"]["box"]
    assert box[2] <= 800 and box[3] >= 300  # the board's proportions over the screen's width
    assert (
        "touch a city, then the other end of a highlighted link to build it (Red)"
        in labelled["map-note"]["text"]
    )
    # the highlighted links are red's legal builds from its network; the built ones keep their colours
    data = shots["data"]["map"]
    assert "moscow-nizhnynovgorod" in data["lit"] and "bryansk-oryol" in data["lit"]
    assert "moscow-stpetersburg" not in data["lit"] and "omsk-novosibirsk" not in data["lit"]
    assert data["built"] == {
        "moscow-stpetersburg": "#c62828",
        "bryansk-moscow": "#1565c0",
        "moscow-yaroslavl": "#f9a825",
    }
    assert (shots["out"] / "map.png").stat().st_size > 10_000


def test_the_map_and_the_key_counters_are_in_sight_together_at_800x480(shots: dict[str, Any]) -> None:
    labelled = shots["map"]["labelled"]
    x, y, w, h = shots["data"]["map"]["screen"]  # the Board screen's part of the window
    assert w == 800 and 250 <= h < 480

    def in_sight(name: str) -> None:
        bx, by, bw, bh = labelled[name]["box"]
        assert x - 1 <= bx and bx + bw <= x + w + 1 and y - 1 <= by and by + bh <= y + h + 1, (
            name,
            labelled[name],
        )

    in_sight("network-map")  # the whole map, no scrolling
    assert labelled["network-map"]["box"][2] >= 500  # as wide as the screen's height allows
    for counter in ("Turn", "Timing", "Nationalisation value", "Dividends paid", "Phase"):
        in_sight(f"counter:{counter}")
        assert labelled[f"counter:{counter}"]["box"][3] >= 17 * 1.6 - 1  # 17-point figures
    assert labelled["counter:Turn"]["text"] == "Ann"
    assert labelled["counter:Timing"]["text"] == "0 of 5 · dividends in 5"
    assert labelled["counter:Nationalisation value"]["text"] == "$36"
    assert labelled["counter:Dividends paid"]["text"] == "0 of 10"
    in_sight("map-note")
    # the names cover each other rarely: of the 1,540 pairs of the 56 names at most 6 touch (the
    # crowded south-west; placing each name right of its dot, as before, left 33 touching at this size)
    named = {k: v["box"] for k, v in labelled.items() if k.startswith("place:")}
    boxes = list(named.values())

    def overlap(a: list[float], b: list[float]) -> bool:
        return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]

    pairs = sum(overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    assert pairs <= 6, [pairs] + [
        (a, b) for a in named for b in named if a < b and overlap(named[a], named[b])
    ]


def test_the_second_links_light_up_while_the_first_is_on_the_toast(shots: dict[str, Any]) -> None:
    before = shots["data"]["map"]["drawn"]
    assert before["proposed"] == [] and before["lit"] == shots["data"]["map"]["lit"]
    data = shots["data"]["build-toast"]
    assert data["drawn"]["proposed"] == ["moscow-nizhnynovgorod"]
    assert data["drawn"]["lit"] == data["seconds"] and "kirov-nizhnynovgorod" in data["seconds"]
    assert "moscow-kazan" not in data["drawn"]["lit"]  # a single build from Moscow is not a second link
    # the map stays the same size while the toast stands in for the buttons
    assert (
        shots["build-toast"]["labelled"]["network-map"]["box"][2:]
        == shots["map"]["labelled"]["network-map"]["box"][2:]
    )
    note = shots["build-toast"]["labelled"]["map-note"]["text"]
    assert (
        note.startswith("Moscow–Nizhny Novgorod is on the toast: confirm it, or touch the far end")
        and "Kirov" in note
    )
    # cancelled: the single builds are highlighted again
    assert shots["data"]["cancelled"]["drawn"] == before


def test_the_first_city_waits_for_the_other_end(shots: dict[str, Any]) -> None:
    note = shots["first-end"]["labelled"]["map-note"]["text"]
    assert note.startswith("Moscow: now touch the other end (") and "Nizhny Novgorod" in note
    assert shots["first-end"]["labelled"]["place:moscow"]["text"] == "Moscow"


def test_touching_two_cities_proposes_the_engines_build(shots: dict[str, Any]) -> None:
    data = shots["data"]["build-toast"]
    assert data["proposed"] in data["legal"] and data["proposed"]["links"] == ["moscow-nizhnynovgorod"]
    toast = shots["build-toast"]["labelled"]["toast"]["text"]
    assert toast == "Ann builds Moscow–Nizhny Novgorod for $4 (+$3 income) for Red"


def test_a_third_city_proposes_the_two_link_build(shots: dict[str, Any]) -> None:
    toast = shots["two-link-toast"]["labelled"]["toast"]["text"]
    assert toast.startswith("Ann builds Moscow–Nizhny Novgorod and Kirov–Nizhny Novgorod for $8")


def test_a_finger_on_the_window_touches_the_city(shots: dict[str, Any]) -> None:
    note = shots["finger-oryol"]["labelled"]["map-note"]["text"]
    assert note.startswith("Oryol: now touch the other end (") and "Bryansk" in note


def test_a_jump_shows_its_payment_before_confirming(shots: dict[str, Any]) -> None:
    texts = " ".join(shots["jump-toast"]["texts"])
    assert "Ann builds Bryansk–Oryol for $6 (+$2 income), jumping Bryansk–Moscow for Red" in texts
    assert "Blue" in texts and "$14" in texts  # the toast's money lines: blue's treasury $12 → $14
    jumped = shots["data"]["jumped"]
    assert "bryansk-oryol" in jumped["red"] and jumped["blue_cash"] == 14


def test_a_city_with_nothing_legal_says_so(shots: dict[str, Any]) -> None:
    toast = " ".join(shots["nothing"]["texts"])
    assert "Not possible: no link from Omsk can be built now" in toast
    assert shots["data"]["nothing"]["proposal"] is False
