# The reader board's application logic: polls the pads, debounces, speaks the
# line protocol, obeys host commands.  No hardware access here: main.py passes
# in the readers (objects with read_uid()), the output function, the clock and
# the LED/buzzer pins, so this runs unchanged under CPython in the tests.

import iso14443a
import nfcproto
import presence

FW_VERSION = "0.1.0"
CHIP = "mfrc522"
ERROR_INTERVAL_MS = 5000  # at most one card-error line per pad per interval


def _diff(a, b):
    return a - b


def _add(a, b):
    return a + b


class ReaderApp:
    def __init__(
        self,
        readers,
        write,
        now_ms,
        boot_id,
        heartbeat_ms=1000,
        led=None,
        buzzer=None,
        miss_limit=3,
        confirm=1,
        ticks_diff=_diff,
        ticks_add=_add,
        fw_version=FW_VERSION,
        chip=CHIP,
    ):
        # readers: list with one entry per pad: an object with read_uid(), or
        # None for a pad whose chip did not answer at start-up.
        self.readers = readers
        self.write = write
        self.now_ms = now_ms
        self.boot = boot_id & 0xFFFFFFFF or 1
        self.heartbeat_ms = heartbeat_ms
        self.led = led
        self.buzzer = buzzer
        self.ticks_diff = ticks_diff
        self.ticks_add = ticks_add
        self.fw_version = fw_version
        self.chip = chip
        self.seq = 0
        self.pads = [presence.Presence(miss_limit, confirm) for _ in readers]
        self.errors = [0 for _ in readers]
        self.last_error = [None for _ in readers]
        self.input = nfcproto.LineBuffer()
        self.schedule = []  # (due_ms, pin, value)
        self.started = None
        self.last_hb = None

    # -- output --------------------------------------------------------------
    def emit(self, kind, fields):
        self.write(nfcproto.encode_event(self.boot, self.seq, kind, fields))
        self.seq = (self.seq + 1) & 0xFFFF

    def hello(self, ack=None):
        fields = [
            ("proto", nfcproto.PROTO_VERSION),
            ("fw", self.fw_version),
            ("readers", len(self.readers)),
            ("chip", self.chip),
            ("hb", self.heartbeat_ms),
        ]
        if ack is not None:
            fields.append(("ack", "%04X" % ack))
        self.emit("hello", fields)

    def heartbeat(self):
        now = self.now_ms()
        tags = []
        for pad in self.pads:
            tags.append(nfcproto.hexstr(pad.current) if pad.current is not None else "-")
        errs = 0
        for n in self.errors:
            errs += n
        self.emit(
            "hb",
            [("up", self.ticks_diff(now, self.started)), ("tags", ",".join(tags)), ("errs", errs)],
        )
        self.last_hb = now

    # -- main loop steps -----------------------------------------------------
    def start(self):
        self.started = self.now_ms()
        self.last_hb = self.started
        self.hello()
        for i, r in enumerate(self.readers):
            if r is None:
                self.emit("error", [("code", "reader_missing"), ("r", i)])

    def poll(self):
        """Poll every pad once, emit tag/removed lines, heartbeat when due."""
        for i, reader in enumerate(self.readers):
            if reader is None:
                continue
            try:
                uid = reader.read_uid()
            except iso14443a.CardError as e:
                uid = None
                self._card_error(i, e.args[0] if e.args else "card")
            except OSError:
                uid = None
                self._card_error(i, "io")
            for kind, u in self.pads[i].update(uid):
                self.emit(kind, [("r", i), ("uid", nfcproto.hexstr(u))])
        self.tick()

    def tick(self):
        now = self.now_ms()
        if self.last_hb is not None and self.ticks_diff(now, self.last_hb) >= self.heartbeat_ms:
            self.heartbeat()
        if self.schedule:
            rest = []
            for due, pin, value in self.schedule:
                if self.ticks_diff(now, due) >= 0:
                    pin.value(value)
                else:
                    rest.append((due, pin, value))
            self.schedule = rest

    def _card_error(self, i, reason):
        self.errors[i] += 1
        now = self.now_ms()
        last = self.last_error[i]
        if last is None or self.ticks_diff(now, last) >= ERROR_INTERVAL_MS:
            self.last_error[i] = now
            self.emit("error", [("code", "card"), ("r", i), ("detail", reason)])

    # -- host commands -------------------------------------------------------
    def feed(self, data):
        """Bytes received from the host."""
        for line in self.input.feed(data):
            self.handle_line(line)

    def handle_line(self, line):
        if line is None:
            self.emit("error", [("code", "bad_command"), ("detail", "too_long")])
            return
        if not line.strip():
            return
        try:
            seq, name, fields = nfcproto.parse_command(line)
        except nfcproto.LineError as e:
            self.emit("error", [("code", "bad_command"), ("detail", e.args[0])])
            return
        ack = [("ack", "%04X" % seq)]
        try:
            if name == "ping":
                self.emit("pong", ack)
            elif name == "version":
                self.hello(seq)
            elif name == "led":
                self._led(fields)
                self.emit("ok", ack)
            elif name == "beep":
                self._beep(fields)
                self.emit("ok", ack)
            elif name == "feedback":
                self._feedback(fields)
                self.emit("ok", ack)
            else:
                self.emit("nak", ack + [("reason", "unknown")])
        except ValueError:
            self.emit("nak", ack + [("reason", "bad_args")])

    def _int(self, fields, key, default, lo, hi):
        text = fields.get(key)
        if text is None:
            return default
        value = int(text)
        if value < lo or value > hi:
            raise ValueError(key)
        return value

    def _play(self, pin, on_ms, off_ms, count):
        """Non-blocking on/off pattern, driven by tick()."""
        if pin is None:
            return
        self.schedule = [s for s in self.schedule if s[1] is not pin]
        if count <= 0:
            return
        now = self.now_ms()
        pin.value(1)
        t = 0
        for k in range(count):
            if k:
                self.schedule.append((self.ticks_add(now, t), pin, 1))
            t += on_ms
            self.schedule.append((self.ticks_add(now, t), pin, 0))
            t += off_ms

    def _led(self, fields):
        state = fields.get("state", "")
        if state == "on":
            self._play(self.led, 0, 0, 0)
            if self.led is not None:
                self.led.value(1)
        elif state == "off":
            self._play(self.led, 0, 0, 0)
            if self.led is not None:
                self.led.value(0)
        elif state == "blink":
            ms = self._int(fields, "ms", 200, 10, 5000)
            self._play(self.led, ms, ms, self._int(fields, "n", 1, 1, 10))
        else:
            raise ValueError("state")

    def _beep(self, fields):
        ms = self._int(fields, "ms", 80, 10, 2000)
        self._play(self.buzzer, ms, ms, self._int(fields, "n", 1, 1, 5))

    def _feedback(self, fields):
        result = fields.get("result")
        if result == "accept":
            self._play(self.led, 600, 0, 1)
            self._play(self.buzzer, 60, 0, 1)
        elif result == "reject":
            self._play(self.led, 120, 120, 3)
            self._play(self.buzzer, 150, 100, 2)
        else:
            raise ValueError("result")
