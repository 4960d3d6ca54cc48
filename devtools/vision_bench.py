"""``python -m devtools.vision_bench``: the camera's benchmark from the command line.

``python -m devtools.vision_bench --title 1870 --frames N --seed S [--style LOOK] [--calibrate] [--json]
[--why]``: simulated photos of fixture board states drawn in a look (:mod:`devtools.looks`), with
deliberate differences; per-frame results and a summary that says whether the look was used for tuning
and (``--calibrate``) how the bench calibrated to the look as the owner would first.  ``make bench``
runs the same measure (:mod:`devtools.bench.vision`) and writes docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from companion.titles import DEFAULT_TITLE
from devtools.bench.vision import bench_states, owner_calibration
from devtools.evaluate import run_bench, summarise, why_tally
from devtools.looks import TUNED
from vision.fixture_states import FixtureError


def build_parser() -> argparse.ArgumentParser:
    bench = argparse.ArgumentParser(
        prog="python -m devtools.vision_bench",
        description="The camera's recognition accuracy and speed on simulated photos of fixture games.",
    )
    bench.add_argument("--title", default=DEFAULT_TITLE)
    bench.add_argument("--frames", type=int, default=20)
    bench.add_argument("--seed", type=int, default=1)
    bench.add_argument(
        "--strength", type=float, default=1.0, help="perturbation strength (0 clean .. 1 full)"
    )
    bench.add_argument(
        "--fixtures", type=Path, default=None, help="folder of 18xx.games exports for the title"
    )
    bench.add_argument(
        "--style",
        default="ours",
        help="the look the boards are drawn in (devtools/looks): the reader is trained on ours, flat, "
        "cardboard, print2, offset, reprint and varied (a new look drawn at random for every board); "
        "classic, folio and heritage are never trained or tuned on",
    )
    bench.add_argument(
        "--calibrate",
        action="store_true",
        help="first calibrate as the owner would (the Setup walk-through's tiles, photographed in the look) "
        "and measure with that calibration",
    )
    bench.add_argument("--json", action="store_true", help="one JSON object per frame, then the summary")
    bench.add_argument(
        "--why",
        action="store_true",
        help="also list each laid tile in clear view that was not read, with the recogniser's reason, "
        "and tally the reasons by kind after the summary",
    )
    return bench


def _fmt(value: float) -> str:
    return f"{value:.4f}" if isinstance(value, float) else str(value)


def cmd_bench(args: argparse.Namespace) -> int:
    from companion.engine import GameError
    from companion.titles import title_info

    if args.frames < 1:
        print("error: --frames must be at least 1", file=sys.stderr)
        return 2
    try:
        if not title_info(args.title).has_map:
            print(f"error: {args.title} has no map for the camera to check", file=sys.stderr)
            return 2
        # the engine replays the games where the title's rules are written (exact tokens); the
        # fixture reader otherwise (tiles exact, home tokens placed at par)
        states = bench_states(args.title, args.fixtures) if title_info(args.title).playable else None
        owner = owner_calibration(args.title, args.style, args.seed) if args.calibrate else None
        if owner is not None:
            print(
                json.dumps({"calibration": owner.to_json()}) if args.json else owner.describe(),
                file=sys.stdout,
                flush=True,
            )
        reports = []
        for report in run_bench(
            args.title,
            args.frames,
            args.seed,
            strength=args.strength,
            fixtures=args.fixtures,
            style=args.style,
            states=states,
            calibration=None if owner is None else owner.calibration,
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
                if args.why:
                    for line in report.unread:
                        print(f"    can't see {line}")
    except (FileNotFoundError, FixtureError, GameError, KeyError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    summary = summarise(reports)
    summary["style"] = args.style
    summary["style_tuned"] = args.style in TUNED
    summary["calibrated"] = owner is not None and owner.calibration is not None
    if owner is not None:
        summary["calibration"] = owner.describe()
    tally = why_tally(reports) if args.why else []
    if args.json:
        print(
            json.dumps({"summary": summary} | ({"why": [[n, kind] for n, kind in tally]} if args.why else {}))
        )
    else:
        print("summary:")
        for key, value in summary.items():
            print(f"  {key}: {_fmt(value)}")
        if args.why:
            print("laid tiles not read, by reason:" if tally else "laid tiles not read: none")
            for n, kind in tally:
                print(f"  {n:5d}  {kind}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return cmd_bench(build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
