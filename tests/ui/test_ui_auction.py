"""The auction on the Table screen at 800×480 (issue 42, item 7): the private companies for sale and
every player are in sight together (the fourth player was cut off), on the demo's real game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.ui import drive

BODY = """
def make_app():
    return CompanionApp(UISession(demo_service(1)), store=store, registry=registry)


def steps(app):
    app.show("table")
    yield "auction"
    area = [*app.sm.to_window(*app.sm.pos), *app.sm.size]
    (OUT / "area.json").write_text(json.dumps(area))
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, display: str) -> dict[str, Any]:
    import json

    out: Path = tmp_path_factory.mktemp("auction")
    shots = drive(BODY, out, display)
    return {"shots": shots, "area": json.loads((out / "area.json").read_text())}


def test_every_player_and_private_company_is_in_sight_during_the_auction(run: dict[str, Any]) -> None:
    labelled = run["shots"]["auction"]["labelled"]
    ax, ay, aw, ah = run["area"]
    rows = {k: v["box"] for k, v in labelled.items() if k.startswith(("player:", "auction:"))}
    assert len([k for k in rows if k.startswith("player:")]) == 4
    assert len([k for k in rows if k.startswith("auction:")]) == 6
    for name, (x, y, w, h) in rows.items():
        assert ax <= x and x + w <= ax + aw + 1 and ay <= y and y + h <= ay + ah + 1, (name, (x, y, w, h))
