"""The recogniser's fast paths (round vspeed) give exactly the numbers of the plain computations they
replace: every one is held to that plain statement here, bit for bit, so a faster path never reads
a hex differently."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.board import title_tile_shapes
from vision.finematch import (
    FINE_PATCH,
    FINE_SCALE,
    _pair_margin,
    channel_max,
    channel_min,
    channel_sum,
    mean_of,
    median,
    outline_points,
)
from vision.structure import (
    PROFILE_SPAN,
    PROFILE_STEP,
    SHIFTS,
    PrintReader,
    _run_widths,
)

seeds = st.integers(min_value=0, max_value=2**32 - 1)


@pytest.fixture(scope="module")
def reader() -> PrintReader:
    return PrintReader("pointy", title_tile_shapes("1870"))


def _widest_run_reference(prof: np.ndarray, mid: int) -> int:
    """The widest run of ink through the centre row by row, as it was measured before round vspeed."""
    best = 0
    for row in prof:
        hits = np.flatnonzero(row[mid - 5 : mid + 6])
        if not hits.size:
            continue
        k = mid - 5 + int(hits[0])
        gaps_left = np.flatnonzero(~row[:k])
        gaps_right = np.flatnonzero(~row[k:])
        lo = int(gaps_left[-1]) + 1 if gaps_left.size else 0
        hi = k + int(gaps_right[0]) - 1 if gaps_right.size else len(row) - 1
        best = max(best, hi - lo + 1)
    return best


@settings(max_examples=300, deadline=None)
@given(seed=seeds, rows=st.integers(1, 6), share=st.floats(0.0, 1.0))
def test_widest_run_is_the_row_by_row_run(seed: int, rows: int, share: float) -> None:
    rng = np.random.default_rng(seed)
    size = int(rng.integers(11, 200))
    prof = rng.random((rows, size)) < share
    mid = size // 2
    per_row = _run_widths(prof, mid)
    assert int(per_row.max()) == _widest_run_reference(prof, mid)
    assert [int(w) for w in per_row] == [_widest_run_reference(prof[r : r + 1], mid) for r in range(rows)]


def _width_across_reference(
    ink: np.ndarray, point: tuple[float, float], tangent: tuple[float, float], shift: tuple[int, int]
) -> float:
    """The ink's width across the track as it was measured before round vspeed: one remap per point."""
    c = (FINE_PATCH - 1) / 2
    lateral = np.arange(-PROFILE_SPAN, PROFILE_SPAN + 1e-6, PROFILE_STEP, dtype=np.float32)
    along = np.array([-0.025, 0.0, 0.025], np.float32)
    tx, ty = tangent
    xs = (point[0] + along[:, None] * tx - lateral[None, :] * ty) * FINE_SCALE + c - shift[1]
    ys = (point[1] + along[:, None] * ty + lateral[None, :] * tx) * FINE_SCALE + c - shift[0]
    prof = cv2.remap(ink, xs.astype(np.float32), ys.astype(np.float32), cv2.INTER_LINEAR) >= 0.5
    return _widest_run_reference(prof, len(lateral) // 2) * PROFILE_STEP


@settings(max_examples=60, deadline=None)
@given(seed=seeds)
def test_widths_across_at_once_are_each_places_width(reader: PrintReader, seed: int) -> None:
    rng = np.random.default_rng(seed)
    # a blurred ink map with lines and blobs of every width
    ink = cv2.GaussianBlur((rng.random((FINE_PATCH, FINE_PATCH)) < 0.3).astype(np.float32), (0, 0), 1.5)
    ink = np.clip(ink * 2.5, 0, 1).astype(np.float32)
    places = []
    for _ in range(int(rng.integers(1, 6))):
        a = float(rng.uniform(0, 2 * math.pi))
        point = (float(rng.uniform(-0.3, 0.3)), float(rng.uniform(-0.3, 0.3)))
        places.append((point, (math.cos(a), math.sin(a))))
    shift = (int(rng.integers(-1, 2)), int(rng.integers(-1, 2)))
    want = [_width_across_reference(ink, p, t, shift) for p, t in places]
    assert reader._widths_across(ink, places, shift) == want
    assert [reader._widths_across(ink, [(p, t)], shift)[0] for p, t in places] == want


def test_maps_moved_by_every_shift_at_once_are_np_roll(reader: PrintReader) -> None:
    rng = np.random.default_rng(7)
    for a in (
        rng.random((FINE_PATCH, FINE_PATCH)).astype(np.float32),
        rng.random((FINE_PATCH, FINE_PATCH)) < 0.4,
    ):
        moved = np.take(a, reader._shift_index)
        assert moved.shape == (len(SHIFTS), FINE_PATCH, FINE_PATCH)
        for k, shift in enumerate(SHIFTS):
            assert np.array_equal(moved[k], np.roll(a, shift, (0, 1)))


@settings(max_examples=300, deadline=None)
@given(seed=seeds, size=st.integers(1, 3000), rounded=st.booleans())
def test_median_is_np_median(seed: int, size: int, rounded: bool) -> None:
    values = np.random.default_rng(seed).normal(size=size)
    if rounded:  # many equal values
        values = np.round(values, 1)
    assert median(values) == float(np.median(values))


@settings(max_examples=300, deadline=None)
@given(seed=seeds, size=st.integers(1, 3000))
def test_mean_of_is_mean(seed: int, size: int) -> None:
    rng = np.random.default_rng(seed)
    floats = (rng.random(size) * rng.random()).astype(np.float32)
    flags = rng.random(size) < rng.random()
    assert mean_of(floats) == float(floats.mean())
    assert mean_of(flags) == float(flags.mean())


def test_channel_reductions_are_numpys() -> None:
    rng = np.random.default_rng(11)
    values = (rng.random((40, 300, 3)) * 300).astype(np.float32)
    assert np.array_equal(channel_sum(values), values.sum(-1))
    assert np.array_equal(channel_min(values), values.min(-1))
    assert np.array_equal(channel_max(values), values.max(-1))


@settings(max_examples=200, deadline=None)
@given(seed=seeds)
def test_pair_margin_from_squares_is_the_margin_of_the_residuals(seed: int) -> None:
    rng = np.random.default_rng(seed)
    d = 1496
    ta, tb = rng.normal(size=(2, d)).astype(np.float32)
    ra, rb = (rng.normal(size=(2, d)) * 10).astype(np.float32)
    ma, mb = (rng.random((2, d)) < 0.9).astype(np.float32)
    region = (np.abs(ta - tb) > 0.6) & (ma > 0) & (mb > 0)
    ea, eb = float((ra[region] ** 2).mean()), float((rb[region] ** 2).mean())
    want = (eb - ea) / max(ea + eb, 1e-3) if int(region.sum()) >= 6 else 0.0
    assert _pair_margin(ta, tb, ra * ra, rb * rb, ma > 0, mb > 0) == want


def test_outline_points_are_made_once_and_read_only() -> None:
    line, inner = outline_points("pointy")
    assert outline_points("pointy")[0] is line
    assert line.shape == inner.shape == (6, 9, 2)
    with pytest.raises(ValueError):
        line[0, 0, 0] = 0.0
