"""Trans-Siberian Railroad's drawn map as fingers meet it (issue 42, item 8), under Xvfb at 800×480:
the map does not move after the first touch (the second touch lands where the player aims), a
finger on a city's name means that city, and the two-link build's toast headline is not cut off."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.title_table import screen_shots
from tests.support.tsr import UI_OPENING

BODY = (
    UI_OPENING
    + """
from kivy.tests.common import UnitTestTouch
from kivy.core.text import Label as CoreLabel

seen = {}


def make_app():
    return CompanionApp(UISession(service), store=store, registry=registry)


def dot(app, place):
    netmap = app.screens["board"].netmap
    return list(netmap.to_window(*netmap.where(netmap.network.place(place))))


def finger(x, y):
    t = UnitTestTouch(x, y)
    t.touch_down()
    t.touch_up()


def steps(app):
    app.refresh()
    yield ""
    netmap = app.screens["board"].netmap
    seen["before"] = [dot(app, "moscow"), dot(app, "nizhnynovgorod")]
    finger(*dot(app, "moscow"))
    yield "first-touch"
    seen["selected"] = app.screens["board"].selected
    seen["after"] = [dot(app, "moscow"), dot(app, "nizhnynovgorod")]
    # a finger on each city's name (where no other city's dot is right under it)
    misses = []
    dots = {p.id: dot(app, p.id) for p in netmap.network.places}
    covered = 0
    for pid, label in netmap.labels.items():
        x, y = label.to_window(*label.center)
        if any((dx - x) ** 2 + (dy - y) ** 2 <= 36 for other, (dx, dy) in dots.items() if other != pid):
            covered += 1  # another city's dot is right under this name: the dot wins
            continue
        if netmap.place_at(x, y) != pid:
            misses.append(pid)
    seen["covered"] = covered
    seen["name-misses"] = misses
    seen["names"] = len(netmap.labels)
    finger(*dot(app, "nizhnynovgorod"))
    yield "build-toast"
    app.touch_map("kirov")
    yield "two-link-toast"
    head = next(w for w in app.toast.walk() if getattr(w, "id_name", "") == "toast")
    extent = CoreLabel(font_size=head.font_size, bold=True).get_extents(head.text)[0]
    seen["headline"] = {"text": head.text, "width": head.width, "extent": extent,
                        "lines": head.texture_size[1] / (head.font_size * 1.1), "height": head.height,
                        "texture": list(head.texture_size)}
    save("seen", seen)


def save(name, value):
    (OUT / f"{name}.data.json").write_text(json.dumps(value))
"""
)


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory, display: str) -> dict[str, Any]:
    result = screen_shots(tmp_path_factory, display, BODY, "uitsrtouch")
    return dict(json.loads((result["out"] / "seen.data.json").read_text()))


def test_the_map_stays_put_after_the_first_touch(seen: dict[str, Any]) -> None:
    assert seen["selected"] == "moscow"
    for (x0, y0), (x1, y1) in zip(seen["before"], seen["after"], strict=True):
        assert abs(x1 - x0) < 1 and abs(y1 - y0) < 1, (seen["before"], seen["after"])


def test_a_finger_on_a_citys_name_means_that_city(seen: dict[str, Any]) -> None:
    assert seen["names"] == 56 and seen["covered"] <= 2 and seen["name-misses"] == []


def test_the_two_link_toast_headline_is_whole(seen: dict[str, Any]) -> None:
    head = seen["headline"]
    assert "Kirov" in head["text"]
    assert head["extent"] <= head["width"] or head["lines"] >= 1.8, head  # on one line, or wrapped
    assert head["texture"][1] <= head["height"] + 1, head  # and every line shown
