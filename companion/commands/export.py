"""``companion export GAME [--db PATH] [--out FILE]``: a table game as an 18xx.games export (JSON).

The file has the game's players (seat numbers as ids), settings (seed, optional rules), every
stored action with its id (``undo`` and ``redo`` records as 18xx.games writes them) and its state;
``companion table --import FILE`` brings such a file (or one downloaded from 18xx.games) back to the
table.  See :mod:`companion.table.exchange`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["register"]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "export",
        help="write a table game as an 18xx.games export (JSON)",
        description="Write game GAME of the database as an 18xx.games export: players, settings, "
        "every action (undo and redo included) and its state.",
    )
    p.add_argument("game", type=int, metavar="GAME", help="the game's id in the database")
    p.add_argument("--db", type=Path, help="device database (default: $COMPANION_DB, the configuration)")
    p.add_argument("--out", "-o", type=Path, default=None, help="write here (default: standard output)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from companion.commands.table import _config, _db
    from companion.config import ConfigError
    from companion.engine import GameError
    from companion.store import Store, StoreError
    from companion.table.exchange import export_table_game

    try:
        path = _db(args, _config())
        if not path.exists():
            raise StoreError(f"{path}: no such game database")
        with Store.open(path) as store:
            data = export_table_game(store, args.game)
        text = json.dumps(data, indent=1) + "\n"
        if args.out is None:
            sys.stdout.write(text)
        else:
            args.out.write_text(text, encoding="utf-8")
            print(f"wrote game {args.game} ({len(data['actions'])} actions) to {args.out}", file=sys.stderr)
    except (ConfigError, StoreError, GameError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0
