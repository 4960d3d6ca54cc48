"""Play random games with our engine and replay each in the 18xx.games engine of a local checkout,
action by action, reporting the first disagreement per game (the oracle run; not part of ``make test``).

    python tools/oracle_run.py CHECKOUT --title 1867 --games 100 --seed 9000 [--players 2]
        [--rules RULE ...] [--mode recorded|live] [--keep DIR] [--max-actions N] [--timeout S]

CHECKOUT is your own checkout of the 18xx.games repository (tobymao/18xx); its ``lib/`` is loaded
by ``tools/oracle/trace.rb`` with Ruby (3.1 or later; the engine's only gem is ``require_all``:
``gem install require_all``, or ``bundle install`` in the checkout).  Nothing of it is copied here.

Each game is played by ``tools/random_games.py``'s player from seed ``--seed + n`` and written as an
18xx.games export (the automatic actions our engine took recorded in ``auto_actions``, as the site
records them).  The reference engine creates the game in strict mode (every action checked as in a
live game) and is handed the actions one at a time:

* ``--mode recorded`` (default): with our ``auto_actions``, which it checks against the ones it makes
  itself (what happens when such an export is imported on the site and played on);
* ``--mode live``: without them; it makes its own (as when the players act on the site).

Its state after every action is compared with ours (``companion.interop.replay.diff_traces``: bank,
players' cash, each corporation's cash, share price and trains, the phase).  A game AGREEs when every
action is accepted with the same state after it; else the line says where the engines first part:
``refused`` (the reference refuses an action ours took, with its message) or the first field that
differs.  A game that takes longer than ``--timeout`` seconds to play and compare (a slow route
search of the random player, say) is reported as ``TIMEOUT`` and the run goes on with the next seed.
Exit status 1 when any game disagrees.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.interop.replay import diff_traces, iter_replay, trace_entry  # noqa: E402
from tools.random_games import play  # noqa: E402

TRACER = Path(__file__).resolve().parent / "oracle" / "trace.rb"
#: the reference engine's player count ranges (random_games.py picks in these by default)
PLAYERS = {"1870": (2, 7), "1867": (2, 6), "1861": (2, 6)}


class GameTimeout(Exception):
    """A game took longer than the run's ``--timeout``."""


def _alarm(_signum: int, _frame: object) -> None:
    raise GameTimeout


def our_trace(export: dict[str, Any]) -> list[dict[str, Any]]:
    return [trace_entry(game, action) for action, game in iter_replay(export)]


def read_reference(text: str) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """``trace.rb``'s output: the states after each action (and the scores of a finished game, last),
    and its refusal (None: it took every action)."""
    entries: list[dict[str, Any]] = []
    refusal = None
    for line in text.splitlines():
        if not line.startswith("{"):
            continue
        entry = json.loads(line)
        if "refused" in entry:
            refusal = entry
        else:
            entries.append(entry)  # a state, or the last line of a finished game: its scores
    return entries, refusal


def reference_trace(
    checkout: Path, export_path: Path, mode: str
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The reference's states after each action, and its refusal (None: it took every action)."""
    proc = subprocess.run(
        ["ruby", str(TRACER), str(checkout), str(export_path), mode],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "ENGINE_LOG_LEVEL": os.environ.get("ENGINE_LOG_LEVEL", "4")},
    )
    entries, refusal = read_reference(proc.stdout)
    if proc.returncode != 0 and refusal is None:
        refusal = {
            "refused": None,
            "type": None,
            "error": (proc.stderr.strip().splitlines() or ["ruby failed"])[-1],
        }
    return entries, refusal


def compare(checkout: Path, export: dict[str, Any], path: Path, mode: str) -> str | None:
    """The first disagreement between the engines on this export, in words, or None."""
    reference, refusal = reference_trace(checkout, path, mode)
    return compare_traces(export, reference, refusal, mode)


def compare_traces(
    export: dict[str, Any], reference: list[dict[str, Any]], refusal: dict[str, Any] | None, mode: str
) -> str | None:
    """The first disagreement between our replay of ``export`` and the reference engine's trace of it
    (``reference_trace``'s lines, its refusal or None), in words, or None."""
    ours = our_trace(export)
    ends = [e for e in reference if "result" in e]
    reference = [e for e in reference if "result" not in e]
    if ends and export.get("result") is not None:
        scores = {str(k): int(v) for k, v in ends[0]["result"].items()}
        mine = {str(k): int(v) for k, v in export["result"].items()}
        if scores != mine or ends[0]["game_end_reason"] != export.get("game_end_reason"):
            return f"the game ends differently: {ends[0]}, ours {mine} ({export.get('game_end_reason')})"
    elif export.get("result") is not None and refusal is None:
        return "the game is over for us but not for the reference engine"
    # the reference writes its state after every action it is handed, undo and redo and the actions
    # a later undo takes back included; ours is after each action that takes effect
    effective = {e["id"] for e in ours}
    reference = [e for e in reference if e["id"] in effective]
    if refusal is not None:
        done = {e["id"] for e in reference}
        agreed = [e for e in ours if e["id"] in done]
        first = diff_traces(agreed, reference)
        if first:
            return first
        stuck = (
            " (the reference engine is stuck: nobody it waits for has a legal action)"
            if refusal.get("stuck")
            else ""
        )
        return f"refused: action {refusal['refused']} ({refusal['type']}): {refusal['error']}{stuck}"
    if mode == "live":
        by_id = {e["id"]: e for e in reference}
        for action, _game in iter_replay(export):
            entry = by_id.get(action.get("id"))
            if entry is None:
                continue
            theirs = entry.get("auto_actions") or []
            made = action.get("auto_actions") or []
            mine = [{k: v for k, v in a.items() if k not in ("id", "created_at")} for a in made]
            if theirs != mine:
                return f"action {entry['id']} ({entry['type']}): automatic actions {theirs}, ours {mine}"
    return diff_traces(ours, reference)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path, help="your checkout of the 18xx.games repository")
    parser.add_argument("--title", default="1870", choices=sorted(PLAYERS))
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=0, help="0: at random in the title's range")
    parser.add_argument("--rules", nargs="*", default=[])
    parser.add_argument("--mode", choices=["recorded", "live"], default="recorded")
    parser.add_argument("--max-actions", type=int, default=3000)
    parser.add_argument("--keep", type=Path, help="keep every export here (default: only while running)")
    parser.add_argument("--timeout", type=int, default=0, help="seconds a game may take (0: no limit)")
    args = parser.parse_args()
    if not (args.checkout / "lib" / "engine.rb").is_file():
        print(f"{args.checkout}: not a checkout of 18xx.games (no lib/engine.rb)", file=sys.stderr)
        return 2
    from companion.interop.replay import export_game

    folder = args.keep or Path(tempfile.mkdtemp(prefix="oracle-"))
    folder.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGALRM, _alarm)
    agree = timeouts = 0
    for n in range(args.games):
        seed = args.seed + n
        low, high = PLAYERS[args.title]
        count = args.players or random.Random(seed).randint(low, high)
        start = time.perf_counter()
        path = folder / f"{args.title}-{seed}.json"
        signal.alarm(args.timeout)
        try:
            game = play(seed, count, frozenset(args.rules), args.max_actions, args.title)
            export = export_game(game, game_id=seed)
            path.write_text(json.dumps(export))
            try:
                first = compare(args.checkout, export, path, args.mode)
            except GameTimeout:
                raise
            except Exception as exc:  # noqa: BLE001 - reported per game, the run goes on
                first = f"error: {exc}"
        except GameTimeout:
            timeouts += 1
            print(f"TIMEOUT {args.title} seed={seed} players={count} (over {args.timeout} s)", flush=True)
            path.unlink(missing_ok=True)
            continue
        finally:
            signal.alarm(0)
        status = game.game_end_reason if game.finished else f"stopped in {game.round.name}"
        seconds = time.perf_counter() - start
        head = (
            f"{args.title} seed={seed} players={count} actions={len(game.actions)} {status} ({seconds:.1f} s)"
        )
        if first is None:
            agree += 1
            print(f"AGREE {head}", flush=True)
        else:
            print(f"DIFFER {head}: {first}", flush=True)
        if args.keep is None:
            path.unlink()
    print(f"{agree} of {args.games - timeouts} games agree ({timeouts} over the time limit)")
    return 0 if agree == args.games - timeouts else 1


if __name__ == "__main__":
    raise SystemExit(main())
