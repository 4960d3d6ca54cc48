"""Benchmark: replaying every fixture game of every playable title through the engine, and the cost
of one ``apply``, ``preview`` and ``undo`` on the largest 1870 game.

CPU seconds (``time.process_time``) in this process, medians of repeated runs: the machine may be
shared, and wall-clock time would count the other programs too.  The 18xx.games Ruby engine's CPU
time for the same games is read from ``$COMPANION_RUBY_TIMES`` (a JSON object: fixture name →
seconds, measured by hand as docs/BENCHMARKS.md describes); without it the figures quoted by
issue 17 are the anchor.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from companion.interop.actions import effective_actions
from companion.interop.replay import game_for_export, load_export
from companion.runtime import TABLE_GC_THRESHOLD, settle_collector
from companion.titles import DEFAULT_TITLE, playable_titles

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "18xx.games"
RUNS = 3
#: actions of the largest game timed one by one for apply / preview / undo (enough for a p95 that is
#: not one outlier: the 95th of a hundred)
SAMPLE = 100
#: the Ruby engine's CPU seconds (in-process, median of 3) quoted by issue 17, measured on this kind
#: of machine side by side with ours: the anchor when no local measurement is given
RUBY_ANCHOR = {"1870_game_end_bank": 0.54, "game-end-market-400": 0.44, "34110": 0.18}


def ruby_times() -> tuple[dict[str, float], str]:
    """Fixture name → the Ruby engine's CPU seconds, and where they come from."""
    path = os.environ.get("COMPANION_RUBY_TIMES")
    if path:
        data = json.loads(Path(path).read_text())
        return {str(k): float(v) for k, v in data.items()}, f"measured locally (`{path}`)"
    return dict(RUBY_ANCHOR), "issue 17's figures (no local measurement given)"


def replay_seconds(export: dict[str, Any], actions: list[dict[str, Any]], runs: int = RUNS) -> float:
    """Median CPU seconds of a whole replay (a new game, every action)."""
    times = []
    for _ in range(runs):
        start = time.process_time()
        game = game_for_export(export)
        for action in actions:
            game.replay_action(action)
        times.append(time.process_time() - start)
    return statistics.median(times)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


#: the cyclic garbage collector's first threshold in the "collector tuned" timing: what the table
#: process sets after loading its game (companion.runtime.settle_collector)
TUNED_GC_THRESHOLD = TABLE_GC_THRESHOLD


@contextlib.contextmanager
def tuned_collector() -> Iterator[None]:
    """For the block: everything alive now frozen out of the collector's sight (``gc.freeze``) and
    its first generation collected every ``TUNED_GC_THRESHOLD`` allocations; put back after."""
    before = gc.get_threshold()
    settle_collector()
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


def action_costs(
    export: dict[str, Any], actions: list[dict[str, Any]], *, tuned: bool = False
) -> dict[str, list[float]]:
    """CPU seconds of ``preview``, ``apply`` (without a preview: a snapshot, then the action) and
    ``undo`` (then the action is applied again, not timed) for ``SAMPLE`` actions from the middle
    of a game kept with checkpoints, as the table service keeps it; ``tuned``: with the game loaded
    first, then timed inside :func:`tuned_collector`."""
    half = len(actions) // 2
    game = game_for_export(export)
    for action in actions[:half]:
        game.replay_action(action)
    game.keep_checkpoints()
    with tuned_collector() if tuned else contextlib.nullcontext():
        return _time_actions(game, actions[half : half + SAMPLE])


def _time_actions(game: Any, actions: list[dict[str, Any]]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"preview": [], "apply": [], "undo": []}
    for action in actions:
        start = time.process_time()
        game.preview(action)
        out["preview"].append(time.process_time() - start)
        start = time.process_time()
        game.apply(action)
        out["apply"].append(time.process_time() - start)
        start = time.process_time()
        last = game.undo()
        out["undo"].append(time.process_time() - start)
        game.apply(last)
    return out


def bench() -> str:
    ruby, source = ruby_times()
    lines = [
        "## Engine replay",
        "",
        f"Every fixture game of every playable title replayed {RUNS} times through the engine in this "
        "process: CPU seconds (`time.process_time`), medians. The 18xx.games Ruby engine's CPU time for "
        f"the same game: {source}; the goal (issue 17) is a ratio of at most 0.5.",
        "",
        "| title | game | actions | our CPU s | actions/s | Ruby CPU s | ours / Ruby |",
        "|---|---|---|---|---|---|---|",
    ]
    largest: tuple[int, Path] | None = None
    for title in playable_titles():
        for path in sorted((FIXTURES / title).glob("*.json")):
            export = load_export(path)
            actions = effective_actions(export["actions"])
            seconds = replay_seconds(export, actions)
            theirs = ruby.get(path.stem)
            ratio = f"{seconds / theirs:.2f}" if theirs else "–"
            lines.append(
                f"| {title} | {path.stem} | {len(actions)} | {seconds:.3f} | {len(actions) / seconds:.0f} | "
                f"{f'{theirs:.2f}' if theirs else '–'} | {ratio} |"
            )
            if title == DEFAULT_TITLE and (largest is None or len(actions) > largest[0]):
                largest = (len(actions), path)
    lines.append("")
    if largest is None:
        lines.append(f"No {DEFAULT_TITLE} fixtures found at `{FIXTURES / DEFAULT_TITLE}`.")
        return "\n".join(lines) + "\n"
    export = load_export(largest[1])
    recorded = effective_actions(export["actions"])
    costs = action_costs(export, recorded)
    tuned = action_costs(export, recorded, tuned=True)
    lines += [
        f"One action at a time on the largest {DEFAULT_TITLE} game ({largest[1].stem}), {SAMPLE} actions from its "
        "middle, CPU milliseconds, the game kept with checkpoints as at the table: `preview` (tries the "
        "action on the game and puts back the snapshot taken before), `apply` without a preview (a "
        "snapshot, then the action; the snapshot is kept for an undo), `undo` (puts back that "
        "snapshot). Goals (issue 17): apply and preview p95 ≤ 2 ms, undo p95 ≤ 5 ms. The last two "
        "columns: the same with the garbage collector settled as the table process settles it after "
        f"loading its game (`companion.runtime.settle_collector`: `gc.freeze()`, first threshold "
        f"{TUNED_GC_THRESHOLD}; `companion run` and `companion table` do).",
        "",
        "| operation | median ms | p95 ms | collector tuned: median ms | p95 ms |",
        "|---|---|---|---|---|",
    ]
    for name, values in costs.items():
        lines.append(
            f"| {name} | {statistics.median(values) * 1000:.1f} | {p95(values) * 1000:.1f} | "
            f"{statistics.median(tuned[name]) * 1000:.1f} | {p95(tuned[name]) * 1000:.1f} |"
        )
    lines.append("")
    return "\n".join(lines)
