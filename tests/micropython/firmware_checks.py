# The reader firmware's logic checked under MicroPython (and CPython): the
# drivers (mfrc522, pn532, iso14443a), presence, nfcproto and reader_app run
# against fakehw.py exactly as the CPython tests drive them, so a construct
# that only CPython has (a keyword it lacks, bytes.hex, zip(strict=...), ...)
# fails here instead of on the board.
#
# Plain Python in the firmware's own style (no typing, no f-strings) so that
# the same file runs under both.  run() prints "ok NAME" or "FAIL NAME: why"
# for each check and a last line "checks: P passed, F failed".
# tests/hardware/test_firmware_micropython.py runs it under MicroPython (the official
# WebAssembly port, tests/micropython/run.mjs under Node) and under CPython.

import fakehw
import iso14443a
import mfrc522
import nfcproto
import pn532
import presence
import reader_app

UID4 = bytes([0x11, 0x22, 0x33, 0x44])
UID7 = bytes([0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6])
UID10 = bytes([0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99])


class Failed(Exception):
    pass


def expect(condition, what):
    if not condition:
        raise Failed(what)


def equal(got, wanted, what):
    if got != wanted:
        raise Failed(what + ": got " + repr(got) + ", wanted " + repr(wanted))


def raises(kind, text, call, *args):
    try:
        call(*args)
    except kind as exc:
        expect(text in str(exc), "the error names " + repr(text) + ": " + repr(exc))
        return
    raise Failed("no " + kind.__name__ + " raised")


def make_readers(n):
    spi, pins, chips = fakehw.build_bus(n)
    readers = [mfrc522.MFRC522(spi, cs) for cs in pins]
    for r in readers:
        r.init()
    return readers, chips


class Clock:
    def __init__(self):
        self.t = 0

    def __call__(self):
        return self.t


def lcg(seed):
    """Deterministic pseudo-random bytes (MicroPython's random differs from CPython's)."""
    state = [seed]

    def take(n):
        out = bytearray()
        for _ in range(n):
            state[0] = (state[0] * 1103515245 + 12345) & 0x7FFFFFFF
            out.append((state[0] >> 16) & 0xFF)
        return bytes(out)

    return take


# -- ISO 14443A and the MFRC522 driver ------------------------------------------


def check_crc_a():
    equal(iso14443a.crc_a(b"\x50\x00"), b"\x57\xcd", "CRC_A of HLTA")


def check_cascade_levels():
    for uid in (UID4, UID7, UID10):
        (reader,), (chip,) = make_readers(1)
        chip.cards.append(fakehw.FakeCard(uid))
        equal(reader.read_uid(), uid, "UID read over the cascade levels")
        equal(reader.read_uid(), uid, "a resting card answers every poll")
        equal(chip.cards[0].state, "halt", "the card is halted after a read")


def check_bad_bcc_and_missing_chip():
    (reader,), (chip,) = make_readers(1)
    chip.cards.append(fakehw.FakeCard(UID7, bad_bcc=True))
    raises(iso14443a.CardError, "bcc", reader.read_uid)
    (reader,), _ = make_readers(1)
    equal(reader.read_uid(), None, "no card")
    spi, _pins, _chips = fakehw.build_bus(0)
    raises(mfrc522.ReaderMissing, "", mfrc522.MFRC522(spi, fakehw.FakePin()).init)


def check_chip_selects():
    readers, chips = make_readers(4)
    chips[2].cards.append(fakehw.FakeCard(UID7))
    equal(readers[2].read_uid(), UID7, "the card on pad 2")
    equal([readers[i].read_uid() for i in (0, 1, 3)], [None, None, None], "the other pads")


def check_anticollision():
    take = lcg(20261207)
    for _round in range(25):
        uids = []
        while len(uids) < 1 + _round % 4:
            uid = take(7)
            if uid[0] != iso14443a.CASCADE_TAG and uid not in uids:
                uids.append(uid)
        (reader,), (chip,) = make_readers(1)
        for uid in uids:
            chip.cards.append(fakehw.FakeCard(uid))
        seen = []
        while chip.cards:
            got = reader.read_uid()
            expect(got in uids and got not in seen, "each card once: " + repr(got))
            seen.append(got)
            chip.cards = [c for c in chip.cards if c.uid != got]
            for c in chip.cards:
                c.state = "idle"
        equal(len(seen), len(uids), "every card reached")


# -- PN532 ----------------------------------------------------------------------


def make_pn532():
    spi = fakehw.FakeSPI()
    cs = fakehw.FakePin()
    chip = fakehw.FakePN532()
    spi.attach(cs, chip)
    return pn532.PN532(spi, cs), chip


def check_pn532():
    equal(bytes(pn532.reverse_bits(b"\x01\x80\x02\xf0")), b"\x80\x01\x40\x0f", "bit reversal")
    take = lcg(41)
    for n in range(0, 40, 7):
        data = take(n)
        frame = bytearray(pn532.build_frame(0x4A, data))
        frame[5] = 0xD5
        frame[6] = 0x4B
        frame[5 + frame[3]] = (-sum(frame[5 : 5 + frame[3]])) & 0xFF
        equal(pn532.parse_frame(bytes(frame), 0x4A), data, "frame round trip")
    reader, chip = make_pn532()
    equal(reader.init(), 0x01, "PN532 firmware answer")
    equal(reader.read_uid(), None, "no card")
    chip.cards.append(UID7)
    equal(reader.read_uid(), UID7, "PN532 UID")
    chip.corrupt_next = True
    raises(iso14443a.CardError, "frame", reader.read_uid)
    equal(reader.read_uid(), UID7, "read again after a damaged frame")
    raises(mfrc522.ReaderMissing, "", pn532.PN532(fakehw.FakeSPI(), fakehw.FakePin(), ready_polls=5).init)


# -- presence -------------------------------------------------------------------


def check_presence():
    p = presence.Presence(miss_limit=3)
    events = []
    for uid in [UID7] * 20 + [None] + [UID7] * 5 + [None, None] + [UID7] * 5 + [None] * 8:
        events += p.update(uid)
    equal(events, [("tag", UID7), ("removed", UID7)], "a card lying there is one tap")
    p = presence.Presence()
    events = []
    for uid in [UID7] * 3 + [UID4] * 3:
        events += p.update(uid)
    equal(events, [("tag", UID7), ("removed", UID7), ("tag", UID4)], "swapping tags")
    p = presence.Presence(confirm=2)
    equal(
        [p.update(UID7), p.update(None), p.update(UID7), p.update(UID7)],
        [[], [], [], [("tag", UID7)]],
        "confirm",
    )


# -- nfcproto -------------------------------------------------------------------


def check_nfcproto():
    equal(nfcproto.crc16(b"123456789"), 0x29B1, "CRC-16/CCITT-FALSE check value")
    equal(nfcproto.hexstr(UID7), "04A1B2C3D4E5F6", "hexstr")
    line = nfcproto.encode_event(0xC0FFEE01, 5, "tag", [("r", 1), ("uid", nfcproto.hexstr(UID7))])
    equal(nfcproto.parse_event(line), (0xC0FFEE01, 5, "tag", {"r": "1", "uid": "04A1B2C3D4E5F6"}), "event")
    command = nfcproto.encode_command(7, "beep", [("ms", 80)])
    equal(nfcproto.parse_command(command.rstrip("\n")), (7, "beep", {"ms": "80"}), "command")
    damaged = bytearray(command.encode())
    damaged[3] ^= 1
    raises(nfcproto.LineError, "crc", nfcproto.parse_command, bytes(damaged).decode().rstrip("\n"))
    buf = nfcproto.LineBuffer()
    equal(buf.feed(b"ab\r\ncd"), [b"ab"], "a line")
    equal(buf.feed(b"x" * 300 + b"\nef\n"), [None, b"ef"], "an over-long line is dropped")


# -- the device app -------------------------------------------------------------


def make_app(n, **kw):
    readers, chips = make_readers(n)
    out = []
    clock = Clock()
    app = reader_app.ReaderApp(readers, out.append, clock, 0xC0FFEE01, **kw)
    return app, chips, out, clock


def check_app_taps_and_heartbeat():
    app, chips, out, clock = make_app(2)
    app.start()
    chips[1].cards.append(fakehw.FakeCard(UID7))
    for i in range(40):
        clock.t += 50
        if i == 10:
            chips[1].misses = 1
        app.poll()
    chips[1].cards.clear()
    for _ in range(5):
        clock.t += 50
        app.poll()
    lines = [nfcproto.parse_event(line) for line in out]
    equal([line[1] for line in lines], list(range(len(lines))), "sequence numbers")
    equal(lines[0][2], "hello", "first line")
    equal((lines[0][3]["readers"], lines[0][3]["proto"]), ("2", "1"), "hello fields")
    taps = [(k, f.get("r"), f.get("uid")) for _b, _s, k, f in lines if k in ("tag", "removed")]
    equal(taps, [("tag", "1", "04A1B2C3D4E5F6"), ("removed", "1", "04A1B2C3D4E5F6")], "taps")
    heartbeats = [f for _b, _s, k, f in lines if k == "hb"]
    equal(len(heartbeats), 2, "a heartbeat a second")
    equal(heartbeats[0]["tags"], "-,04A1B2C3D4E5F6", "heartbeat tags")


def check_app_errors():
    readers, chips = make_readers(1)
    out = []
    clock = Clock()
    app = reader_app.ReaderApp([readers[0], None], out.append, clock, 7)
    app.start()
    chips[0].cards.append(fakehw.FakeCard(UID7, bad_bcc=True))
    for _ in range(10):
        clock.t += 20
        app.poll()
    errors = [f for _b, _s, k, f in map(nfcproto.parse_event, out) if k == "error"]
    equal(
        errors, [{"code": "reader_missing", "r": "1"}, {"code": "card", "r": "0", "detail": "bcc"}], "errors"
    )
    equal(app.errors, [5, 0], "error counts")


def cmd(seq, name, fields):
    return nfcproto.encode_command(seq, name, fields).encode()


def check_app_commands():
    led, buzzer = fakehw.FakePin(0), fakehw.FakePin(0)
    app, _chips, out, clock = make_app(1, led=led, buzzer=buzzer)
    app.start()
    del out[:]
    app.feed(cmd(1, "ping", []) + cmd(2, "version", []))
    app.feed(cmd(3, "feedback", [("result", "reject")]))
    bad = bytearray(cmd(4, "ping", []))
    bad[2] ^= 0x01
    app.feed(bytes(bad) + cmd(5, "launch", []) + cmd(6, "beep", [("ms", 99999)]) + b"x" * 500 + b"\n")
    lines = [(k, f) for _b, _s, k, f in map(nfcproto.parse_event, out)]
    equal(lines[0], ("pong", {"ack": "0001"}), "ping")
    equal((lines[1][0], lines[1][1]["ack"]), ("hello", "0002"), "version")
    equal(lines[2], ("ok", {"ack": "0003"}), "feedback")
    equal(lines[3], ("error", {"code": "bad_command", "detail": "crc"}), "damaged command")
    equal(lines[4], ("nak", {"ack": "0005", "reason": "unknown"}), "unknown command")
    equal(lines[5], ("nak", {"ack": "0006", "reason": "bad_args"}), "bad arguments")
    equal(lines[6], ("error", {"code": "bad_command", "detail": "too_long"}), "over-long line")
    for _ in range(100):
        clock.t += 10
        app.tick()
    equal(led.history, [1, 0, 1, 0, 1, 0], "reject blinks three times")
    equal(buzzer.history, [1, 0, 1, 0], "reject beeps twice")
    app.feed(cmd(7, "led", [("state", "on")]))
    equal(led.value(), 1, "led on")


def check_mixed_bus():
    spi, pins, chips = fakehw.build_bus(1)
    rc522 = mfrc522.MFRC522(spi, pins[0])
    rc522.init()
    cs = fakehw.FakePin()
    fake = fakehw.FakePN532()
    spi.attach(cs, fake)
    pn = pn532.PN532(spi, cs)
    pn.init()
    out = []
    t = [0]
    app = reader_app.ReaderApp([rc522, pn], out.append, lambda: t[0], 99, chip="mfrc522+pn532")
    app.start()
    fake.cards.append(UID7)
    chips[0].cards.append(fakehw.FakeCard(UID4))
    for _ in range(10):
        t[0] += 30
        app.poll()
    fake.cards.clear()
    for _ in range(5):
        t[0] += 30
        app.poll()
    events = [
        (k, f["r"], f["uid"]) for _b, _s, k, f in map(nfcproto.parse_event, out) if k in ("tag", "removed")
    ]
    equal(
        events,
        [("tag", "0", "11223344"), ("tag", "1", "04A1B2C3D4E5F6"), ("removed", "1", "04A1B2C3D4E5F6")],
        "taps on a mixed bus",
    )


CHECKS = [
    check_crc_a,
    check_cascade_levels,
    check_bad_bcc_and_missing_chip,
    check_chip_selects,
    check_anticollision,
    check_pn532,
    check_presence,
    check_nfcproto,
    check_app_taps_and_heartbeat,
    check_app_errors,
    check_app_commands,
    check_mixed_bus,
]


def run():
    passed = failed = 0
    for check in CHECKS:
        name = check.__name__
        try:
            check()
        except Exception as exc:  # noqa: BLE001 - every failure is reported, the others still run
            failed += 1
            print("FAIL " + name + ": " + type(exc).__name__ + ": " + str(exc))
        else:
            passed += 1
            print("ok " + name)
    print("checks: " + str(passed) + " passed, " + str(failed) + " failed")
    return failed
