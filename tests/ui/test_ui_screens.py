"""``companion demo`` and every screen under Xvfb at 800×480 and 1280×720 (``--headless``).

The demo drives the real app (taps on the simulated reader, touch proposals, route search,
camera check) and saves a screenshot plus the label texts of every screen.  These tests
check the screenshots are real pictures of the window and that the labels show what the
engine says, recomputed here from the same game independently of the app.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.engine import new_game
from companion.interop.actions import export_players
from companion.interop.replay import export_rules, export_seed, table_record
from companion.ui import viewmodels as vm
from companion.ui.scenario import demo_export

pytestmark = pytest.mark.slow
SIZES = ["800x480", "1280x720"]


def start_demo(out: Path, size: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    return subprocess.Popen(
        [sys.executable, "-m", "companion", "demo", "--headless", "--size", size, "--out", str(out)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[subprocess.Popen[str], Path]]:
    """Both sizes' demos, started together (each has its own Xvfb) to halve the wall time."""
    out: dict[str, tuple[subprocess.Popen[str], Path]] = {}
    for size in SIZES:
        folder = tmp_path_factory.mktemp(f"demo-{size}")
        out[size] = (start_demo(folder, size), folder)
    return out


@pytest.fixture(scope="module", params=SIZES)
def demo(
    request: pytest.FixtureRequest, runs: dict[str, tuple[subprocess.Popen[str], Path]]
) -> dict[str, Any]:
    size = str(request.param)
    proc, out = runs[size]
    try:
        stdout, stderr = proc.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    assert proc.returncode == 0, stderr[-3000:]
    records = json.loads((out / "screens.json").read_text())
    w, h = (int(x) for x in size.split("x"))
    return {"out": out, "records": records, "size": (w, h), "stdout": stdout}


def test_demo_leaves_screenshots_and_transcript(demo: dict[str, Any]) -> None:
    """``companion demo`` end to end (what ``make demo`` runs headless)."""
    out = demo["out"]
    shots = sorted(p.name for p in out.glob("*.png"))
    assert len(shots) == 23 and shots[0] == "01-setup.png" and shots[-4] == "20-table-game-over.png"
    assert shots[-3] == "21-history.png"
    text = (out / "transcript.txt").read_text()
    for scene in range(1, 8):
        assert f"Scene {scene}:" in text
    assert "[tap] 04A1" in text and "proposed: Player 2 buys 10% MKT from the IPO for $68" in text
    assert "confirmed: Player 3 buys 10% MKT from the IPO for $68" in text
    assert "5 taps, 5 touch buttons" in text  # par and pass were pressed on screen (Par… list, Pass)
    assert "confirmed: Player 2 pars MKT at $68" in text and "no button offers it" not in text
    assert "[routes] " in text and "Suggested routes (best): $" in text
    # a private company by touch: the toast's + raised the price to what the players agreed
    assert "touch: Buy SCC from Player 2 $50 ($25–$100)" in text and "+ pressed up to the agreed $100" in text
    assert "confirmed: MKT buys SCC (The Southern Cattle Company) from Player 2 for $100" in text
    assert "confirmed: SCC places its token on B11" in text
    # a tile by touch: Lay tile…, the hex, then the tile drawn at its rotation
    assert "a finger on the map at C16: 5 tiles and rotations listed" in text  # the map's own picker
    assert "Lay tile… then C16: 5 tiles and rotations to pick from" in text
    assert "confirmed: MP lays tile 9 on C16 (rotation 1)" in text and "the picker proposes" not in text
    assert "[camera] J15: missing tile" in text and "[camera] E6: unexpected tile" in text
    # the camera path for tile lays: the tile seen on the table is proposed and confirmed
    assert "proposed: MKT lays tile 9 on E6 (rotation 0)" in text
    assert "confirmed: MKT lays tile 9 on E6 (rotation 0)" in text
    assert "final: Player 1 $12,155, Player 2 $10,169, Player 3 $6,917, Player 4 $6,769" in text
    assert "demo failed" not in text
    # Setup's "Start the new game" made a second game in the store, through the table service
    assert "new game: Ann, Bob, Cy, Di; Auction; Ann to act" in text and "games in the store: 2" in text
    assert "undo back to before action" in text and "asked for and cancelled" in text
    assert "typed on the on-screen keyboard: 'Ann'" in text
    assert "the game's story: 26 rounds drawn" in text
    assert f"23 screenshots and transcript.txt in {out}" in demo["stdout"]


def record(demo: dict[str, Any], file_part: str) -> dict[str, Any]:
    for r in demo["records"]:
        if file_part in r["file"]:
            return r
    raise AssertionError(f"no screenshot {file_part}: {[r['file'] for r in demo['records']]}")


def game_at(rec: dict[str, Any]) -> Any:
    """The game as the demo had it when the screenshot was taken: its first moves as a table records
    the packaged game (the engine takes the automatic steps itself), as the demo plays them."""
    export = demo_export()
    moves, _ = table_record(export)
    players, rules, seed = export_players(export["players"]), export_rules(export), export_seed(export)
    game = new_game(str(export["title"]), players, rules, seed)  # the table's engine: its own steps
    for move in moves[: rec["actions"]]:
        game.apply(move)
    return game


def inside(demo: dict[str, Any], box: list[float]) -> bool:
    w, h = demo["size"]
    x, y, bw, bh = box
    return x >= -1 and y >= -1 and x + bw <= w + 1 and y + bh <= h + 1 and bw > 0 and bh > 0


def test_every_screen_has_a_real_screenshot(demo: dict[str, Any]) -> None:
    screens = {r["screen"] for r in demo["records"]}
    assert screens == {"table", "shares", "market", "operating", "map", "log", "history", "camera", "setup"}
    for r in demo["records"]:
        assert r["window"] == list(demo["size"])
        img = cv2.imread(str(demo["out"] / r["file"]))
        assert img is not None, r["file"]
        assert (img.shape[1], img.shape[0]) == demo["size"], r["file"]
        assert float(img.std()) > 25, r["file"]
        colors = np.unique(img.reshape(-1, 3)[::7], axis=0)
        assert len(colors) > 40, r["file"]


def test_table_shows_bank_acting_and_players(demo: dict[str, Any]) -> None:
    rec = record(demo, "-table.png")
    tv = vm.table_view(game_at(rec))
    labels = rec["labelled"]
    assert labels["bank"]["text"] == f"Bank {vm.money(tv.bank_cash)}"
    assert labels["acting"]["text"] == f"{tv.acting} to act"
    assert inside(demo, labels["bank"]["box"]) and inside(demo, labels["acting"]["box"])
    for p in tv.players:
        assert labels[f"cash:{p.name}"]["text"] == vm.money(p.cash)
        assert inside(demo, labels[f"player:{p.name}"]["box"])
    for p in tv.players:
        for cert in p.certificates:
            assert any(cert in t for t in rec["texts"]), cert


def test_tap_shows_a_confirm_toast(demo: dict[str, Any]) -> None:
    rec = record(demo, "tap-toast")
    toast = rec["labelled"]["toast"]["text"]
    assert re.fullmatch(r"Player \d buys 10% [A-Z]+ from the IPO for \$\d+", toast), toast
    assert "Confirm" in rec["texts"] and "Cancel" in rec["texts"]
    assert inside(demo, rec["labelled"]["toast"]["box"])


def test_operating_shows_order_routes_and_preview(demo: dict[str, Any]) -> None:
    rec = record(demo, "operating-routes")
    game = game_at(rec)
    corp = game.current_entity()
    result = vm.suggest_routes(game, corp)
    labels = rec["labelled"]
    for sym in [c.sym for c in game.round.entities]:
        assert f"order:{sym}" in labels and inside(demo, labels[f"order:{sym}"]["box"])
    assert labels["routes"]["text"] == f"Suggested routes (best): {vm.money(result.total)}"
    for r in result.routes:
        assert any(
            t.endswith(f" {vm.money(r.revenue)}") and t.startswith(r.train.split("-")[0])
            for t in rec["texts"]
        )
    assert any(t.startswith("Pay out ") and "share price" in t for t in rec["texts"])
    assert any(t.startswith("Withhold ") for t in rec["texts"])
    assert f"Run suggested routes {vm.money(result.total)}" in rec["texts"]
    assert labels["acting"]["text"] == f"{corp.sym} to act"


def test_dividend_toast_previews_money(demo: dict[str, Any]) -> None:
    rec = record(demo, "dividend-toast")
    toast = rec["labelled"]["toast"]["text"]
    assert re.fullmatch(r"[A-Z]+ (pays out|withholds|pays half)", toast), toast
    assert any("share price" in t and "->" in t for t in rec["texts"])


def test_market_shows_every_corporation_token(demo: dict[str, Any]) -> None:
    rec = record(demo, "-market.png")
    game = game_at(rec)
    for corp in game.corporations:
        if corp.ipoed and not corp.closed:
            assert f"token:{corp.sym}" in rec["labelled"], corp.sym
            assert inside(demo, rec["labelled"][f"token:{corp.sym}"]["box"])
    assert "par price" in rec["texts"]


def test_log_in_words_and_undo_confirmation(demo: dict[str, Any]) -> None:
    rec = record(demo, "-log.png")
    assert any(re.fullmatch(r"[A-Z]+ pays \$\d+ \(\$[\d.]+ per share\)", t) for t in rec["texts"])
    undo = record(demo, "log-undo-confirm")
    assert undo["labelled"]["toast"]["text"].startswith("Undo")
    back = record(demo, "log-undo-to")
    assert back["labelled"]["toast"]["text"].startswith("Undo 3 actions back to before: ")
    assert any(t.endswith("tap an entry to undo back to before it") for t in rec["texts"])


def test_shares_and_the_full_map(demo: dict[str, Any]) -> None:
    rec = record(demo, "-shares.png")
    tv = vm.table_view(game_at(rec))
    sheet = vm.spreadsheet(tv)
    for r in sheet.rows:
        for col, value in zip(sheet.columns, r.cells, strict=True):
            assert rec["labelled"][f"sheet:{r.label}:{col}"]["text"] == value
    full = record(demo, "map-full")
    assert "Back" in full["texts"] and "Whole map" in full["texts"]


def test_the_company_toast_has_price_buttons(demo: dict[str, Any]) -> None:
    rec = record(demo, "company-toast")
    assert (
        rec["labelled"]["toast"]["text"]
        == "MKT buys SCC (The Southern Cattle Company) from Player 2 for $100"
    )
    assert {"−$25", "−$5", "+$5", "+$25"} <= set(rec["texts"])


def test_the_tile_picker_lists_one_hex_with_pictures(demo: dict[str, Any]) -> None:
    rec = record(demo, "tile-picker")
    options = [t for t in rec["texts"] if t.startswith("C16: tile ")]
    assert "C16: tile 9 rotation 1 $40" in options and len(options) == len(set(options)) >= 3
    assert not any(t.startswith("C16: tile 9 rotation 4") for t in options)  # the same lay as rotation 1
    img = cv2.imread(str(demo["out"] / rec["file"]))
    w, h = demo["size"]
    assert img.shape[:2] == (h, w)


def test_camera_marks_differences_and_proposes_the_lay(demo: dict[str, Any]) -> None:
    rec = record(demo, "-camera.png")
    assert rec["labelled"]["camera"]["text"] == "2 difference(s) on the board"
    assert any(t.startswith("J15: missing tile") for t in rec["texts"])
    assert any(t.startswith("E6: unexpected tile") for t in rec["texts"])
    assert "Lay tile 9 on E6 (MKT)" in rec["texts"]
    toast = record(demo, "camera-lay-toast")
    assert toast["labelled"]["toast"]["text"] == "MKT lays tile 9 on E6 (rotation 0)"
    unknown = record(demo, "tap-unknown")
    assert "Not possible: unknown tag 04FFFFFFFFFFFF" in " ".join(unknown["texts"])
    # enrolled on the spot, not by a shell command (issue 42 item 11)
    assert "Enroll this card" in unknown["texts"] and "companion tags" not in " ".join(unknown["texts"])


def test_new_game_from_setup(demo: dict[str, Any]) -> None:
    rec = record(demo, "new-game")
    labels = rec["labelled"]
    assert labels["bank"]["text"] == "Bank $9,900" and labels["acting"]["text"] == "Ann to act"
    assert [labels[f"cash:{n}"]["text"] for n in ("Ann", "Bob", "Cy", "Di")] == ["$525"] * 4


def test_setup_screen(demo: dict[str, Any]) -> None:
    rec = record(demo, "setup")
    for text in ("New game", "Optional rules", "Resume a saved game", "Tag enrollment", "Start the new game"):
        assert text in rec["texts"], text
    assert "$400 Finish" in rec["texts"]
