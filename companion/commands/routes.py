"""``companion routes bench FILE... [--json]``: best routes for every run of real games."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.engine import GameError, as_18xx
from companion.engine.map import MapError
from companion.inputfile import EXIT_BAD_FILE, InputFileError
from companion.interop.actions import ExportError
from companion.interop.replay import load_export, states_before


@dataclass
class StateResult:
    file: str
    action_id: int
    corporation: str
    trains: list[str]
    played: int
    best: int
    seconds: float
    optimal: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "action_id": self.action_id,
            "corporation": self.corporation,
            "trains": self.trains,
            "played": self.played,
            "best": self.best,
            "seconds": round(self.seconds, 6),
            "optimal": self.optimal,
        }


def bench_files(files: list[Path], limit: float | None = None) -> list[StateResult]:
    """Restore the game before every ``run_routes`` of the exports (the engine's own replay) and
    compute the best routes for the corporation that ran (each search stopped after ``limit``
    seconds, if given: then not proven optimal)."""
    out: list[StateResult] = []
    for path in files:
        export = load_export(path)
        for action, table_game in states_before(export, ("run_routes",)):
            game = as_18xx(table_game)
            corp = game.corporation(str(action["entity"]))
            result = game.suggest_routes(corp, time_limit=limit)
            played = sum(int(r.get("revenue") or 0) for r in action.get("routes") or [])
            out.append(
                StateResult(
                    path.name,
                    int(action["id"]),
                    corp.sym,
                    sorted(t.id for t in corp.trains),
                    played,
                    result.total,
                    result.seconds,
                    result.optimal,
                )
            )
    return out


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


def summary(results: list[StateResult]) -> str:
    secs = [r.seconds for r in results]
    ge = sum(1 for r in results if r.best >= r.played)
    gt = sum(1 for r in results if r.best > r.played)
    lt = sum(1 for r in results if r.best < r.played)
    return (
        f"states={len(results)} best>=played={ge} best>played={gt} best<played={lt} "
        f"p50={percentile(secs, 0.5):.4f} p95={percentile(secs, 0.95):.4f} "
        f"max={max(secs, default=0.0):.4f} seconds"
    )


def register(sub: Any) -> None:
    p = sub.add_parser("routes", help="route optimiser tools")
    rsub = p.add_subparsers(dest="routes_command", required=True)
    b = rsub.add_parser(
        "bench", help="best routes for every run_routes of 18xx.games exports, compared with the game"
    )
    b.add_argument("files", nargs="+", type=Path, help="18xx.games export (.json)")
    b.add_argument("--json", action="store_true", help="one JSON object per state")
    b.add_argument(
        "--limit",
        type=float,
        default=10.0,
        help="stop each search after this many seconds (default 10; it then counts as not proven)",
    )
    b.set_defaults(func=run_bench)


def run_bench(args: argparse.Namespace) -> int:
    results: list[StateResult] = []
    failed = unreadable = 0
    for path in args.files:  # each file on its own: a bad one is reported and the others still run
        try:
            results += bench_files([path], args.limit)
        except InputFileError as exc:  # the file cannot be used: one line, as every command says it
            print(f"error: {exc}", file=sys.stderr)
            unreadable += 1
        except (GameError, ExportError, MapError, OSError, ValueError, KeyError, TypeError) as exc:
            print(f"FAIL {path} {exc}")
            failed += 1
    for r in results:
        if args.json:
            print(json.dumps(r.as_dict()))
        elif r.best != r.played:
            mark = "BETTER" if r.best > r.played else "WORSE"
            print(f"{mark} {r.file} action {r.action_id} {r.corporation}: best {r.best} played {r.played}")
    print(summary(results))
    bad = [r for r in results if r.best < r.played or not r.optimal]
    return EXIT_BAD_FILE if unreadable else 2 if failed else 1 if bad else 0
