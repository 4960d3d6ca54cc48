# Raspberry Pi Pico (RP2040) entry point: wires the pins and runs the loop.
# All logic lives in reader_app.py / mfrc522.py / iso14443a.py / presence.py /
# nfcproto.py, which are tested under CPython.  Defaults below match
# hardware/WIRING.md; put overrides in an optional readercfg.py on the board
# (see README.md).

import os
import select
import sys
import time

import mfrc522
import pn532
import reader_app
from machine import SPI, Pin

# Defaults (GPIO numbers, not physical pin numbers).
SPI_ID = 0
PIN_SCK = 18  # physical pin 24
PIN_MOSI = 19  # physical pin 25
PIN_MISO = 16  # physical pin 21
PIN_CS = (17, 20, 21, 22)  # pads 0..3: physical pins 22, 26, 27, 29
PIN_RST = 15  # shared reset of all readers, physical pin 20
PIN_BUZZER = 13  # optional active buzzer (via transistor), physical pin 17; None to disable
SPI_BAUD = 4000000  # PN532: at most 5 MHz
CHIP = "mfrc522"  # or "pn532" (in SPI mode); one kind per board, or a tuple with one entry per pad
POLL_MS = 15
HEARTBEAT_MS = 1000
MISS_LIMIT = 3
CONFIRM = 1

try:
    import readercfg as _cfg
except ImportError:
    _cfg = None


def setting(name, default):
    return getattr(_cfg, name, default) if _cfg is not None else default


def boot_id():
    try:
        return int.from_bytes(os.urandom(4), "big") or 1
    except Exception:
        return (time.ticks_us() * 2654435761) & 0xFFFFFFFF or 1


def make_led():
    try:
        return Pin("LED", Pin.OUT)
    except (TypeError, ValueError):
        return Pin(25, Pin.OUT)


def make_readers():
    spi = SPI(
        setting("SPI_ID", SPI_ID),
        baudrate=setting("SPI_BAUD", SPI_BAUD),
        polarity=0,
        phase=0,
        sck=Pin(setting("PIN_SCK", PIN_SCK)),
        mosi=Pin(setting("PIN_MOSI", PIN_MOSI)),
        miso=Pin(setting("PIN_MISO", PIN_MISO)),
    )
    rst_pin = setting("PIN_RST", PIN_RST)
    rst = None
    if rst_pin is not None:
        rst = Pin(rst_pin, Pin.OUT)
        rst.value(0)
        time.sleep_ms(5)
        rst.value(1)
        time.sleep_ms(50)
    cs_pins = setting("PIN_CS", PIN_CS)
    chips = setting("CHIP", CHIP)
    if isinstance(chips, str):
        chips = (chips,) * len(cs_pins)
    readers = []
    for cs_pin, kind in zip(cs_pins, chips):
        cs = Pin(cs_pin, Pin.OUT, value=1)
        chip = pn532.PN532(spi, cs) if kind == "pn532" else mfrc522.MFRC522(spi, cs, rst)
        try:
            chip.init()
            readers.append(chip)
        except (mfrc522.ReaderMissing, OSError):
            readers.append(None)
    return readers, chips


def main():
    buzzer_pin = setting("PIN_BUZZER", PIN_BUZZER)
    buzzer = Pin(buzzer_pin, Pin.OUT, value=0) if buzzer_pin is not None else None
    out = sys.stdout
    readers, chips = make_readers()
    app = reader_app.ReaderApp(
        readers,
        out.write,
        time.ticks_ms,
        boot_id(),
        heartbeat_ms=setting("HEARTBEAT_MS", HEARTBEAT_MS),
        led=make_led(),
        buzzer=buzzer,
        miss_limit=setting("MISS_LIMIT", MISS_LIMIT),
        confirm=setting("CONFIRM", CONFIRM),
        ticks_diff=time.ticks_diff,
        ticks_add=time.ticks_add,
        chip="+".join(sorted(set(chips))),
    )
    stdin = getattr(sys.stdin, "buffer", sys.stdin)
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    poll_ms = setting("POLL_MS", POLL_MS)
    app.start()
    while True:
        try:
            app.poll()
            while poller.poll(0):
                ch = stdin.read(1)
                if not ch:
                    break
                app.feed(ch.encode() if isinstance(ch, str) else ch)
        except Exception as e:  # keep serving the other pads; Ctrl-C (KeyboardInterrupt) still stops
            try:
                app.emit("error", [("code", "crash"), ("detail", type(e).__name__)])
            except Exception:
                pass
            time.sleep_ms(200)
        time.sleep_ms(poll_ms)


main()
