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
                return self.fifo.pop(0)
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
