"""Benchmark: the route optimiser over every run of the fixture games of each playable title."""

from __future__ import annotations

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
    lines.append("")
    return "\n".join(lines)
