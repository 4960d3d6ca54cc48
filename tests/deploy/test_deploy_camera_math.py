"""hardware/camera_math.py: the camera height table of hardware/CAMERA.md."""

from __future__ import annotations

import importlib.util
import math
import sys
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.paths import ROOT

REPO = ROOT


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("camera_math", REPO / "hardware" / "camera_math.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["camera_math"] = module
    spec.loader.exec_module(module)
    return module


cm = _load()


def test_1870_hex_grid_extent_from_title_data() -> None:
    width, height = cm.hex_extent("1870")
    assert width == pytest.approx(11.5)  # columns 1..22, pointy
    assert height == pytest.approx(14 * math.sqrt(3) / 2 + 2 / math.sqrt(3))  # rows A..O
    # a flat title swaps the roles of letters and numbers
    fw, fh = cm.hex_extent("1867")
    assert fw > 0 and fh > 0


def test_field_of_view_of_the_wide_lens() -> None:
    # 16:9 output sees the whole sensor: 2·d·tan(51°) by 2·d·tan(33.5°)
    w, h = cm.field_mm(1000.0, (2304, 1296))
    assert w == pytest.approx(2000 * math.tan(math.radians(51)))
    assert h == pytest.approx(2000 * math.tan(math.radians(33.5)))
    # 1640x1232 (about 4:3) is a centred crop: about 3/4 of the width, all of the height
    w43, h43 = cm.field_mm(1000.0, (1640, 1232))
    assert w43 == pytest.approx(w * (1640 / 1232) / (16 / 9))
    assert w43 == pytest.approx(w * 0.75, rel=2e-3)
    assert h43 == pytest.approx(h)
    assert cm.field_mm(1000.0, (4608, 2592)) == pytest.approx((w, h))


def test_min_height_sees_the_area_with_the_spare() -> None:
    area = cm.board_area_mm("1870", 38.0, 1.6)
    # long side first: the 1870 grid is taller (13.28 hex widths) than wide (11.5)
    assert area == pytest.approx(((cm.hex_extent("1870")[1] + 3.2) * 38, (11.5 + 3.2) * 38))
    for mode in cm.MODES:
        d = cm.min_height_mm(area, mode)
        w, h = cm.field_mm(d, mode)
        assert w >= area[0] * 1.1 - 1e-6 and h >= area[1] * 1.1 - 1e-6
        assert min(w / area[0], h / area[1]) == pytest.approx(1.1)  # not higher than needed
    assert round(cm.min_height_mm(area, (1640, 1232)) / 10) == 46


@given(d1=st.floats(100, 3000), d2=st.floats(100, 3000), hex_mm=st.floats(20, 60))
def test_pixels_per_hex_fall_with_height(d1: float, d2: float, hex_mm: float) -> None:
    for mode in cm.MODES:
        p1, p2 = cm.px_per_hex(d1, mode, hex_mm), cm.px_per_hex(d2, mode, hex_mm)
        assert p1 * d1 == pytest.approx(p2 * d2)  # inversely proportional
        if d1 < d2:
            assert p1 > p2


def test_camera_doc_table_is_what_the_helper_computes() -> None:
    doc = (REPO / "hardware" / "CAMERA.md").read_text(encoding="utf-8")
    assert cm.markdown_table() in doc
    assert "d_min = 46 cm" in doc


def test_cli_prints_summary_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert cm.main(["--hex-mm", "41", "--heights", "60,80", "--area-cm", "86x60"]) == 0
    out = capsys.readouterr().out
    assert "area to see (given): 86.0 × 60.0 cm" in out
    assert "| 60 cm |" in out and "| 80 cm |" in out
