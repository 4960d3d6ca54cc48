"""``companion vision``: camera tile recognition tools.

* ``vision check IMAGE… (--fixture FILE [--action ID] | --game ID [--db PATH]) [--out annotated.png]``:
  recognise photos of the table and list their differences from a game's map, an 18xx.games
  export at an action or a live game of the database (which also proposes a newly laid tile);
* ``vision calibrate IMAGE… (--fixture FILE [--action ID] | --tiles H13=57,…) [--out PATH]``: learn the
  owner's printing (tile colours) from photos of their board; ``check`` and the table's
  camera use it;
* ``vision calibrate IMAGE --tokens [--title T]``: learn how the owner's station tokens look from a
  photo of every corporation's token on its home city (kept beside the tile colours);
* ``vision markers OUT_DIR [--hex-mm 38.1]``: the printable marker sheet (PNG + SVG);
* ``vision render --fixture FILE [--action ID] OUT.png``: draw a board state.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.titles import DEFAULT_TITLE
from vision.board import board_from_title
from vision.calibration import CalibrationError
from vision.fixture_states import FixtureError, board_at, load_fixture


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "vision", help="camera tile recognition: check a photo, calibrate, marker sheet, render"
    )
    sub = parser.add_subparsers(dest="vision_command", metavar="SUBCOMMAND")
    parser.set_defaults(func=lambda args: (parser.print_help(sys.stderr), 2)[1])

    check = sub.add_parser(
        "check",
        help="check photos of the table against a game's map",
        description="Recognise one or more photos of the same table (what they agree on counts) and "
        "list the differences from a game's map: an 18xx.games export at an action (--fixture), or a "
        "live game of the companion's database (--game), which also proposes a tile newly laid.",
    )
    check.add_argument("image", type=Path, nargs="+")
    which = check.add_mutually_exclusive_group(required=True)
    which.add_argument("--fixture", type=Path, help="18xx.games export (JSON)")
    which.add_argument("--game", type=int, metavar="ID", help="a game of the companion's database")
    check.add_argument(
        "--action", type=int, default=None, help="with --fixture: action id (default: the end of the game)"
    )
    check.add_argument("--db", type=Path, default=None, help="with --game: the database (default as `table`)")
    check.add_argument("--out", type=Path, default=None, help="write an annotated copy of the (last) photo")
    check.add_argument("--json", action="store_true")
    check.add_argument(
        "--why", action="store_true", help="say why each hex the camera can't see could not be read"
    )
    check.add_argument(
        "--calibration",
        type=Path,
        default=None,
        help="camera calibration from `vision calibrate` (default: the stored one, if any)",
    )
    check.set_defaults(func=cmd_check)

    calibrate = sub.add_parser(
        "calibrate",
        help="learn your tiles' printed colours from photos of your board",
        description="Photograph your board with tiles of every colour laid (yellow, green, brown), say "
        "which tiles lie where (an 18xx.games export at that moment, or --tiles), and the camera learns "
        "how your print run shows them. `vision check` and the table's camera use the result.",
    )
    calibrate.add_argument("image", type=Path, nargs="+")
    known = calibrate.add_mutually_exclusive_group(required=True)
    known.add_argument("--fixture", type=Path, help="18xx.games export of the game in the photos")
    known.add_argument(
        "--tiles",
        help="the tiles in the photos as HEX=TILE pairs, e.g. 'H13=57,G12=7,F9=15' (rotation not needed)",
    )
    known.add_argument(
        "--tokens",
        action="store_true",
        help="learn your station tokens instead: the photo shows every corporation's token on its home "
        "city (of --title)",
    )
    calibrate.add_argument(
        "--action", type=int, default=None, help="with --fixture: action id (default: the end)"
    )
    calibrate.add_argument("--title", default=DEFAULT_TITLE)
    calibrate.add_argument(
        "--out", type=Path, default=None, help=f"where to store it (default: {default_calibration_path()})"
    )
    calibrate.set_defaults(func=cmd_calibrate)

    markers = sub.add_parser("markers", help="write the printable ArUco marker sheet (PNG at 300 dpi + SVG)")
    markers.add_argument("out_dir", type=Path)
    markers.add_argument("--title", default=DEFAULT_TITLE)
    markers.add_argument(
        "--hex-mm", type=float, default=38.1, help="hex width on your board, flat side to flat side"
    )
    markers.add_argument("--dpi", type=int, default=300)
    markers.set_defaults(func=cmd_markers)

    render = sub.add_parser("render", help="draw a board state from a game export")
    render.add_argument("out", type=Path)
    render.add_argument("--fixture", type=Path, default=None)
    render.add_argument("--title", default=DEFAULT_TITLE)
    render.add_argument("--action", type=int, default=None)
    render.add_argument("--scale", type=float, default=60.0, help="pixels per hex width")
    render.set_defaults(func=cmd_render)


def _read_images(paths: list[Path]) -> list[np.ndarray]:
    images = []
    for path in paths:
        read = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if read is None:
            raise FileNotFoundError(f"cannot read image {path} (missing, or not a PNG/JPEG)")
        images.append(np.asarray(read, dtype=np.uint8))
    return images


def cmd_check(args: argparse.Namespace) -> int:
    try:
        images = _read_images(list(args.image))
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    check = _check_game(args, images) if args.game is not None else _check_fixture(args, images)
    if isinstance(check, int):
        return check
    if check.error:
        print(f"error: {check.error}", file=sys.stderr)
        return 1
    if args.json:
        print(
            json.dumps(
                {
                    "differences": [d.__dict__ for d in check.differences],
                    "token_differences": [
                        {**d.__dict__, "seen": sorted(d.seen), "text": d.describe()}
                        for d in check.token_differences
                    ],
                    "cant_see": list(check.cant_see),
                    "cant_see_why": dict(check.cant_see_why),
                    "proposals": list(check.proposals),
                    "rejected": [list(r) for r in check.rejected],
                    "frames": check.frames,
                    "seconds": check.seconds,
                }
            )
        )
    else:
        print(f"{check.frames} photo(s), {check.seconds:.3f} s")
        for line in check.notes() + check.proposal_lines():
            print(line)
        if check.cant_see:
            print(f"can't see: {', '.join(check.cant_see)}")
            if args.why:
                for hex_id in check.cant_see:
                    print(f"    {hex_id}: {check.cant_see_why.get(hex_id) or 'no reason given'}")
        if check.clean:
            print("the table matches the game's map" + (" (where visible)" if check.cant_see else ""))
    if args.out is not None and check.image is not None:
        if not cv2.imwrite(str(args.out), check.image):
            print(f"error: cannot write {args.out}", file=sys.stderr)
            return 2
        print(f"wrote {args.out}")
    return 0 if check.clean else 1


def _check_fixture(args: argparse.Namespace, images: list[np.ndarray]) -> Any:
    """The photos against an 18xx.games export at an action (no engine: no lays proposed)."""
    from companion.table.camera import BoardWatch
    from vision.pipeline import Recognizer

    if args.db is not None:
        print("error: --db goes with --game", file=sys.stderr)
        return 2
    try:
        expected = board_at(load_fixture(args.fixture), args.action)
    except (FixtureError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        calibration = calibration_for(args.calibration)
    except CalibrationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    watch = BoardWatch(Recognizer(expected, calibration=calibration), window=len(images), min_seen=1)
    for image in images:
        watch.add(image)
    return watch.reconcile(expected)[0]


def _check_game(args: argparse.Namespace, images: list[np.ndarray]) -> Any:
    """The photos against a live game of the database, with tile lays the engine would accept."""
    from companion.commands.tags import db_path
    from companion.engine import GameError, as_18xx
    from companion.store import Store, StoreError
    from companion.table.camera import check_frames
    from companion.table.service import game_from_store

    if args.action is not None:
        print("error: --action goes with --fixture (a live game is checked as it stands)", file=sys.stderr)
        return 2
    path = db_path(args)
    if not path.exists():
        print(f"error: no game database at {path}", file=sys.stderr)
        return 2
    try:
        with Store.open(path) as store:
            game = as_18xx(game_from_store(store, args.game))
    except (StoreError, GameError, KeyError) as exc:
        print(f"error: cannot load game {args.game} from {path}: {exc}", file=sys.stderr)
        return 2
    try:
        calibration = calibration_for(args.calibration)
    except CalibrationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return check_frames(game, images, calibration=calibration)


def cmd_calibrate(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from companion.table.calibrate import learn_from_photos, tile_colours
    from vision.calibration import save

    if args.tokens:
        return _calibrate_tokens(args)
    try:
        images = _read_images(list(args.image))
        if args.fixture is not None:
            board = board_at(load_fixture(args.fixture), args.action)
            tiles = {h: t for h, (t, _) in board.tiles.items()}
        else:
            board = board_from_title(args.title)
            tiles = _parse_tiles(args.tiles)
        colours = tile_colours(board, tiles)
        calibration = learn_from_photos(board, colours, images, [str(p) for p in args.image])
        out = args.out or default_calibration_path()
        before = _stored(out)
        if before is not None:  # the tokens learned before stay
            calibration = replace(calibration, tokens=dict(before.tokens))
        save(calibration, out)
    except (FileNotFoundError, FixtureError, KeyError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    hues = ", ".join(f"{c} {calibration.hues[c]:.1f}" for c in ("yellow", "green", "brown"))
    print(f"learned from {len(images)} photo(s), {sum(calibration.hexes.values())} tiles: hues {hues}")
    print(f"wrote {out}")
    return 0


def _stored(path: Path) -> Any:
    """The calibration stored at ``path``, or None when there is none (a damaged one is an error)."""
    from vision.calibration import load

    return load(path) if path.exists() else None


def _calibrate_tokens(args: argparse.Namespace) -> int:
    """Learn the owner's station tokens (``--tokens``) into the stored calibration, its tile colours
    kept."""
    from dataclasses import replace

    from companion.titles import title_info
    from vision.calibration import Calibration, save
    from vision.pipeline import Recognizer
    from vision.token_calibration import learn_tokens

    try:
        if not title_info(args.title).has_map:
            print(f"error: {args.title} has no map for the camera to check", file=sys.stderr)
            return 2
        images = _read_images(list(args.image))
        out = args.out or default_calibration_path()
        before = _stored(out) or Calibration()
        learned = learn_tokens(Recognizer(board_from_title(args.title), calibration=before), images)
        save(replace(before, tokens={**before.tokens, args.title: learned.looks}), out)
    except (FileNotFoundError, KeyError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for line in learned.summary():
        print(line)
    print(f"wrote {out}")
    return 0


def _parse_tiles(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        hex_id, sep, tile = item.partition("=")
        if not sep or not hex_id.strip() or not tile.strip():
            raise ValueError(f"--tiles wants HEX=TILE pairs separated by commas, got {item!r}")
        out[hex_id.strip()] = tile.strip()
    if not out:
        raise ValueError("--tiles names no tile")
    return out


def default_calibration_path() -> Path:
    """Where `vision calibrate` stores the camera calibration and the camera finds it."""
    from companion.table.camera import default_calibration_path as path

    return path()


def calibration_for(path: Path | None) -> Any:
    """The calibration at ``path``; else the stored one if there is one; else none."""
    from companion.table.camera import stored_calibration
    from vision.calibration import load

    return load(path) if path is not None else stored_calibration()


def cmd_markers(args: argparse.Namespace) -> int:
    from vision.markers import write_marker_sheet

    try:
        board = board_from_title(args.title)
        paths = write_marker_sheet(args.out_dir, board.geometry, args.hex_mm, args.dpi)
    except (KeyError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for p in paths:
        print(f"wrote {p}")
    offset = args.hex_mm * (board.geometry.margin - board.geometry.marker_inset)
    print(
        f"marker side {board.geometry.marker_size * args.hex_mm:.1f} mm; centres {offset:.1f} mm outside the outermost "
        "hex extents (see hardware/MARKERS.md)"
    )
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    from vision.render import render_board

    try:
        if args.fixture is not None:
            board = board_at(load_fixture(args.fixture), args.action)
        else:
            board = board_from_title(args.title)
        img = render_board(board, args.scale)
    except (FixtureError, KeyError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not cv2.imwrite(str(args.out), img):
        print(f"error: cannot write {args.out}", file=sys.stderr)
        return 2
    print(f"wrote {args.out} ({img.shape[1]}×{img.shape[0]})")
    return 0
