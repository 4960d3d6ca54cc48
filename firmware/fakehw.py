# Fake hardware for running the firmware logic off the board (tests, bench,
# the simulated serial device): a shared SPI bus with chip selects, an MFRC522
# register model, and ISO 14443A cards (NTAG21x-like, 4/7/10-byte UIDs) that
# answer WUPA/REQA, bitwise anticollision, SELECT and HLTA, colliding bit by
# bit when several answer at once.  Not used on the board itself.

import iso14443a

_COMMAND = 0x01
_COM_IRQ = 0x04
_ERROR = 0x06
_FIFO_DATA = 0x09
_FIFO_LEVEL = 0x0A
_CONTROL = 0x0C
_BIT_FRAMING = 0x0D
_COLL = 0x0E
_TX_CONTROL = 0x14
_VERSION = 0x37
_CMD_TRANSMIT = 0x04
_CMD_TRANSCEIVE = 0x0C
_CMD_SOFT_RESET = 0x0F


def _bits(data, nbits=None):
    """Bytes -> list of bits, least significant bit of each byte first."""
    out = []
    for b in data:
        for i in range(8):
            out.append((b >> i) & 1)
    if nbits is not None:
        out = out[:nbits]
    return out


def _pack(bits, offset=0):
    """Bits -> bytes, the first bit going to bit `offset` of byte 0."""
    total = offset + len(bits)
    out = bytearray((total + 7) // 8)
    for i, bit in enumerate(bits):
        if bit:
            p = offset + i
            out[p // 8] |= 1 << (p % 8)
    return bytes(out)


class FakePin:
    def __init__(self, value=1):
        self._value = value
        self.history = []

    def value(self, v=None):
        if v is None:
            return self._value
        self._value = 1 if v else 0
        self.history.append(self._value)
        return None


class FakeCard:
    """An ISO 14443A card with a fixed UID.  ``sak`` is its final SAK (NTAG21x: 0x00)."""

    def __init__(self, uid, sak=0x00, bad_bcc=False):
        uid = bytes(uid)
        if len(uid) not in (4, 7, 10):
            raise ValueError("UID must be 4, 7 or 10 bytes")
        self.uid = uid
        self.sak = sak
        parts = []
        if len(uid) == 4:
            parts = [uid]
        elif len(uid) == 7:
            parts = [bytes((iso14443a.CASCADE_TAG,)) + uid[:3], uid[3:]]
        else:
            parts = [bytes((iso14443a.CASCADE_TAG,)) + uid[:3], bytes((iso14443a.CASCADE_TAG,)) + uid[3:6], uid[6:]]
        self.levels = []
        for p in parts:
            bcc = p[0] ^ p[1] ^ p[2] ^ p[3]
            if bad_bcc:
                bcc ^= 0x01
            self.levels.append(p + bytes((bcc,)))
        self.state = "idle"
        self.level = 0
        self.was_halted = False

    def _reset(self):
        self.state = "halt" if self.was_halted else "idle"

    def receive(self, data, tx_last_bits):
        """One frame from the reader; returns the answer as a list of bits, or None."""
        if tx_last_bits == 7 and len(data) == 1:
            cmd = data[0] & 0x7F
            if cmd == iso14443a.WUPA and self.state in ("idle", "halt") or (
                cmd == iso14443a.REQA and self.state == "idle"
            ):
                self.was_halted = self.state == "halt"
                self.state = "ready"
                self.level = 0
                atqa = 0x04 if len(self.uid) == 4 else (0x44 if len(self.uid) == 7 else 0x84)
                return _bits(bytes((atqa, 0x00)))
            self._reset()
            return None
        if not data:
            return None
        cmd = data[0]
        if cmd in iso14443a.SEL_CMDS and self.state == "ready" and len(data) >= 2:
            if iso14443a.SEL_CMDS.index(cmd) != self.level:
                self._reset()
                return None
            cl = self.levels[self.level]
            nvb = data[1]
            if nvb == 0x70:
                if len(data) != 9 or iso14443a.crc_a(data[:7]) != bytes(data[7:9]):
                    self._reset()
                    return None
                if bytes(data[2:7]) != cl:
                    return None  # another card is being selected; stay quiet
                if self.level + 1 < len(self.levels):
                    self.level += 1
                    sak = iso14443a.SAK_CASCADE
                else:
                    self.state = "active"
                    sak = self.sak
                return _bits(bytes((sak,)) + iso14443a.crc_a(bytes((sak,))))
            known = ((nvb >> 4) - 2) * 8 + (nvb & 0x0F)
            if known < 0 or known > 39:
                self._reset()
                return None
            sent = _bits(data[2:], known)
            mine = _bits(cl)
            if sent != mine[:known]:
                return None  # not our prefix: stay quiet (still READY)
            return mine[known:]
        if cmd == iso14443a.HLTA and len(data) == 4:
            if self.state == "active" and iso14443a.crc_a(data[:2]) == bytes(data[2:4]):
                self.state = "halt"
                self.was_halted = True
            return None
        self._reset()
        return None


class FakeMFRC522:
    """Register-level model of an MFRC522 with cards in its field."""

    def __init__(self, version=0x92):
        self.version = version
        self.cards = []
        self.misses = 0  # the next N transceives time out (a flaky read)
        self.transceives = 0
        self.transmits = 0
        self._reset()

    def _reset(self):
        self.regs = bytearray(64)
        self.regs[_COLL] = 0x80
        self.fifo = bytearray()

    # -- SPI side ---------------------------------------------------------
    def transfer(self, out):
        addr = out[0]
        reg = (addr >> 1) & 0x3F
        if addr & 0x80:
            res = bytearray(len(out))
            for i in range(1, len(out)):
                res[i] = self.read_reg(reg)
            return bytes(res)
        for v in out[1:]:
            self.write_reg(reg, v)
        return bytes(len(out))

    def read_reg(self, reg):
        if reg == _FIFO_DATA:
            if self.fifo:
                first = self.fifo[0]
                self.fifo = self.fifo[1:]  # MicroPython's bytearray has no pop()
                return first
            return 0
        if reg == _FIFO_LEVEL:
            return len(self.fifo)
        if reg == _VERSION:
            return self.version
        return self.regs[reg]

    def write_reg(self, reg, v):
        if reg == _COMMAND:
            if v & 0x0F == _CMD_SOFT_RESET:
                self._reset()
                return
            self.regs[reg] = v & 0x0F
            if v & 0x0F == _CMD_TRANSMIT:
                self._transmit()
        elif reg == _FIFO_DATA:
            self.fifo.append(v)
        elif reg == _FIFO_LEVEL:
            if v & 0x80:
                self.fifo = bytearray()
        elif reg == _COM_IRQ:
            if v & 0x80:
                self.regs[reg] |= v & 0x7F
            else:
                self.regs[reg] &= ~v & 0x7F
        elif reg == _BIT_FRAMING:
            self.regs[reg] = v & 0x7F
            if v & 0x80 and self.regs[_COMMAND] == _CMD_TRANSCEIVE:
                self._transceive()
        else:
            self.regs[reg] = v

    # -- radio side -------------------------------------------------------
    def _transmit(self):
        """Transmit command: send the FIFO, ignore any answer, go idle."""
        data = bytes(self.fifo)
        self.fifo = bytearray()
        self.transmits += 1
        if self.regs[_TX_CONTROL] & 0x03:
            for card in self.cards:
                card.receive(data, self.regs[_BIT_FRAMING] & 7)
        self.regs[_COMMAND] = 0
        self.regs[_COM_IRQ] |= 0x10  # IdleIRq

    def _transceive(self):
        self.transceives += 1
        data = bytes(self.fifo)
        self.fifo = bytearray()
        framing = self.regs[_BIT_FRAMING]
        tx_last = framing & 7
        rx_align = (framing >> 4) & 7
        self.regs[_ERROR] = 0
        answers = []
        if self.regs[_TX_CONTROL] & 0x03 and self.misses == 0:
            for card in self.cards:
                a = card.receive(data, tx_last)
                if a is not None:
                    answers.append(a)
        elif self.misses:
            self.misses -= 1
        if not answers:
            self.regs[_COM_IRQ] |= 0x01  # TimerIRq: nothing answered in time
            return
        n = max(len(a) for a in answers)
        merged = []
        coll = None
        for i in range(n):
            vals = set(a[i] for a in answers if i < len(a))
            if coll is None and len(vals) > 1:
                coll = i
            merged.append(0 if coll is not None else vals.pop())
        self.fifo = bytearray(_pack(merged, rx_align))
        self.regs[_CONTROL] = (rx_align + n) % 8
        if coll is not None:
            self.regs[_ERROR] |= 0x08
            pos = rx_align + coll + 1
            self.regs[_COLL] = (self.regs[_COLL] & 0x80) | (pos & 0x1F if pos < 32 else 0)
        self.regs[_COM_IRQ] |= 0x30  # RxIRq | IdleIRq


class FakeSPI:
    """One SPI bus; chips are attached with their chip-select pin (active low)."""

    def __init__(self):
        self.chips = []

    def attach(self, cs, chip):
        self.chips.append((cs, chip))

    def write_readinto(self, out, into):
        selected = [chip for cs, chip in self.chips if cs.value() == 0]
        if len(selected) > 1:
            raise OSError("SPI bus contention: several chip selects low")
        if not selected:
            res = bytes(len(out))  # nobody drives MISO: reads as 0x00
        else:
            res = selected[0].transfer(bytes(out))
        for i in range(len(into)):
            into[i] = res[i]


def build_bus(n_readers, version=0x92):
    """A bus with n fake MFRC522 chips; returns (spi, [cs pins], [chips])."""
    spi = FakeSPI()
    pins = []
    chips = []
    for _ in range(n_readers):
        cs = FakePin(1)
        chip = FakeMFRC522(version)
        spi.attach(cs, chip)
        pins.append(cs)
        chips.append(chip)
    return spi, pins, chips


def _rev(data):
    out = bytearray(len(data))
    for i, b in enumerate(data):
        r = 0
        for k in range(8):
            if b & (1 << k):
                r |= 1 << (7 - k)
        out[i] = r
    return bytes(out)


class FakePN532:
    """Frame-level model of a PN532 in SPI mode (LSB-first on the wire).

    ``cards`` is a list of UIDs (bytes) in the field; InListPassiveTarget
    reports the first.  ``corrupt_next`` damages the checksum of the next
    response frame.
    """

    def __init__(self, lsb_wire=True):
        self.lsb_wire = lsb_wire
        self.cards = []
        self.outbox = []
        self.corrupt_next = False
        self.commands = []

    def _frame(self, cmd, data):
        body = bytes((0xD5, cmd + 1)) + bytes(data)
        n = len(body)
        dcs = (-sum(body)) & 0xFF
        if self.corrupt_next:
            dcs ^= 0x01
            self.corrupt_next = False
        return b"\x00\x00\xff" + bytes((n, (-n) & 0xFF)) + body + bytes((dcs, 0x00))

    def _handle(self, frame):
        if frame[:3] != b"\x00\x00\xff":
            return
        n = frame[3]
        body = frame[5 : 5 + n]
        if (n + frame[4]) & 0xFF or (sum(body) + frame[5 + n]) & 0xFF or body[0] != 0xD4:
            return  # a real PN532 would send a NACK/error frame; the host times out
        cmd, data = body[1], body[2:]
        self.commands.append(cmd)
        self.outbox.append(b"\x00\x00\xff\x00\xff\x00")
        if cmd == 0x02:
            resp = b"\x32\x01\x06\x07"
        elif cmd == 0x4A:
            if self.cards:
                uid = self.cards[0]
                atqa = b"\x00\x44" if len(uid) == 7 else b"\x00\x04"
                resp = b"\x01\x01" + atqa + b"\x00" + bytes((len(uid),)) + uid
            else:
                resp = b"\x00"
        elif cmd == 0x52:
            resp = b"\x00"
        else:
            resp = b""
        self.outbox.append(self._frame(cmd, resp))

    def transfer(self, out):
        data = _rev(out) if self.lsb_wire else bytes(out)
        op = data[0]
        res = bytearray(len(data))
        if op == 0x01:
            self._handle(data[1:])
        elif op == 0x02:
            if len(res) > 1:
                res[1] = 0x01 if self.outbox else 0x00
        elif op == 0x03 and self.outbox:
            msg = self.outbox.pop(0)
            for i in range(1, len(res)):
                if i - 1 < len(msg):
                    res[i] = msg[i - 1]
        return _rev(res) if self.lsb_wire else bytes(res)
