"""A sharp curve seen wide is not a town's bar.

On `cardboard` (dev seed 2002 frame 5, as `python -m devtools.vision_bench` photographs it) a 7 (a sharp curve)
lying three pixels off its hex fitted the 3's course (the same curve with a town) only obliquely: the
thin track measured 0.14-0.17 of a hex across its own stretches, and the ink beyond the track where the
3's bar would cross was that track. The 3's bar counted as seen and the 7 was read as a 3, a wrong
reading. On thin track a bar now also needs the ink at the town's place wider (``TOWN_WIDE``) than the
track along its own stretches (docs/VISION-PRINT-READER.md, round vbar)."""

from __future__ import annotations

from tests.vision_support import read_dev_hex


def test_a_cardboard_sharp_curve_seen_wide_is_not_a_3() -> None:
    seen = read_dev_hex("cardboard", 2002, 5, "K2", ("7", 4))
    assert seen.status == "unseen" or seen.placed == ("7", 4), seen
