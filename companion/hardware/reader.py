"""NFC readers for the table service: the USB-serial reader board and a simulated one.

Both implement :class:`companion.hardware.events.TagSource`.

* :class:`SerialReader` talks to the Pico firmware (``firmware/``) over USB
  serial with pyserial (imported lazily).  It finds the board by USB VID:PID
  (MicroPython on a Pico: 2E8A:0005) or uses a given port, reconnects after an
  unplug, and decodes the line protocol strictly through
  :class:`companion.hardware.protocol.Session` (no invented, lost or doubled
  taps across reconnects and device reboots; garbage is counted and logged).
* :class:`SimulatedReader` plays a script (``tap 0 04A1B2C3D4E5F6``, ``wait 0.5``,
  ...) or events pushed at run time; the demo and the tests use it.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from companion.hardware.events import ReaderEvent, TagEvent, TagRemoved
from companion.hardware.protocol import (
    PROTO_VERSION,
    SEQ_MOD,
    ReaderStats,
    Session,
    StatusEvent,
    encode_command,
)

log = logging.getLogger("companion.hardware.reader")

PICO_VID = 0x2E8A
PICO_PID = 0x0005
BAUDRATE = 115200  # ignored by USB CDC, kept for USB-UART adapters

__all__ = [
    "PICO_PID",
    "PICO_VID",
    "PROTO_VERSION",
    "ReaderStats",
    "ScriptError",
    "SerialReader",
    "SimulatedReader",
    "Wait",
    "find_reader_port",
    "normalize_uid",
    "open_reader",
    "parse_script",
    "parse_usb_id",
]


def find_reader_port(vid: int = PICO_VID, pid: int = PICO_PID) -> str | None:
    """The device path of the first USB serial port with this VID:PID, or None."""
    from serial.tools import list_ports

    for info in sorted(list_ports.comports(), key=lambda p: p.device):
        if info.vid == vid and info.pid == pid:
            return str(info.device)
    return None


class SerialReader:
    """The reader board on a serial port.

    ``port``: a fixed device path; otherwise ``port_finder()`` (default: look
    for USB ``vid:pid``) is asked on every (re)connect.  ``events()`` runs until
    :meth:`close`; while the board is unplugged it waits and retries every
    ``reconnect_delay`` seconds.  If nothing at all arrives for
    ``silence_timeout`` seconds (the firmware sends a heartbeat every second)
    the port is reopened.  ``on_status`` receives hello, heartbeat, device
    error and command replies (for ``companion nfc monitor --all``).
    """

    def __init__(
        self,
        port: str | None = None,
        *,
        port_finder: Callable[[], str | None] | None = None,
        vid: int = PICO_VID,
        pid: int = PICO_PID,
        baudrate: int = BAUDRATE,
        reconnect_delay: float = 0.5,
        silence_timeout: float | None = 5.0,
        read_timeout: float = 0.05,
        on_status: Callable[[StatusEvent], None] | None = None,
    ) -> None:
        self.port = port
        self._finder = port_finder if port_finder is not None else (lambda: find_reader_port(vid, pid))
        self.baudrate = baudrate
        self.reconnect_delay = reconnect_delay
        self.silence_timeout = silence_timeout
        self.read_timeout = read_timeout
        self.on_status = on_status
        self.stats = ReaderStats()
        self.session = Session(self.stats)
        self._serial: Any = None
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._cmd_seq = 0
        self._last_rx = 0.0
        self._missing_logged = False
        self.connected_port: str | None = None

    # -- connection ------------------------------------------------------------
    def _connect(self) -> bool:
        import serial

        path = self.port or self._finder()
        if path is None:
            if not self._missing_logged:
                log.warning("reader: no reader board found; waiting for it to be plugged in")
                self._missing_logged = True
            return False
        try:
            ser = serial.Serial(path, self.baudrate, timeout=self.read_timeout, write_timeout=0.5)
        except (serial.SerialException, OSError, ValueError) as exc:
            if not self._missing_logged:
                log.warning("reader: cannot open %s: %s", path, exc)
                self._missing_logged = True
            return False
        with self._lock:
            self._serial = ser
        self.connected_port = path
        self._missing_logged = False
        self._last_rx = time.monotonic()
        self.stats.connects += 1
        log.info("reader: connected on %s", path)
        self.send("version")  # the board answers with hello: we learn its boot id at once
        return True

    def _release(self) -> bool:
        """Close the port if open; True if it was."""
        with self._lock:
            ser, self._serial = self._serial, None
        if ser is None:
            return False
        with contextlib.suppress(Exception):  # not every port object can cancel a read
            ser.cancel_read()
        with contextlib.suppress(Exception):  # closing a dead port may fail in many ways
            ser.close()
        return True

    def _drop(self, why: str) -> None:
        if self._release():
            self.stats.disconnects += 1
            if not self._closed.is_set():
                log.warning("reader: disconnected from %s (%s)", self.connected_port, why)
        self.session.disconnected()
        self.connected_port = None

    @property
    def connected(self) -> bool:
        return self._serial is not None

    # -- TagSource ---------------------------------------------------------------
    def events(self) -> Iterator[ReaderEvent]:
        import serial

        try:
            while not self._closed.is_set():
                ser = self._serial
                if ser is None:
                    if not self._connect():
                        self._closed.wait(self.reconnect_delay)
                    continue
                try:
                    waiting = ser.in_waiting
                    data = ser.read(max(1, min(waiting, 4096)))
                except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
                    self._drop(f"read failed: {exc}")
                    if not self._closed.is_set():
                        self._closed.wait(self.reconnect_delay)
                    continue
                now = time.monotonic()
                if not data:
                    if self.silence_timeout is not None and now - self._last_rx > self.silence_timeout:
                        self._drop(f"nothing received for {self.silence_timeout:g} s")
                    continue
                self._last_rx = now
                for item in self.session.feed(data):
                    if isinstance(item, TagEvent | TagRemoved):
                        yield item
                    elif self.on_status is not None:
                        try:
                            self.on_status(item)
                        except Exception:  # a broken listener must not stop the taps
                            log.exception("reader: on_status callback failed")
        finally:
            self._release()

    def close(self) -> None:
        """Stop ``events()`` (within ``read_timeout``) and release the port."""
        self._closed.set()
        self._release()

    # -- commands ----------------------------------------------------------------
    def send(self, name: str, **fields: str | int) -> bool:
        """Send one command line; False if the board is not connected or the write failed."""
        import serial

        with self._lock:
            ser = self._serial
            if ser is None:
                return False
            line = encode_command(self._cmd_seq, name, list(fields.items()))
            self._cmd_seq = (self._cmd_seq + 1) % SEQ_MOD
            try:
                ser.write(line)
                ser.flush()
            except (serial.SerialException, OSError) as exc:
                log.warning("reader: could not send %s: %s", name, exc)
                return False
        return True

    def feedback(self, accepted: bool) -> bool:
        """Blink the board LED / beep its buzzer for an accepted or rejected tap."""
        return self.send("feedback", result="accept" if accepted else "reject")


# -- simulated reader ------------------------------------------------------------

_UID_HEX = re.compile(r"[0-9A-Fa-f]+")


def normalize_uid(text: str) -> str:
    """Upper-case hex UID of 4, 7 or 10 bytes; ``:`` and ``-`` separators are allowed."""
    uid = text.replace(":", "").replace("-", "").strip()
    if not _UID_HEX.fullmatch(uid) or len(uid) not in (8, 14, 20):
        raise ValueError(f"not a UID (4, 7 or 10 bytes of hex): {text!r}")
    return uid.upper()


@dataclass(frozen=True)
class Wait:
    """A pause in a simulated-reader script."""

    seconds: float


ScriptStep = TagEvent | TagRemoved | Wait


class ScriptError(ValueError):
    """A bad line in a reader script; names the line."""

    def __init__(self, lineno: int, text: str, why: str) -> None:
        super().__init__(f"line {lineno}: {why}: {text.strip()!r}")
        self.lineno = lineno


SCRIPT_HELP = """\
Reader script: one command per line, '#' starts a comment.
  tap R UID       a tag is put on pad R and lifted again (tag + removed)
  place R UID     a tag is put on pad R and stays (tag)
  lift R UID      the tag is lifted off pad R (removed); also: remove
  wait SECONDS    pause; also: sleep
UIDs are 4, 7 or 10 bytes of hex, e.g. 04A1B2C3D4E5F6; pads are 0..15."""


def parse_script_line(text: str, lineno: int = 1) -> list[ScriptStep]:
    words = text.split("#", 1)[0].split()
    if not words:
        return []
    cmd = words[0].lower()
    try:
        if cmd in ("wait", "sleep"):
            if len(words) != 2:
                raise ValueError("wait takes one number of seconds")
            seconds = float(words[1])
            if not 0 <= seconds <= 3600:
                raise ValueError("wait must be between 0 and 3600 seconds")
            return [Wait(seconds)]
        if cmd in ("tap", "place", "lift", "remove"):
            if len(words) != 3:
                raise ValueError(f"{cmd} takes a pad number and a UID")
            if not words[1].isdigit() or not 0 <= int(words[1]) <= 15:
                raise ValueError("pad must be a number 0..15")
            reader, uid = int(words[1]), normalize_uid(words[2])
            if cmd == "tap":
                return [TagEvent(reader, uid), TagRemoved(reader, uid)]
            if cmd == "place":
                return [TagEvent(reader, uid)]
            return [TagRemoved(reader, uid)]
        raise ValueError("unknown command (tap, place, lift, wait)")
    except ValueError as exc:
        raise ScriptError(lineno, text, str(exc)) from None


def parse_script(text: str) -> list[ScriptStep]:
    """Parse a whole script; raises ScriptError for the first bad line (nothing is played)."""
    steps: list[ScriptStep] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        steps.extend(parse_script_line(line, lineno))
    return steps


def _stream_steps(stream: TextIO) -> Iterator[ScriptStep]:
    """Steps from a live stream (stdin): a bad line is reported and skipped, the rest goes on."""
    for lineno, line in enumerate(stream, 1):
        try:
            steps = parse_script_line(line, lineno)
        except ScriptError as exc:
            log.error("reader script: %s", exc)
            continue
        yield from steps


class SimulatedReader:
    """A scriptable TagSource.

    ``steps`` are played in order (``Wait`` pauses, scaled by ``speed``);
    events given to :meth:`push` (from any thread) are delivered as they come.
    ``events()`` ends when the steps run out, unless ``follow`` is set, in
    which case it waits for pushed events until :meth:`close`.
    """

    def __init__(self, steps: Iterable[ScriptStep] = (), *, follow: bool = False, speed: float = 1.0) -> None:
        if speed <= 0:
            raise ValueError("speed must be positive")
        self._steps = iter(steps)
        self.follow = follow
        self.speed = speed
        self._queue: queue.Queue[ReaderEvent] = queue.Queue()
        self._closed = threading.Event()

    @classmethod
    def from_script(cls, source: str | Path, **kwargs: Any) -> SimulatedReader:
        """From a script file (a Path, or a str naming an existing file) or script text."""
        if isinstance(source, Path) or "\n" not in source and Path(source).is_file():
            text = Path(source).read_text()
        else:
            text = source
        return cls(parse_script(text), **kwargs)

    @classmethod
    def from_stream(cls, stream: TextIO, **kwargs: Any) -> SimulatedReader:
        """Plays lines as they are read from ``stream`` (e.g. stdin); ends at end of input."""
        return cls(_stream_steps(stream), **kwargs)

    def push(self, event: ReaderEvent) -> None:
        self._queue.put(event)

    def tap(self, reader: int, uid: str) -> None:
        """Push a whole tap (tag, then removed)."""
        uid = normalize_uid(uid)
        self.push(TagEvent(reader, uid))
        self.push(TagRemoved(reader, uid))

    def _drain(self) -> Iterator[ReaderEvent]:
        while True:
            try:
                yield self._queue.get_nowait()
            except queue.Empty:
                return

    def events(self) -> Iterator[ReaderEvent]:
        for step in self._steps:
            yield from self._drain()
            if self._closed.is_set():
                return
            if isinstance(step, Wait):
                self._closed.wait(step.seconds / self.speed)
                continue
            yield step
        yield from self._drain()
        while self.follow and not self._closed.is_set():
            try:
                yield self._queue.get(timeout=0.1)
            except queue.Empty:
                continue

    def close(self) -> None:
        self._closed.set()

    def feedback(self, accepted: bool) -> bool:
        log.info("simulated reader: %s", "accepted" if accepted else "rejected")
        return True


def parse_usb_id(text: str) -> tuple[int, int]:
    """``"2E8A:0005"`` -> (0x2E8A, 0x0005)."""
    vid, sep, pid = text.partition(":")
    try:
        if not sep:
            raise ValueError
        return int(vid, 16), int(pid, 16)
    except ValueError:
        raise ValueError(f"USB id must look like 2E8A:0005, not {text!r}") from None


def open_reader(
    mode: str = "simulated", port: str = "auto", usb_id: str = "2E8A:0005", script: str | None = None
) -> SerialReader | SimulatedReader:
    """A reader from plain settings (as in ``[reader]`` of the configuration).

    ``mode`` ``serial``: the board on ``port`` (``auto``: found by ``usb_id``);
    ``simulated``: a :class:`SimulatedReader` playing ``script`` (a file) if
    given, otherwise waiting for pushed taps.
    """
    if mode == "serial":
        vid, pid = parse_usb_id(usb_id)
        return SerialReader(None if port == "auto" else port, vid=vid, pid=pid)
    if mode == "simulated":
        if script is not None:
            return SimulatedReader.from_script(Path(script), follow=True)
        return SimulatedReader(follow=True)
    raise ValueError(f"reader mode must be 'serial' or 'simulated', not {mode!r}")
