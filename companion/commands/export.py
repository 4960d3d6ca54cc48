"""``companion export GAME [--db PATH] [--out FILE]``: a table game as an 18xx.games export (JSON);
``--report FILE.png|FILE.html``: the game's story instead (net worth, share prices, bank by round).

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
    p.add_argument(
        "--report",
        type=Path,
        metavar="FILE",
        help="instead, write the game's story to keep: each player's net worth, each company's share "
        "price and the bank's cash by round, as one page (FILE.png: a picture; FILE.html: the "
        "picture and the numbers)",
    )
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
        if args.report is not None:
            return _report(path, args.game, args.report)
        with Store.open(path) as store:
            data = export_table_game(store, args.game)
        warnings = _differences(data)
        text = json.dumps(data, indent=1) + "\n"
        if args.out is None:
            sys.stdout.write(text)
        else:
            args.out.write_text(text, encoding="utf-8")
            print(f"wrote game {args.game} ({len(data['actions'])} actions) to {args.out}", file=sys.stderr)
        for line in warnings:
            print(line, file=sys.stderr)
    except (ConfigError, StoreError, GameError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def _differences(data: dict[str, Any]) -> list[str]:
    """A warning for each action at which 18xx.games, continuing the exported game, may part from
    the table by a documented rule difference (the file is written all the same)."""
    from companion.interop.replay import differences_on_18xx_games

    found = differences_on_18xx_games(data)
    if not found:
        return []
    lines = [
        f"warning: 18xx.games may not continue this game as the table played it: at action {action_id} "
        f'{why} (docs/ENGINE.md, "Rule differences in an export")'
        for action_id, why in found
    ]
    lines.append(
        f"warning: loaded there, the game is the table's until action {found[0][0]}; "
        "from there its state or its next step may differ"
    )
    return lines


def _report(db: Path, game_id: int, out: Path) -> int:
    """``--report FILE``: the game's story as one PNG or HTML page."""
    import cv2

    from companion.store import Store
    from companion.ui.storyimage import report, report_html, result_lines
    from companion.ui.viewmodels.history import story

    kind = out.suffix.lower()
    if kind not in (".png", ".html"):
        print(f"error: {out}: the report is a .png or an .html file", file=sys.stderr)
        return 1
    with Store.open(db) as store:
        game = store.replayed(game_id)
    told = story(game)
    heading, lines = result_lines(game)
    if kind == ".html":
        out.write_text(report_html(told, heading, lines), encoding="utf-8")
    elif not cv2.imwrite(str(out), report(told, heading, lines)):
        raise OSError(f"{out}: the picture could not be written")
    print(f"wrote the story of game {game_id} ({len(told.labels) - 1} rounds) to {out}", file=sys.stderr)
    return 0
