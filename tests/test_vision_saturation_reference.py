"""The tile's own saturation is also measured beside its track, not only over the whole hex.

The print reader counts a pixel as the tile's colour where it has the tile's hue and at least 0.75 of
the print's saturation. That saturation was the mean over the hex's pixels of the tile's hue, which
whatever lies over part of the hex drags: on `print2` (dev seed 3003 frame 6, as `python -m devtools.vision_bench`
photographs it) glare over one exit of a 63 (six exits) lowered it so far that the washed-out exit passed
as the bare tile, and the 63 was read as a 170 (five exits): a false difference. The reference is now
at least the median saturation of the tile's hue right beside the dark print (its track, its outlines),
where the tile itself shows (docs/VISION-PRINT-READER.md, round vsat)."""

from __future__ import annotations

from tests.vision_support import read_dev_hex


def test_glare_over_an_exit_is_not_the_bare_tile() -> None:
    seen = read_dev_hex("print2", 3003, 6, "M20", ("63", 0))
    assert seen.status == "unseen" or seen.placed == ("63", 0), seen
