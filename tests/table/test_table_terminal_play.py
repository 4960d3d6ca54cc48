"""``companion table`` plays every title from the terminal alone: the first stock round and the
first two operating rounds of each 18xx title (tiles, tokens, routes, dividends, trains), and the
opening of Trans-Siberian Railroad and City of the Big Shoulders, typed on stdin as a player
reads the table's buttons.

A player at the terminal reads the buttons the table prints (``buttons``: the touchscreen's own,
:meth:`TableTitle.choices`) and touches one by its label.  The test plays the same way: it keeps
its own copy of the game, picks a button by a simple table-side policy (lay the first tile, place
the first token, run the suggested routes (every other run typed by its stops: ``run 2-0: C17
D14``), pay out, buy the cheapest train, start and buy what
it can, else pass), writes ``touch LABEL`` and ``confirm`` for it, and applies it to its copy.
The whole script then goes through ``companion table --simulate -`` on stdin; every touch must be
proposed and confirmed (no refusal), the money each proposal moves printed, the engine's automatic
events printed as they happen, and the game must end where the copy did.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from companion.engine import new_game
from companion.store import Store
from companion.table.titles import ActionChoice, table_title

PLAYERS = 3

#: the button groups a player at the table takes first, in order (the rest: pass)
PREFERRED = ("tile", "token", "run", "dividend", "train", "par", "buy", "bid", "merge", "choose")


def _round_key(game: object) -> str:
    return str(getattr(getattr(game, "round", None), "name", ""))


def _pick(buttons: list[ActionChoice], seen_pars: set[str]) -> ActionChoice | None:
    """The button a simple player touches: the policy in the module docstring."""
    by_group: dict[str, list[ActionChoice]] = {}
    for b in buttons:
        by_group.setdefault(b.group, []).append(b)
    for group in PREFERRED:
        options = by_group.get(group, [])
        if group == "dividend":
            options = [b for b in options if b.label.startswith("Pay out")] or options
        if group == "train":
            options = [b for b in options if b.label.startswith("Buy a")]  # from the bank, not traded
        if group == "par":
            options = [b for b in options if b.label.split()[1] not in seen_pars][:1]
        if group == "buy":
            options = [b for b in options if " from IPO " in b.label]
        if group == "bid":
            options = [b for b in options if b.label.startswith("Buy ")] or options[:1]
        if options:
            return options[0]
    passes = by_group.get("pass", [])
    return passes[0] if passes else (buttons[0] if buttons else None)


def _script(title: str, operating_rounds: int, limit: int, until: str = "") -> tuple[str, list[str], object]:
    """The lines a player types, the sentences of what they did, and the copy of the game."""
    game = new_game(title, [f"Player {i}" for i in range(1, PLAYERS + 1)], frozenset(), 0)
    table = table_title(title)
    lines: list[str] = []
    done: list[str] = []
    seen_pars: set[str] = set()
    operating = 0
    typed_runs = 0
    last_round = _round_key(game)
    for _ in range(limit):
        if game.finished:
            break
        routes = table.suggested_routes(game, 10.0)
        buttons = table.choices(game, routes=routes)
        pick = _pick(buttons, seen_pars)
        assert pick is not None, f"{title}: no button in {_round_key(game)}"
        if pick.group == "par":
            seen_pars.add(pick.label.split()[1])
        action = pick.action
        if pick.group == "run" and routes is not None and typed_runs % 2 == 0:
            # every other run typed by its stops, as a player reads them off the board
            wanted = [(r.train, tuple(r.hexes)) for r in routes.routes]
            action = table.run_by_stops(game, wanted)
            lines += ["run " + "; ".join(f"{train}: {' '.join(stops)}" for train, stops in wanted), "confirm"]
        else:
            lines += ["buttons", f"touch {pick.label}", "confirm"]
        typed_runs += pick.group == "run"
        done.append(table.describe(game, action))
        game.apply(action)
        now = _round_key(game)
        if now != last_round:
            if "operating" in last_round.lower():
                operating += 1
            last_round = now
        if operating >= operating_rounds or (until and now.startswith(until)):
            break
    return "\n".join(lines) + "\n", done, game


def _play(tmp_path: Path, title: str, script: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "companion", "table", "--simulate", "-", "--db", str(tmp_path / "t.db")]
        + ["--title", title, "--players", str(PLAYERS), "--demo-tags"],
        input=script,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "script:" not in done.stderr, done.stderr
    return done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("title", ["1870", "1867", "1861", "1833NE"])
def test_an_18xx_title_plays_its_first_operating_rounds_from_the_terminal(tmp_path: Path, title: str) -> None:
    script, done, game = _script(title, operating_rounds=2, limit=400)
    out = _play(tmp_path, title, script)
    lines = out.splitlines()
    assert not [line for line in lines if line.startswith("refused:")], out[-3000:]
    oks = [line for line in lines if line.startswith("ok: ")]
    assert len(oks) == len(done), out[-3000:]
    # tiles were laid, tokens placed, routes run and dividends paid, all by touch
    said = "\n".join(done)
    assert " lays tile " in said and " runs " in said, said
    assert any(line.startswith("run ") for line in script.splitlines()), "no run was typed"
    assert any(line.startswith("? ") and " lays tile " in line for line in lines)
    # what a proposal moves is printed under it (a par: the player's cash and the share price)
    money = [line for line in lines if line.startswith("  ") and "→" in line]
    assert money, out[-3000:]
    # the engine's own events are printed as they happen (what followed an action by itself)
    events = [line for line in lines if line.startswith("  · ")]
    assert len(events) >= len(done)
    assert lines[-1].startswith(f"game 1 ({title}, {PLAYERS} players): {_round_key(game)}"), lines[-1]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("title", "until", "limit"),
    [("TSR", "", 160), ("CoBS", "1880s", 200)],
)
def test_a_title_without_a_map_plays_its_opening_from_the_terminal(
    tmp_path: Path, title: str, until: str, limit: int
) -> None:
    """Trans-Siberian Railroad: the auctions, the turns of building and the dividends; City of the Big
    Shoulders: the board set up, the companies started, the 1870s' stock, building, action and
    operating phases, to the 1880s."""
    script, done, game = _script(title, operating_rounds=99, limit=limit, until=until)
    out = _play(tmp_path, title, script)
    lines = out.splitlines()
    assert not [line for line in lines if line.startswith("refused:")], out[-3000:]
    assert len([line for line in lines if line.startswith("ok: ")]) == len(done), out[-3000:]
    if until:
        assert _round_key(game).startswith(until)
    assert any(line.startswith("  · ") for line in lines)
    if getattr(game, "finished", False):  # the simple policy plays a short TSR game to its end
        assert lines[-1].startswith(f"game 1 ({title}) is over"), lines[-1]
        with Store.open(tmp_path / "t.db") as store:  # listed finished as soon as it ended
            assert store.game(1).status == "finished"
    else:
        assert lines[-1].startswith(f"game 1 ({title}, {PLAYERS} players): {_round_key(game)}"), lines[-1]
