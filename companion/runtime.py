"""What a long-running table process does once its game is loaded.

Python's cyclic garbage collector runs after every 700 net allocations by default and then looks
at every tracked object; in a process that holds a whole game, a replayed log, Kivy's widgets and
the tag registry, such a pause (10–30 ms on this machine) lands in whatever the player is waiting
for: a preview of a tapped certificate, an apply on Confirm (docs/BENCHMARKS.md, "Part 3").  So,
once the game is loaded, :func:`settle_collector` moves everything alive into the collector's
permanent generation (``gc.freeze``: it is never looked at again) and lets the youngest generation
grow to :data:`TABLE_GC_THRESHOLD` allocations before a collection.  Memory is still freed by
reference counting as always; only cycles made before the freeze and dropped later are never
collected, which for objects loaded at start-up (title data, the map, the screens) is what they
are anyway: alive until the process ends.
"""

from __future__ import annotations

import gc

__all__ = ["TABLE_GC_THRESHOLD", "settle_collector"]

#: the youngest generation's collection threshold at the table (Python's default is 700)
TABLE_GC_THRESHOLD = 5000


def settle_collector() -> int:
    """Collect once, freeze what is alive and raise the first threshold; how many objects are frozen."""
    before = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(TABLE_GC_THRESHOLD, before[1], before[2])
    return gc.get_freeze_count()
