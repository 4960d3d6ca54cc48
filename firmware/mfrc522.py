# MFRC522 (RC522 boards) driver over SPI, just enough for ISO 14443A UIDs.
#
# spi: an object with write_readinto(out, in) (machine.SPI, or fakehw.FakeSPI)
# cs, rst: pins with value(v) (machine.Pin, or fakes); cs is active low.
# The chip is 3.3 V only.

import iso14443a

COMMAND = 0x01
COM_IRQ = 0x04
DIV_IRQ = 0x05
ERROR = 0x06
FIFO_DATA = 0x09
FIFO_LEVEL = 0x0A
CONTROL = 0x0C
BIT_FRAMING = 0x0D
COLL = 0x0E
MODE = 0x11
TX_CONTROL = 0x14
TX_ASK = 0x15
RF_CFG = 0x26
T_MODE = 0x2A
T_PRESCALER = 0x2B
T_RELOAD_H = 0x2C
T_RELOAD_L = 0x2D
VERSION = 0x37

CMD_IDLE = 0x00
CMD_TRANSMIT = 0x04
CMD_TRANSCEIVE = 0x0C
CMD_SOFT_RESET = 0x0F

IRQ_TIMER = 0x01
IRQ_ERR = 0x02
IRQ_IDLE = 0x10
IRQ_RX = 0x20

ERR_COLL = 0x08
ERR_FATAL = 0x13  # BufferOvfl | ParityErr | ProtocolErr

KNOWN_VERSIONS = (0x88, 0x90, 0x91, 0x92, 0x12, 0xB2)


class ReaderMissing(Exception):
    pass


class MFRC522:
    def __init__(self, spi, cs, rst=None, timeout_polls=400):
        self.spi = spi
        self.cs = cs
        self.rst = rst
        self.timeout_polls = timeout_polls
        self._tx = bytearray(2)
        self._rx = bytearray(2)
        cs.value(1)

    # -- registers -------------------------------------------------------
    def write(self, reg, value):
        self._tx[0] = (reg << 1) & 0x7E
        self._tx[1] = value & 0xFF
        self.cs.value(0)
        self.spi.write_readinto(self._tx, self._rx)
        self.cs.value(1)

    def read(self, reg):
        self._tx[0] = ((reg << 1) & 0x7E) | 0x80
        self._tx[1] = 0
        self.cs.value(0)
        self.spi.write_readinto(self._tx, self._rx)
        self.cs.value(1)
        return self._rx[1]

    def set_bits(self, reg, mask):
        self.write(reg, self.read(reg) | mask)

    def clear_bits(self, reg, mask):
        self.write(reg, self.read(reg) & ~mask & 0xFF)

    # -- setup -------------------------------------------------------------
    def version(self):
        return self.read(VERSION)

    def init(self):
        """Reset and configure the chip; raises ReaderMissing if it does not answer."""
        if self.rst is not None:
            self.rst.value(1)
        self.write(COMMAND, CMD_SOFT_RESET)
        for _ in range(100):
            if not self.read(COMMAND) & 0x10:  # PowerDown bit clears when ready
                break
        v = self.version()
        if v in (0x00, 0xFF):
            raise ReaderMissing("no MFRC522 answers (version register reads 0x%02X)" % v)
        # Timer: prescaler 0xA9 -> 25 us per tick, reload 80 -> 2 ms receive timeout,
        # started when a transmission ends (TAuto).  Cards answer WUPA, anticollision
        # and SELECT within ~0.1 ms plus ~0.5 ms of frame, so an empty pad costs ~2 ms.
        self.write(T_MODE, 0x80)
        self.write(T_PRESCALER, 0xA9)
        self.write(T_RELOAD_H, 0x00)
        self.write(T_RELOAD_L, 0x50)
        self.write(TX_ASK, 0x40)  # 100 % ASK modulation
        self.write(MODE, 0x3D)  # CRC preset 0x6363
        self.write(RF_CFG, 0x70)  # maximum receiver gain (48 dB)
        self.clear_bits(COLL, 0x80)  # clear received bits after a collision
        self.antenna(True)
        return v

    def antenna(self, on):
        if on:
            self.set_bits(TX_CONTROL, 0x03)
        else:
            self.clear_bits(TX_CONTROL, 0x03)

    # -- data exchange -------------------------------------------------------
    def transceive(self, data, tx_last_bits=0, rx_align=0):
        """Send ``data`` and receive the answer; see iso14443a for the return tuple."""
        self.write(COMMAND, CMD_IDLE)
        self.write(COM_IRQ, 0x7F)  # clear all interrupt request bits
        self.write(FIFO_LEVEL, 0x80)  # flush the FIFO
        for b in data:
            self.write(FIFO_DATA, b)
        framing = ((rx_align & 7) << 4) | (tx_last_bits & 7)
        self.write(BIT_FRAMING, framing)
        self.write(COMMAND, CMD_TRANSCEIVE)
        self.write(BIT_FRAMING, framing | 0x80)  # StartSend
        irq = 0
        for _ in range(self.timeout_polls):
            irq = self.read(COM_IRQ)
            if irq & (IRQ_RX | IRQ_IDLE | IRQ_TIMER):
                break
        self.clear_bits(BIT_FRAMING, 0x80)
        if not irq & (IRQ_RX | IRQ_IDLE):
            return iso14443a.TIMEOUT, b"", 0, 0
        err = self.read(ERROR)
        if err & ERR_FATAL:
            return iso14443a.ERROR, b"", 0, 0
        n = self.read(FIFO_LEVEL) & 0x7F
        buf = bytearray(n)
        for i in range(n):
            buf[i] = self.read(FIFO_DATA)
        resp = bytes(buf)
        last_bits = self.read(CONTROL) & 0x07
        if err & ERR_COLL:
            coll = self.read(COLL)
            if coll & 0x20:  # CollPosNotValid
                return iso14443a.ERROR, resp, last_bits, 0
            pos = coll & 0x1F
            return iso14443a.COLLISION, resp, last_bits, pos if pos else 32
        if n == 0:
            return iso14443a.TIMEOUT, b"", 0, 0
        return iso14443a.OK, resp, last_bits, 0

    def send(self, data):
        """Transmit ``data`` without waiting for an answer (for HLTA, which a card never answers).

        The chip goes idle by itself when the frame is out; the next command on
        this chip comes a whole poll round later.
        """
        self.write(COMMAND, CMD_IDLE)
        self.write(FIFO_LEVEL, 0x80)
        for b in data:
            self.write(FIFO_DATA, b)
        self.write(BIT_FRAMING, 0x00)
        self.write(COMMAND, CMD_TRANSMIT)

    def read_uid(self):
        """UID bytes of the card on this reader, or None."""
        return iso14443a.read_uid(self)
