"""``companion vision``: camera tile recognition tools.

* ``vision bench --title 1870 --frames N --seed S [--json]``: simulated photos of
  fixture board states with deliberate differences; per-frame results and a summary;
* ``vision check IMAGE --fixture FILE --action ID [--out annotated.png]``: recognise
  a photo and list its differences from the game's map at that action;
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

from vision.board import board_from_title
from vision.fixture_states import FixtureError, board_at, load_fixture


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "vision", help="camera tile recognition: bench, check a photo, marker sheet"
    )
    sub = parser.add_subparsers(dest="vision_command", metavar="SUBCOMMAND")
    parser.set_defaults(func=lambda args: (parser.print_help(sys.stderr), 2)[1])

    bench = sub.add_parser(
        "bench", help="recognition accuracy and speed on simulated photos of fixture games"
    )
    bench.add_argument("--title", default="1870")
    bench.add_argument("--frames", type=int, default=20)
    bench.add_argument("--seed", type=int, default=1)
    bench.add_argument(
        "--strength", type=float, default=1.0, help="perturbation strength (0 clean .. 1 full)"
    )
    bench.add_argument(
        "--fixtures", type=Path, default=None, help="folder of 18xx.games exports for the title"
    )
    bench.add_argument("--json", action="store_true", help="one JSON object per frame, then the summary")
    bench.set_defaults(func=cmd_bench)

    check = sub.add_parser("check", help="check a photo of the table against a game's map")
    check.add_argument("image", type=Path)
    check.add_argument("--fixture", type=Path, required=True, help="18xx.games export (JSON)")
    check.add_argument("--action", type=int, default=None, help="action id (default: the end of the game)")
    check.add_argument("--out", type=Path, default=None, help="write an annotated copy of the photo")
    check.add_argument("--json", action="store_true")
    check.set_defaults(func=cmd_check)

    markers = sub.add_parser("markers", help="write the printable ArUco marker sheet (PNG at 300 dpi + SVG)")
    markers.add_argument("out_dir", type=Path)
    markers.add_argument("--title", default="1870")
    markers.add_argument(
        "--hex-mm", type=float, default=38.1, help="hex width on your board, flat side to flat side"
    )
    markers.add_argument("--dpi", type=int, default=300)
    markers.set_defaults(func=cmd_markers)

    render = sub.add_parser("render", help="draw a board state from a game export")
    render.add_argument("out", type=Path)
    render.add_argument("--fixture", type=Path, default=None)
    render.add_argument("--title", default="1870")
    render.add_argument("--action", type=int, default=None)
    render.add_argument("--scale", type=float, default=60.0, help="pixels per hex width")
    render.set_defaults(func=cmd_render)


def _fmt(value: float) -> str:
    return f"{value:.4f}" if isinstance(value, float) else str(value)


def cmd_bench(args: argparse.Namespace) -> int:
    from vision.evaluate import run_bench, summarise

    if args.frames < 1:
        print("error: --frames must be at least 1", file=sys.stderr)
        return 2
    try:
        reports = []
        for report in run_bench(
            args.title, args.frames, args.seed, strength=args.strength, fixtures=args.fixtures
        ):
            reports.append(report)
            if args.json:
                print(json.dumps(report.to_json()), flush=True)
            else:
                status = "ok" if not (report.false_differences or report.missed or report.wrong) else "!!"
                print(
                    f"frame {report.frame:3d} game {report.game} action {report.action:5d}: {status} "
                    f"{report.correct}/{report.visible} hexes, can't see {report.cant_see}, "
                    f"changes {len(report.changes)} found {len(report.found)} missed {len(report.missed)}, "
                    f"false {len(report.false_differences)}, {report.seconds:.3f} s"
                    + (f" [{report.error}]" if report.error else ""),
                    flush=True,
                )
                for line in report.wrong + report.false_differences + report.missed:
                    print(f"    {line}")
    except (FileNotFoundError, FixtureError, KeyError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    summary = summarise(reports)
    if args.json:
        print(json.dumps({"summary": summary}))
    else:
        print("summary:")
        for key, value in summary.items():
            print(f"  {key}: {_fmt(value)}")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from vision.pipeline import Recognizer
    from vision.reconcile import reconcile

    image = cv2.imread(str(args.image), cv2.IMREAD_COLOR)
    if image is None:
        print(f"error: cannot read image {args.image} (missing, or not a PNG/JPEG)", file=sys.stderr)
        return 2
    try:
        game = load_fixture(args.fixture)
        expected = board_at(game, args.action)
    except (FixtureError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    rec = Recognizer(expected)
    result = rec.recognise(np.asarray(image, dtype=np.uint8))
    if result.error:
        print(f"error: {result.error}", file=sys.stderr)
        return 1
    recon = reconcile(result.observations, dict(expected.tiles), expected.title)
    if args.json:
        print(
            json.dumps(
                {
                    "differences": [d.__dict__ for d in recon.differences],
                    "cant_see": list(recon.cant_see),
                    "markers": list(result.markers),
                    "seconds": result.seconds,
                }
            )
        )
    else:
        print(f"markers {list(result.markers)}, {result.seconds:.3f} s")
        for diff in recon.differences:
            print(diff.describe())
        if recon.cant_see:
            print(f"can't see: {', '.join(recon.cant_see)}")
        if recon.clean:
            print("the table matches the game's map" + (" (where visible)" if recon.cant_see else ""))
    if args.out is not None:
        assert result.homography is not None
        annotated = annotate(image, expected, result.homography, recon)
        if not cv2.imwrite(str(args.out), annotated):
            print(f"error: cannot write {args.out}", file=sys.stderr)
            return 2
        print(f"wrote {args.out}")
    return 0 if recon.clean else 1


def annotate(image: np.ndarray, board: Any, hmat: np.ndarray, recon: Any) -> np.ndarray:
    """The photo with every difference outlined in red and labelled, unseen hexes in grey."""
    from vision.geometry import hex_corners

    out = image.copy()
    geometry = board.geometry

    def poly(hex_id: str) -> np.ndarray:
        cx, cy = geometry.center(hex_id)
        pts = np.array([[cx + x, cy + y, 1.0] for x, y in hex_corners(board.layout, 0.95)])
        proj = (hmat @ pts.T).T
        out_pts: np.ndarray = (proj[:, :2] / proj[:, 2:3]).astype(np.int32)
        return out_pts

    for hex_id in recon.cant_see:
        cv2.polylines(out, [poly(hex_id)], True, (160, 160, 160), 2, cv2.LINE_AA)
    for diff in recon.differences:
        pts = poly(diff.hex)
        cv2.polylines(out, [pts], True, (0, 0, 255), 4, cv2.LINE_AA)
        x, y = pts.min(axis=0)
        label = f"{diff.hex} {diff.kind.replace('_', ' ')}"
        cv2.putText(
            out, label, (int(x), int(y) - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 255), 2, cv2.LINE_AA
        )
    return out


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
