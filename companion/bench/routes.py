"""Benchmark: the route optimiser over every run of the 1870 fixture games."""

from __future__ import annotations

from pathlib import Path

from companion.commands.routes import bench_files, percentile

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "18xx.games" / "1870"


def bench() -> str:
    files = sorted(FIXTURES.glob("*.json"))
    if not files:
        return f"## Route optimiser\n\nNo 1870 fixtures found at `{FIXTURES}`.\n"
    results = bench_files(files)
    secs = [r.seconds for r in results]
    ge = sum(1 for r in results if r.best >= r.played)
    gt = sum(1 for r in results if r.best > r.played)
    optimal = sum(1 for r in results if r.optimal)
    lines = [
        "## Route optimiser",
        "",
        f"Best routes for the operating corporation before every `run_routes` of the {len(files)} 1870 "
        "fixture games (state restored by the engine's own replay), one core, one run.",
        "",
        "| states | proven optimal | best ≥ played | best > played | p50 s | p95 s | max s |",
        "|---|---|---|---|---|---|---|",
        f"| {len(results)} | {optimal} | {ge} | {gt} | {percentile(secs, 0.5):.4f} "
        f"| {percentile(secs, 0.95):.4f} | {max(secs, default=0.0):.4f} |",
        "",
    ]
    return "\n".join(lines)
