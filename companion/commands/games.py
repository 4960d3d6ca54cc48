"""``companion games [list|check|recover]``: the saved games of the device database.

``list`` (the default) shows every game: id, title, players, state, number of actions and when
the last one was recorded, most recently played first.  ``check`` runs the store's check (SQLite's
integrity check, every log read back and compared with the mirror log, every game replayed by the
rules engine) and exits 1 if it finds a problem.  ``recover`` restores games and actions the
database lost from the mirror log, or from a backup file (``--backup``).  The database is ``--db``,
else ``$COMPANION_DB``, else the configuration's (``$COMPANION_CONFIG``), else the default; see
docs/STORE.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["register"]


def register(sub: Any) -> None:
    p = sub.add_parser("games", help="list the saved games; check or recover the game database")
    p.add_argument(
        "what",
        nargs="?",
        choices=("list", "check", "recover"),
        default="list",
        help="list the saved games (default), check the database, or recover lost actions",
    )
    p.add_argument("--db", type=Path, help="device database (default: $COMPANION_DB, the configuration)")
    p.add_argument(
        "--status", choices=("active", "finished", "abandoned"), help="list only the games in this state"
    )
    p.add_argument("--backup", type=Path, help="recover: a backup file to restore lost actions from")
    p.add_argument("--no-replay", action="store_true", help="check: skip replaying the games in the engine")
    p.set_defaults(func=run)


def when(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(seconds))


def run(args: argparse.Namespace) -> int:
    from companion.config import ConfigError, load_config
    from companion.store import Store, StoreError, database_path

    try:
        config_file = os.environ.get("COMPANION_CONFIG")
        db = database_path(args.db, load_config(config_file) if config_file else None)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.what == "recover":
        try:
            for line in Store.recover(db, backup=args.backup):
                print(line)
        except StoreError as err:
            print(f"error: {err}", file=sys.stderr)
            return 1
        return 0
    if not db.exists():
        print(f"error: there is no game database {db}; pass --db PATH or set $COMPANION_DB", file=sys.stderr)
        return 2
    try:
        # check opens a damaged database too (changing nothing), to name every problem it has
        with Store.open(db, refuse_damage=args.what != "check") as store:
            if args.what == "check":
                problems = store.check(replay=not args.no_replay)
                for problem in problems:
                    print(problem)
                if not problems:
                    print(f"{db}: no problems found ({len(store.games())} games)")
                return 1 if problems else 0
            games = store.games(args.status)
    except StoreError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    if not games:
        which = f"{args.status} " if args.status else ""
        print(f"no {which}saved games in {db}; start one with `companion run` or `companion table`")
        return 0
    rows = [("id", "title", "players", "state", "actions", "last action")]
    rows += [
        (str(g.id), g.title, ", ".join(g.players), g.status, str(g.action_count), when(g.last_action_at))
        for g in games
    ]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        cells = [
            c.rjust(w) if i in (0, 4) else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        print("  ".join(cells).rstrip())
    return 0
