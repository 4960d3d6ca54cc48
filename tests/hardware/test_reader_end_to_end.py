"""Property: firmware app -> lossy/duplicating/corrupting line -> host Session.

Random placements on random pads go through the real firmware logic; the
channel repeats, damages and drops lines at random.  Without loss the host must
report exactly the real taps; with loss, what it reports per pad must still be
real taps, in order, none twice.
"""

from __future__ import annotations

import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.hardware.events import TagEvent, TagRemoved
from companion.hardware.protocol import Session
from tests.support.paths import ROOT

FIRMWARE = ROOT / "firmware"
sys.path.insert(0, str(FIRMWARE))

import reader_app  # noqa: E402

UIDS = ["04A1B2C3D4E5F6", "11223344", "0411223344556677889A"]
PADS = 3


class Pad:
    """A reader whose answer is whatever tag the test put on it."""

    def __init__(self) -> None:
        self.uid: bytes | None = None

    def read_uid(self) -> bytes | None:
        return self.uid


actions = st.lists(
    st.tuples(st.integers(0, PADS - 1), st.sampled_from([None, *UIDS])), min_size=1, max_size=25
)
channel = st.lists(
    st.sampled_from(["ok", "ok", "ok", "repeat", "corrupt", "drop"]), min_size=200, max_size=200
)


def run(
    steps: list[tuple[int, str | None]], ops: list[str], lossy: bool
) -> tuple[list[object], list[list[str]]]:
    pads = [Pad() for _ in range(PADS)]
    out: list[str] = []
    clock = [0]
    app = reader_app.ReaderApp(pads, out.append, lambda: clock[0], 0xFEED, heartbeat_ms=400)
    app.start()
    truth: list[list[str]] = [[] for _ in range(PADS)]
    for pad, uid in steps:
        current = pads[pad].uid
        new = bytes.fromhex(uid) if uid is not None else None
        if new != current:
            pads[pad].uid = new
            if new is not None:
                truth[pad].append(uid)  # type: ignore[arg-type]
        for _ in range(4):  # long enough for the debouncer to settle
            clock[0] += 50
            app.poll()
    for _ in range(10):  # a couple of heartbeats at the end
        clock[0] += 100
        app.poll()
    session = Session()
    got: list[object] = []
    sent: list[str] = []
    for i, line in enumerate(out):
        op = ops[i % len(ops)] if lossy else ("repeat" if ops[i % len(ops)] == "repeat" else "ok")
        if i >= len(out) - 3:
            op = "ok"  # the last heartbeats arrive
        if op == "drop":
            continue
        data = line.encode()
        if op == "corrupt":
            data = data[:10] + bytes([data[10] ^ 0x20]) + data[11:]
        got += session.feed(data)
        sent.append(line)
        if op == "repeat":
            got += session.feed(sent[max(0, len(sent) - 4)].encode())
    return [e for e in got if isinstance(e, TagEvent | TagRemoved)], truth


@settings(max_examples=150, deadline=None)
@given(actions, channel)
def test_repeats_never_change_what_the_host_reports(
    steps: list[tuple[int, str | None]], ops: list[str]
) -> None:
    events, truth = run(steps, ops, lossy=False)
    for pad in range(PADS):
        assert [e.uid for e in events if isinstance(e, TagEvent) and e.reader == pad] == truth[pad]
    # Every tap is followed by its removal before the next tap on that pad.
    for pad in range(PADS):
        seq = [(type(e), e.uid) for e in events if e.reader == pad]
        for a, b in zip(seq, seq[1:], strict=False):
            assert a[0] is not b[0]


@settings(max_examples=200, deadline=None)
@given(actions, channel)
def test_lost_and_damaged_lines_never_invent_or_double_a_tap(
    steps: list[tuple[int, str | None]], ops: list[str]
) -> None:
    events, truth = run(steps, ops, lossy=True)
    for pad in range(PADS):
        reported = [e.uid for e in events if isinstance(e, TagEvent) and e.reader == pad]
        # `reported` must be a subsequence of the real placements on that pad.
        it = iter(truth[pad])
        assert all(any(uid == real for real in it) for uid in reported), (reported, truth[pad])
    # The final heartbeats put the host's idea of every pad right.
    final: dict[int, str | None] = {}
    for e in events:
        final[e.reader] = e.uid if isinstance(e, TagEvent) else None
    for pad in range(PADS):
        last = truth[pad][-1] if truth[pad] else None
        on_pad = steps_final_state(steps, pad)
        assert final.get(pad) == on_pad, (pad, last)


def steps_final_state(steps: list[tuple[int, str | None]], pad: int) -> str | None:
    state: str | None = None
    for p, uid in steps:
        if p == pad:
            state = uid
    return state
