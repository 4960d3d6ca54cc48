"""Benchmark: the route optimiser over every run of the fixture games of each playable title."""

from __future__ import annotations

import random
import time
from pathlib import Path

from companion.commands.routes import bench_files, percentile

ROOT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "18xx.games"
TITLES = ("1870", "1867", "1861")


def bench() -> str:
    lines = [
        "## Route optimiser",
        "",
        "Best routes for the operating corporation before every `run_routes` of the fixture games "
        "(state restored by the engine's own replay), one core, one run.",
        "",
        "| title | games | states | proven optimal | best ≥ played | best > played | p50 s | p95 s | max s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for title in TITLES:
        files = sorted((ROOT / title).glob("*.json"))
        if not files:
            lines.append(f"| {title} | 0 | no fixtures found at `{ROOT / title}` | | | | | | |")
            continue
        results = bench_files(files)
        secs = [r.seconds for r in results]
        ge = sum(1 for r in results if r.best >= r.played)
        gt = sum(1 for r in results if r.best > r.played)
        optimal = sum(1 for r in results if r.optimal)
        lines.append(
            f"| {title} | {len(files)} | {len(results)} | {optimal} | {ge} | {gt} | {percentile(secs, 0.5):.4f} "
            f"| {percentile(secs, 0.95):.4f} | {max(secs, default=0.0):.4f} |"
        )
    lines += ["", *bench_1833ne()]
    lines.append("")
    return "\n".join(lines)


#: the random 1833NE games whose states are timed: (seed, players, optional rules)
RANDOM_1833NE = ((0, 4, ()), (1, 3, ()), (2, 5, ()), (3, 4, ("takeover_game",)))


def bench_1833ne(max_actions: int = 4000) -> list[str]:
    """1833NE has no games on 18xx.games: the optimiser is timed before every ``run_routes`` of a
    few random games (played by ``tests/g1833ne_random.py``, the property tests' player)."""
    try:
        from tests.g1833ne_random import random_action
    except ImportError:  # an installed package without the repository's tests
        return ["1833NE: the random games' player (`tests/g1833ne_random.py`) is not here; not run."]
    from companion.engine import new_game
    from companion.engine.entities import Corporation
    from companion.engine.titles.g1833ne import Game1833NE

    secs: list[float] = []
    optimal = 0
    for seed, players, rules in RANDOM_1833NE:
        rng = random.Random(seed)
        game = new_game("1833NE", [(i + 1, f"P{i + 1}") for i in range(players)], frozenset(rules), seed)
        assert isinstance(game, Game1833NE)
        for _ in range(max_actions):
            if game.finished:
                break
            if "run_routes" in game.legal_action_types():
                corp = game.round.current_entity()
                assert isinstance(corp, Corporation)
                start = time.perf_counter()
                result = game.suggest_routes(corp)
                secs.append(time.perf_counter() - start)
                optimal += result.optimal
            game.apply(random_action(game, rng))
    return [
        "1833NE, before every `run_routes` of random games (seeds, player counts and rules in "
        "`RANDOM_1833NE`; the Takeover variant in one):",
        "",
        "| title | games | states | proven optimal | p50 s | p95 s | max s |",
        "|---|---|---|---|---|---|---|",
        f"| 1833NE | {len(RANDOM_1833NE)} | {len(secs)} | {optimal} | {percentile(secs, 0.5):.4f} "
        f"| {percentile(secs, 0.95):.4f} | {max(secs, default=0.0):.4f} |",
    ]
