"""``companion table --simulate``: scripted taps and presses; killed mid-game, the store has every
confirmed action and a reopened table is in the same state."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.cli import main
from companion.engine import new_game
from companion.store import Store
from companion.table.service import TableService
from companion.table.tags import TagRegistry
from tests.support.table import snapshot

AUCTION = """\
# the auction: Player 1 buys the cheapest private, Player 2 bids on SCC and raises with a second tap
tap 0 @GRSC
press confirm
tap 0 @SCC
tap 0 @SCC
press confirm
tap 0 @player-1      # Player 1's turn is over: not theirs any more
tap 0 04DEADBEEF0001
tap 1 @MRBC
price 45             # the bridge company can only be bought at face value: refused
press cancel
press undo
press confirm
"""


def test_scripted_session(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "auction.txt"
    script.write_text(AUCTION)
    db = tmp_path / "t.sqlite3"
    code = main(["table", "--simulate", str(script), "--db", str(db), "--demo-tags", "--players", "3"])
    out = capsys.readouterr().out
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0] == "enrolled demo tags on 137 card(s)"
    assert lines[1] == "game 1 (1870, 3 players): Auction, Player 1 to act"
    assert "ok: Player 1 buys GRSC (Great River Shipping Company) for $20 [action 1]" in lines
    assert "? Player 2 bids $60 for SCC (The Southern Cattle Company)" in lines
    assert "ok: Player 2 bids $60 for SCC (The Southern Cattle Company) [action 2]" in lines
    assert "refused: it is Player 3's turn, not Player 1's" in lines
    assert "refused: unknown tag 04DEADBEEF0001: enroll it with companion tags enroll" in lines
    assert "refused: there is no price to set: tap a private company or a train first" in lines
    assert "ok: cancelled: Player 3 buys MRBC (Mississippi River Bridge Company) for $40" in lines
    assert "ok: Undo: Player 2 bids $60 for SCC [action 3]" in lines
    assert lines[-1] == "game 1 (1870, 3 players): Auction, Player 2 to act"
    with Store.open(db) as store:
        assert [a["type"] for a in store.actions(1)] == ["bid", "bid", "undo"]
        assert store.effective_actions(1) == [
            {"type": "bid", "entity": 1, "entity_type": "player", "company": "GRSC", "price": 20, "id": 1}
        ]


def test_the_terminal_says_whose_turn_and_accepts_what_its_prompts_suggest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """After every action: whose turn it is and what they may do; ``help``; the hint's "press +
    to raise by $5" is a command (``+``, ``press +``, ``- 1``, ``+ 2``), as are ``confirm`` / ``undo``."""
    script = tmp_path / "s.txt"
    script.write_text(
        "help\ntap 0 @GRSC\nconfirm\ntap 0 @SCC\n+\npress +\n- 1\n+ 2\nconfirm\nundo\nconfirm\n"
    )
    db = tmp_path / "t.sqlite3"
    assert main(["table", "--simulate", str(script), "--db", str(db), "--demo-tags", "--players", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    turn = "now: Player 1 to act in the auction: tap a card or your player card, or touch a button: "
    assert (
        lines[2]
        == turn + "Pass (bid on private companies); bid (11: Buy GRSC $20, …) (buttons lists them all)"
    )
    assert any(line.startswith("  + / -           raise / lower that price by its step") for line in lines)
    assert any(line.startswith("  tap R @CARD") for line in lines)
    assert "  (tap again or press + to raise by $5, confirm to bid)" in lines
    bids = [line for line in lines if line.startswith("? Player 2 bids")]
    assert [b.split("$")[1].split()[0] for b in bids] == ["55", "60", "65", "60", "70"]
    assert "ok: Player 2 bids $70 for SCC (The Southern Cattle Company) [action 2]" in lines
    after = lines.index("ok: Player 2 bids $70 for SCC (The Southern Cattle Company) [action 2]")
    # under the action, the engine's log of it; then whose turn it is
    assert lines[after + 1] == "  · Player 2 bids $70 for The Southern Cattle Company"
    assert lines[after + 2].startswith("now: Player 3 to act in the auction: ")
    assert lines[after + 2].endswith("; undo to take back the last action")
    assert "ok: Undo: Player 2 bids $70 for SCC [action 3]" in lines
    assert lines[lines.index("ok: Undo: Player 2 bids $70 for SCC [action 3]") + 1].startswith(
        "now: Player 2 to act in the auction"
    )
    with Store.open(db) as store:
        assert [a["price"] for a in store.effective_actions(1)] == [20]
    # a price step with nothing priced is refused, and a bad count is a script error
    script.write_text("+\n")
    assert main(["table", "--simulate", str(script), "--db", str(db), "--game", "1"]) == 0
    assert "refused: there is no price to raise or lower" in capsys.readouterr().out
    script.write_text("+ lots\n")
    assert main(["table", "--simulate", str(script), "--db", str(db), "--game", "1"]) == 1
    assert "line 1: + takes a number of price steps" in capsys.readouterr().err


def test_a_bad_script_plays_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "bad.txt"
    script.write_text("tap 0 @GRSC\npress confirm\npress harder\n")
    db = tmp_path / "t.sqlite3"
    assert main(["table", "--simulate", str(script), "--db", str(db), "--demo-tags"]) == 1
    err = capsys.readouterr().err
    assert (
        "line 3: press takes one button: confirm, cancel, undo, + or -" in err and "nothing was played" in err
    )
    with Store.open(db) as store:
        assert store.games() == []
    script.write_text("tap 0 @NOPE_1\n")
    assert main(["table", "--simulate", str(script), "--db", str(db)]) == 1
    assert "1870 has no card 'NOPE_1'" in capsys.readouterr().err


def test_killed_table_reopens_with_every_confirmed_action(tmp_path: Path) -> None:
    script = tmp_path / "play.txt"
    script.write_text(
        "tap 0 @GRSC\npress confirm\ntap 0 @SCC\nprice 70\npress confirm\n"
        "tap 0 @player-3\npress confirm\ntap 0 @MRBC\nwait 120\npress confirm\n"
    )
    db = tmp_path / "t.sqlite3"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion",
            "table",
            "--simulate",
            str(script),
            "--db",
            str(db),
            "--demo-tags",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    oks: list[str] = []
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        while len(oks) < 3 and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            if line.startswith("ok:"):
                oks.append(line)
        assert len(oks) == 3, oks
        proc.send_signal(signal.SIGKILL)  # while the MRBC purchase is only proposed
    finally:
        proc.kill()
        proc.wait()
    direct = new_game("1870", ["Player 1", "Player 2", "Player 3", "Player 4"])
    for action in (
        {"type": "bid", "entity": 1, "entity_type": "player", "company": "GRSC", "price": 20},
        {"type": "bid", "entity": 2, "entity_type": "player", "company": "SCC", "price": 70},
        {"type": "pass", "entity": 3, "entity_type": "player"},
    ):
        direct.apply(action)
    with Store.open(db) as store, TagRegistry.open(db) as registry:
        assert len(store.actions(1)) == 3
        service = TableService.open(store, 1, registry)
        assert snapshot(service.game) == snapshot(direct)
    # and the command resumes the saved game
    script.write_text("tap 0 @MRBC\npress confirm\n")
    proc2 = subprocess.run(
        [
            sys.executable,
            "-m",
            "companion",
            "table",
            "--simulate",
            str(script),
            "--db",
            str(db),
            "--game",
            "1",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc2.returncode == 0, proc2.stderr
    assert "ok: Player 4 buys MRBC (Mississippi River Bridge Company) for $40 [action 4]" in proc2.stdout


def test_a_line_that_is_no_command_is_answered_at_once(tmp_path: Path) -> None:
    """Typed at the terminal (stdin), a line that is no command is refused as soon as it is read,
    with what may be done now, before any later line is played; ``buttons`` lists the buttons and
    ``choose 2`` picks an option by number."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "companion", "table", "--simulate", "-", "--db", str(tmp_path / "t.db")]
        + ["--players", "3", "--demo-tags"],
        input="frobnicate\nbuttons bid\ntap 0 @player-1\nconfirm\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    refused = next(i for i, line in enumerate(lines) if line.startswith("refused: line 1: unknown command"))
    assert lines[refused + 1].startswith("now: Player 1 to act in the auction")
    assert "  [bid] Buy GRSC $20" in lines[refused:]
    assert lines.index("  [bid] Buy GRSC $20") < lines.index("ok: Player 1 passes [action 1]")
