"""Benchmark: camera tile recognition on simulated 1640×1232 photos of fixture board states, one
set of frames per board look (:mod:`vision.styles`), each reported separately."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import cv2

from companion.interop.replay import load_export
from companion.table.camera import export_board_states
from vision.board import BoardState
from vision.evaluate import fixture_paths, run_bench, summarise
from vision.styles import STYLES, TUNED

FRAMES = 40
#: frames for each other map title (fewer, to keep `make bench` short), on `ours` and on the untuned look
MAP_FRAMES = 24
MAP_FRAMES_UNTUNED = 12
#: the looks drawn by other painters than the recogniser's templates, each also measured on every
#: other map title (``print2`` was tuned on in the third round, ``offset`` from the round after its first
#: measurement, ``classic``, ``reprint`` and ``folio`` never)
OTHER_LOOKS = ("classic", "print2", "offset", "reprint", "folio")
SEED = 20261129  # never used by the tests


def bench_states(title: str, directory: Path | None = None) -> list[list[tuple[int, BoardState]]]:
    """The board states of the title's fixture games (:func:`vision.evaluate.fixture_paths`), one list
    per game, as the rules engine replays them (home tokens, mergers and removed tokens included)."""
    return [export_board_states(load_export(p)) for p in fixture_paths(title, directory)]


def _rows(summaries: dict[str, dict[str, Any]]) -> list[str]:
    def row(label: str, fmt: Any) -> str:
        return f"| {label} | " + " | ".join(fmt(s) for s in summaries.values()) + " |"

    return [
        "| figure | " + " | ".join(summaries) + " |",
        "|---|" + "---|" * len(summaries),
        row("used for tuning", lambda s: "yes" if s["style"] in TUNED else "**no**"),
        row("frames (registration failures)", lambda s: f"{s['frames']} ({s['registration_failures']})"),
        row("p50 / p95 seconds per frame", lambda s: f"{s['p50_seconds']:.3f} / {s['p95_seconds']:.3f}"),
        row("p95 processor seconds per frame", lambda s: f"{s['p95_cpu_seconds']:.3f}"),
        row("visible hexes", lambda s: str(s["hexes_visible"])),
        row(
            "hexes correct (tile number and rotation, or empty)", lambda s: f"{100 * s['hex_accuracy']:.2f} %"
        ),
        row('hexes reported "can\'t see" although visible', lambda s: f"{100 * s['cant_see_rate']:.2f} %"),
        row("hexes read wrongly", lambda s: str(s["wrong_hexes"])),
        row("laid tiles read right (number and rotation)", lambda s: f"{100 * s['rotation_accuracy']:.2f} %"),
        row("tile number right (visible tiles)", lambda s: f"{100 * s['tile_number_accuracy']:.2f} %"),
        row("false differences per frame", lambda s: f"{s['false_differences_per_frame']:.3f}"),
        row(
            "frames without a false difference",
            lambda s: f"{100 * s['frames_without_false_difference']:.1f} %",
        ),
        row(
            "real differences / missed where visible",
            lambda s: f"{s['real_differences']} / {s['missed_differences']}",
        ),
    ]


def map_titles() -> list[str]:
    """The titles the camera checks: every playable title with a map (the registry's ``has_map``)."""
    from companion.engine.titles import playable_titles, title_info

    return [t for t in playable_titles() if title_info(t).has_map]


def _title_rows(summaries: dict[str, dict[str, Any]]) -> list[str]:
    head = [
        "title",
        "frames",
        "visible hexes",
        "hexes correct",
        "can't see",
        "read wrongly",
        "laid tiles read right",
        "false differences per frame",
        "real differences / missed",
        "p95 s (processor / wall)",
    ]
    out = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for title, s in summaries.items():
        cells = [
            title,
            f"{s['frames']} ({s['registration_failures']} not registered)",
            str(s["hexes_visible"]),
            f"{100 * s['hex_accuracy']:.2f} %",
            f"{100 * s['cant_see_rate']:.2f} %",
            str(s["wrong_hexes"]),
            f"{100 * s['rotation_accuracy']:.2f} %",
            f"{s['false_differences_per_frame']:.3f}",
            f"{s['real_differences']} / {s['missed_differences']}",
            f"{s['p95_cpu_seconds']:.3f} / {s['p95_seconds']:.3f}",
        ]
        out.append("| " + " | ".join(cells) + " |")
    return out


def _summary(
    title: str, frames: int, style: str, states: list[list[tuple[int, BoardState]]]
) -> dict[str, Any]:
    return dict(summarise(list(run_bench(title, frames, SEED, style=style, states=states))), style=style)


def bench() -> str:
    # one core: pin the process and keep OpenCV single-threaded
    if hasattr(os, "sched_setaffinity"):
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    cv2.setNumThreads(1)
    summaries: dict[str, dict[str, Any]] = {}
    titles = map_titles()
    first, others = titles[0], titles[1:]
    try:
        states = bench_states(first)
        for style in STYLES:
            summaries[style] = _summary(first, FRAMES, style, states)
        per_title = {first: summaries["ours"]}
        untuned: dict[str, dict[str, dict[str, Any]]] = {look: {} for look in OTHER_LOOKS}
        for title in others:
            states = bench_states(title)
            per_title[title] = _summary(title, MAP_FRAMES, "ours", states)
            for look in OTHER_LOOKS:
                untuned[look][title] = _summary(title, MAP_FRAMES_UNTUNED, look, states)
    except FileNotFoundError as exc:
        return f"## Camera tile recognition\n\nNot run: {exc}\n"
    untuned_looks = ", ".join(s for s in STYLES if s not in TUNED)
    return (
        "## Camera tile recognition\n\n"
        f"`companion vision bench --title {first} --frames {FRAMES} --seed {SEED} --style STYLE` for each look "
        f"of `vision/styles`: simulated 1640×1232 photos of board states from the {first} fixture games (as "
        "the rules engine replays them) with "
        "perspective tilt up to 25°, lighting, shadows, glare, a hand or cards, blur, noise and JPEG, and 0–3 "
        "deliberate differences per frame; one core (process pinned, OpenCV single-threaded); time is marker "
        "detection to observations. `ours` is the renderer the recogniser's templates are drawn with; "
        f"looks not used for tuning: {untuned_looks}.\n\n"
        + "\n".join(_rows(summaries))
        + "\n\n### Every map\n\n"
        f"The same on every title with a map, on the `ours` look ({FRAMES} frames for {first}, {MAP_FRAMES} "
        f"for each other title to keep the run short; seed {SEED}): `companion vision bench --title TITLE "
        f"--frames {MAP_FRAMES} --seed {SEED}`. Board states from the title's real 18xx.games games in "
        "`tests/fixtures/18xx.games/TITLE`, else its random legal games in `tests/fixtures/random-games/TITLE`.\n\n"
        + "\n".join(_title_rows(per_title))
        + "".join(
            f"\n\nOn the look `{look}` ({'used for tuning' if look in TUNED else 'never used for tuning'}), "
            f"{MAP_FRAMES_UNTUNED} frames per title:\n\n" + "\n".join(_title_rows(untuned[look]))
            for look in OTHER_LOOKS
        )
        + "\n"
    )
