"""Benchmark: camera tile recognition on simulated 1640×1232 photos of fixture board states."""

from __future__ import annotations

import contextlib
import os

import cv2

from vision.evaluate import run_bench, summarise

FRAMES = 40
SEED = 20261129  # never used by the tests


def bench() -> str:
    # one core: pin the process and keep OpenCV single-threaded
    if hasattr(os, "sched_setaffinity"):
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    cv2.setNumThreads(1)
    try:
        reports = list(run_bench("1870", FRAMES, SEED))
    except FileNotFoundError as exc:
        return f"## Camera tile recognition\n\nNot run: {exc}\n"
    s = summarise(reports)
    return (
        "## Camera tile recognition\n\n"
        f"`companion vision bench --title 1870 --frames {FRAMES} --seed {SEED}`: simulated 1640×1232 photos of board "
        "states from the 1870 fixture games with perspective tilt up to 25°, lighting, shadows, glare, a hand or "
        "cards, blur, noise and JPEG, and 0–3 deliberate differences per frame; one core (process pinned, "
        "OpenCV single-threaded); time is marker detection to observations.\n\n"
        "| figure | value |\n|---|---|\n"
        f"| frames | {s['frames']} (registration failures {s['registration_failures']}) |\n"
        f"| p50 / p95 seconds per frame | {s['p50_seconds']:.3f} / {s['p95_seconds']:.3f} |\n"
        f"| visible hexes | {s['hexes_visible']} |\n"
        f"| hexes correct (tile number and rotation, or empty) | {100 * s['hex_accuracy']:.2f} % |\n"
        f'| hexes reported "can\'t see" although visible | {100 * s["cant_see_rate"]:.2f} % |\n'
        f"| hexes read wrongly | {s['wrong_hexes']} |\n"
        f"| tile number accuracy (visible tiles) | {100 * s['tile_number_accuracy']:.2f} % |\n"
        f"| rotation accuracy (visible tiles) | {100 * s['rotation_accuracy']:.2f} % |\n"
        f"| false differences per frame | {s['false_differences_per_frame']:.3f} |\n"
        f"| frames without a false difference | {100 * s['frames_without_false_difference']:.1f} % |\n"
        f"| real differences / missed where visible | {s['real_differences']} / {s['missed_differences']} |\n"
    )
