"""Benchmark: replaying the fixture games of each playable title through the engine."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from companion.interop.actions import effective_actions
from companion.interop.replay import game_for_export, load_export

ROOT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "18xx.games"
TITLES = ("1870", "1867", "1861")
RUNS = 5


def bench() -> str:
    files = [f for title in TITLES for f in sorted((ROOT / title).glob("*.json"))]
    if not files:
        return f"## Engine replay\n\nNo fixtures found under `{ROOT}`.\n"
    lines = [
        "## Engine replay",
        "",
        f"Each fixture game ({', '.join(TITLES)}) replayed {RUNS} times through the engine (medians, "
        "one core), and the cost of "
        "one `apply` (which first tries the action on a copy) and one `undo` (which copies the latest "
        "checkpoint, kept every 25 actions, and replays the actions since) "
        "measured on the same games.",
        "",
        "| game | actions | replay s (median) | actions/s | apply ms (median) | undo ms (median) |",
        "|---|---|---|---|---|---|",
    ]
    for path in files:
        export = load_export(path)
        actions = effective_actions(export["actions"])
        times = []
        for _ in range(RUNS):
            start = time.perf_counter()
            game = game_for_export(export)
            for action in actions:
                game._process(action)
            times.append(time.perf_counter() - start)
        replay = statistics.median(times)
        half = len(actions) // 2
        game = game_for_export(export)
        for action in actions[:half]:
            game._process(action)
        game.keep_checkpoints()  # as the table service does
        applies, undos = [], []
        for action in actions[half : half + 10]:
            start = time.perf_counter()
            game.apply(action)
            applies.append(time.perf_counter() - start)
        for _ in range(3):
            start = time.perf_counter()
            last = game.undo()
            undos.append(time.perf_counter() - start)
            game.apply(last)
        lines.append(
            f"| {path.parent.name}/{path.stem} | {len(actions)} | {replay:.3f} | {len(actions) / replay:.0f} | "
            f"{statistics.median(applies) * 1000:.1f} | {statistics.median(undos) * 1000:.0f} |"
        )
    lines.append("")
    return "\n".join(lines)
