# PN532 (NXP) reader driver over SPI, for boards set to SPI mode
# (on the common red/blue PN532 modules: switch 1 OFF, switch 2 ON).
#
# The PN532 does the ISO 14443A activation itself (InListPassiveTarget) and
# returns the whole UID, 4, 7 or 10 bytes.  Its SPI is LSB-first; most SPI
# peripherals (the RP2040's too) send MSB-first, so by default every byte is
# bit-reversed in software.  It shares the bus with MFRC522 readers: one chip
# select each.

import iso14443a

_DW = 0x01  # data write
_SR = 0x02  # status read
_DR = 0x03  # data read
_HOST_TO_PN532 = 0xD4
_PN532_TO_HOST = 0xD5
ACK = b"\x00\x00\xff\x00\xff\x00"

CMD_GET_FIRMWARE_VERSION = 0x02
CMD_SAM_CONFIGURATION = 0x14
CMD_RF_CONFIGURATION = 0x32
CMD_IN_LIST_PASSIVE_TARGET = 0x4A
CMD_IN_RELEASE = 0x52


def _make_rev():
    table = bytearray(256)
    for i in range(256):
        r = 0
        for b in range(8):
            if i & (1 << b):
                r |= 1 << (7 - b)
        table[i] = r
    return bytes(table)


REV = _make_rev()


def reverse_bits(data):
    out = bytearray(len(data))
    for i, b in enumerate(data):
        out[i] = REV[b]
    return out


def build_frame(cmd, data):
    """A normal information frame host -> PN532 (logical byte order)."""
    body = bytes((_HOST_TO_PN532, cmd)) + bytes(data)
    n = len(body)
    dcs = (-sum(body)) & 0xFF
    return b"\x00\x00\xff" + bytes((n, (-n) & 0xFF)) + body + bytes((dcs, 0x00))


def parse_frame(raw, cmd):
    """The data of a PN532 -> host response frame to ``cmd``; raises CardError if malformed."""
    i = 0
    while i < len(raw) and raw[i] == 0x00:
        i += 1
    # Preamble and start code are 00 .. 00 FF: the zeros are skipped, FF must follow.
    if i < 1 or i >= len(raw) or raw[i] != 0xFF:
        raise iso14443a.CardError("frame")
    i += 1
    if i + 2 > len(raw):
        raise iso14443a.CardError("frame")
    n = raw[i]
    if (n + raw[i + 1]) & 0xFF != 0 or n < 2:
        raise iso14443a.CardError("frame")
    body = raw[i + 2 : i + 2 + n]
    if len(body) != n or i + 2 + n >= len(raw):
        raise iso14443a.CardError("frame")
    if (sum(body) + raw[i + 2 + n]) & 0xFF != 0:
        raise iso14443a.CardError("frame")
    if body[0] != _PN532_TO_HOST or body[1] != cmd + 1:
        raise iso14443a.CardError("frame")
    return bytes(body[2:])


class PN532:
    def __init__(self, spi, cs, lsb_first_spi=False, ready_polls=2000):
        self.spi = spi
        self.cs = cs
        self.swap = not lsb_first_spi
        self.ready_polls = ready_polls
        cs.value(1)

    def _xfer(self, out, nread=0):
        buf = bytearray(out) + bytearray(nread)
        if self.swap:
            buf = reverse_bits(buf)
        res = bytearray(len(buf))
        self.cs.value(0)
        self.spi.write_readinto(buf, res)
        self.cs.value(1)
        if self.swap:
            res = reverse_bits(res)
        return bytes(res[len(out) :])

    def _wait_ready(self):
        for _ in range(self.ready_polls):
            if self._xfer(bytes((_SR,)), 1)[0] & 0x01:
                return
        raise OSError("PN532 not ready")

    def command(self, cmd, data=b"", resp_len=32):
        """Send a command, check the ACK, return the response data."""
        self._xfer(bytes((_DW,)) + build_frame(cmd, data))
        self._wait_ready()
        if self._xfer(bytes((_DR,)), len(ACK)) != ACK:
            raise iso14443a.CardError("ack")
        self._wait_ready()
        return parse_frame(self._xfer(bytes((_DR,)), resp_len + 9), cmd)

    def init(self):
        """Wake the PN532 and configure it; raises ReaderMissing if it does not answer."""
        import mfrc522

        self.cs.value(0)  # a falling chip select wakes the PN532 from power-down
        self.cs.value(1)
        try:
            version = self.command(CMD_GET_FIRMWARE_VERSION, b"", 4)
        except (OSError, iso14443a.CardError):
            raise mfrc522.ReaderMissing("no PN532 answers")
        if len(version) < 4 or version[0] != 0x32:
            raise mfrc522.ReaderMissing("not a PN532")
        self.command(CMD_SAM_CONFIGURATION, b"\x01\x14\x00", 0)  # normal mode, no IRQ
        # MaxRetries: ATR 0xFF, PSL 0x01, passive activation 0x00 = try once, return at once.
        self.command(CMD_RF_CONFIGURATION, b"\x05\xff\x01\x00", 0)
        return version[1]

    def read_uid(self):
        """UID bytes of the card on this reader, or None."""
        resp = self.command(CMD_IN_LIST_PASSIVE_TARGET, b"\x01\x00", 20)
        if not resp or resp[0] == 0:
            return None
        # NbTg, Tg, SENS_RES (2), SEL_RES, NFCIDLength, NFCID1...
        if len(resp) < 6:
            raise iso14443a.CardError("short")
        n = resp[5]
        uid = resp[6 : 6 + n]
        if n not in (4, 7, 10) or len(uid) != n:
            raise iso14443a.CardError("uid")
        self.command(CMD_IN_RELEASE, b"\x00", 1)
        return bytes(uid)
