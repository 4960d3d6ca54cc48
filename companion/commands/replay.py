"""``companion replay FILE...``: replay 18xx.games exports and compare with their results."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from companion.engine import GameError
from companion.inputfile import EXIT_BAD_FILE, InputFileError
from companion.interop.actions import ExportError
from companion.interop.replay import diff_traces, load_trace, replay


def register(sub: Any) -> None:
    p = sub.add_parser("replay", help="replay 18xx.games game exports through the engine")
    p.add_argument("files", nargs="+", type=Path, help="18xx.games export (.json)")
    p.add_argument("--trace", action="store_true", help="print our state after every action as JSON lines")
    p.add_argument(
        "--diff",
        metavar="TRACE",
        type=Path,
        help="compare our per-action state with a reference trace (.trace.jsonl) and name the first disagreement",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    all_ok = True
    if args.diff and len(args.files) != 1:
        print("--diff takes exactly one export file", file=sys.stderr)
        return 2
    bad_file = False
    for path in args.files:
        try:
            result = replay(path, keep_trace=bool(args.trace or args.diff))
        except InputFileError as err:  # the file cannot be used: one line, the next file
            print(f"error: {err}", file=sys.stderr)
            bad_file = True
            continue
        except (ExportError, GameError, ValueError, TypeError, KeyError, AttributeError) as err:
            # a file the engine cannot even start (unknown title, malformed fields): reported, and
            # the other files of the batch still replay
            print(f"FAIL {path} {err}")
            all_ok = False
            continue
        if args.trace:
            for entry in result.trace:
                print(json.dumps(entry, separators=(",", ":")))
        if args.diff:
            try:
                reference = load_trace(args.diff)
            except InputFileError as err:
                print(f"error: {err}", file=sys.stderr)
                return EXIT_BAD_FILE
            first = diff_traces(result.trace, reference)
            if first:
                result.ok = False
                result.divergence = (
                    (result.divergence + "; " if result.divergence else "") + "trace: " + first
                )
        if result.ok:
            print(f"OK {path} actions={result.actions} seconds={result.seconds:.2f}")
        else:
            all_ok = False
            print(f"FAIL {path} actions={result.actions} seconds={result.seconds:.2f}")
            print(f"  {result.divergence}")
    if bad_file:
        return EXIT_BAD_FILE
    return 0 if all_ok else 1
