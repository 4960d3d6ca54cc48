"""Host side of the NFC reader line protocol (``firmware/PROTOCOL.md``, version 1).

Three layers, all pure (no I/O):

* :func:`decode_line` - one line of bytes to a :class:`DeviceLine`, strictly:
  anything malformed raises :class:`LineError` with a short reason.
* :class:`LineSplitter` - bytes from the wire to lines, dropping over-long ones.
* :class:`Session` - decoded lines to :class:`~companion.hardware.events.TagEvent` /
  :class:`~companion.hardware.events.TagRemoved`: drops repeats by (boot id,
  sequence number), counts gaps, and reconciles its idea of which tag lies on
  which pad with the device's heartbeat, so a reconnect or a device reboot
  never turns a tag still lying on a pad into a second tap.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from companion.hardware.events import ReaderEvent, TagEvent, TagRemoved

PROTO_VERSION = 1
MAX_LINE = 200
SEQ_MOD = 0x10000
REPLAY_WINDOW = 1024  # a seq up to this far behind the last one is a repeat, not a restart
OLD_BOOTS = 16  # earlier boot ids remembered, so their late lines are not taken for a new boot
MAX_READERS = 16

log = logging.getLogger("companion.hardware.reader")

_LINE_RE = re.compile(
    rb"([0-9A-F]{8})\.([0-9A-F]{4}) ([a-z][a-z0-9_]{0,15})"
    rb"((?: [A-Za-z0-9_]{1,16}=[A-Za-z0-9_.,:+-]{1,180})*) \*([0-9A-F]{4})"
)
_UID_RE = re.compile(r"(?:[0-9A-F]{8}|[0-9A-F]{14}|[0-9A-F]{20})")
_INT_RE = re.compile(r"[0-9]{1,10}")
_TOKEN_RE = re.compile(r"[A-Za-z0-9_.,:+-]{1,180}")


class LineError(ValueError):
    """A line that is not a valid protocol line; ``reason`` is a short tag for the statistics."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, not reflected, no final xor."""
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


@dataclass(frozen=True)
class DeviceLine:
    """One decoded device -> host line."""

    boot: int
    seq: int
    kind: str
    fields: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class DeviceHello:
    boot: int
    proto: int
    firmware: str
    readers: int
    chip: str
    heartbeat_ms: int


@dataclass(frozen=True)
class Heartbeat:
    boot: int
    uptime_ms: int
    tags: tuple[str | None, ...]
    errors: int


@dataclass(frozen=True)
class DeviceError:
    boot: int
    code: str
    reader: int | None
    detail: str


@dataclass(frozen=True)
class CommandReply:
    """pong / ok / nak for the host command with sequence number ``ack``."""

    boot: int
    kind: str
    ack: int
    reason: str


StatusEvent = DeviceHello | Heartbeat | DeviceError | CommandReply


def _int(fields: dict[str, str], key: str, lo: int, hi: int) -> int:
    text = fields.get(key)
    if text is None or not _INT_RE.fullmatch(text):
        raise LineError("field", f"{key} missing or not a number")
    value = int(text)
    if not lo <= value <= hi:
        raise LineError("field", f"{key}={value} out of range")
    return value


def _uid(fields: dict[str, str]) -> str:
    text = fields.get("uid", "")
    if not _UID_RE.fullmatch(text):
        raise LineError("field", "uid must be 4, 7 or 10 bytes of upper-case hex")
    return text


def _check_fields(kind: str, fields: dict[str, str]) -> None:
    """Kind-specific validation; unknown kinds pass (forward compatibility)."""
    if kind in ("tag", "removed"):
        _int(fields, "r", 0, MAX_READERS - 1)
        _uid(fields)
    elif kind == "hello":
        _int(fields, "proto", 0, 999)
        _int(fields, "readers", 0, MAX_READERS)
        if "fw" not in fields:
            raise LineError("field", "hello without fw")
        if "hb" in fields:
            _int(fields, "hb", 1, 3_600_000)
    elif kind == "hb":
        _int(fields, "up", 0, 2**32)
        tags = fields.get("tags")
        if tags is None:
            raise LineError("field", "hb without tags")
        for t in tags.split(","):
            if t != "-" and not _UID_RE.fullmatch(t):
                raise LineError("field", "bad uid in hb tags")
        if len(tags.split(",")) > MAX_READERS:
            raise LineError("field", "too many readers in hb")
        if "errs" in fields:
            _int(fields, "errs", 0, 2**32)
    elif kind == "error":
        if "code" not in fields:
            raise LineError("field", "error without code")
        if "r" in fields:
            _int(fields, "r", 0, MAX_READERS - 1)
    elif kind in ("pong", "ok", "nak"):
        ack = fields.get("ack", "")
        if not re.fullmatch(r"[0-9A-F]{4}", ack):
            raise LineError("field", "bad ack")


def decode_line(raw: bytes) -> DeviceLine:
    """Decode one line (without its line end; a trailing CR is allowed)."""
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    if len(raw) > MAX_LINE:
        raise LineError("too_long")
    if not raw:
        raise LineError("empty")
    if any(b < 0x20 or b > 0x7E for b in raw):
        raise LineError("not_ascii")
    m = _LINE_RE.fullmatch(raw)
    if m is None:
        raise LineError("format")
    body = raw[: raw.rfind(b" *")]
    if crc16(body) != int(m.group(5), 16):
        raise LineError("crc")
    fields: dict[str, str] = {}
    for tok in m.group(4).decode().split():
        key, _, value = tok.partition("=")
        if key in fields:
            raise LineError("field", f"duplicate {key}")
        fields[key] = value
    kind = m.group(3).decode()
    _check_fields(kind, fields)
    return DeviceLine(int(m.group(1), 16), int(m.group(2), 16), kind, fields)


def frame(head: str, kind: str, fields: Sequence[tuple[str, str | int]] = ()) -> bytes:
    parts = [head, kind]
    for key, value in fields:
        text = str(value)
        if not _TOKEN_RE.fullmatch(key) or not _TOKEN_RE.fullmatch(text) or "=" in key:
            raise ValueError(f"invalid field {key}={text!r}")
        parts.append(f"{key}={text}")
    body = " ".join(parts)
    if not re.fullmatch(r"[a-z][a-z0-9_]{0,15}", kind):
        raise ValueError(f"invalid line kind {kind!r}")
    line = f"{body} *{crc16(body.encode()):04X}"
    if len(line) > MAX_LINE:
        raise ValueError("line too long")
    return (line + "\n").encode()


def encode_command(seq: int, name: str, fields: Sequence[tuple[str, str | int]] = ()) -> bytes:
    """A host -> device command line: ``SSSS name k=v ... *CRC``."""
    return frame(f"{seq % SEQ_MOD:04X}", name, fields)


def encode_device_line(boot: int, seq: int, kind: str, fields: Sequence[tuple[str, str | int]] = ()) -> bytes:
    """A device -> host line (for fake devices in tests and the bench)."""
    return frame(f"{boot & 0xFFFFFFFF:08X}.{seq % SEQ_MOD:04X}", kind, fields)


class LineSplitter:
    """Bytes to lines.  A line longer than ``limit`` is dropped whole (reported as None)."""

    def __init__(self, limit: int = MAX_LINE + 2) -> None:
        self.limit = limit
        self._buf = bytearray()
        self._overflow = False

    def feed(self, data: bytes) -> list[bytes | None]:
        out: list[bytes | None] = []
        start = 0
        while True:
            nl = data.find(b"\n", start)
            chunk = data[start:] if nl < 0 else data[start:nl]
            if not self._overflow:
                self._buf += chunk
                if len(self._buf) > self.limit:
                    self._overflow = True
                    self._buf.clear()
            if nl < 0:
                return out
            out.append(None if self._overflow else bytes(self._buf))
            self._buf.clear()
            self._overflow = False
            start = nl + 1

    @property
    def pending(self) -> int:
        """Bytes of an unfinished line held so far."""
        return len(self._buf)

    def reset(self) -> bool:
        """Forget a partial line (after a disconnect); True if there was one."""
        had = bool(self._buf) or self._overflow
        self._buf.clear()
        self._overflow = False
        return had


@dataclass
class ReaderStats:
    """What the host reader saw; every rejected or repaired thing is counted."""

    lines: int = 0  # valid lines accepted
    corrupt: int = 0  # lines rejected by the decoder (including over-long ones)
    corrupt_reasons: dict[str, int] = field(default_factory=dict)
    truncated: int = 0  # partial lines dropped at a disconnect
    duplicates: int = 0  # repeated (boot, seq): dropped
    stale: int = 0  # lines of an earlier boot arriving after a newer one: dropped
    gaps: int = 0  # times the sequence skipped ahead
    missing: int = 0  # lines skipped over in those gaps
    unknown: int = 0  # valid lines of a kind this host does not know
    boots: int = 0  # device boots seen (boot id changes)
    connects: int = 0  # serial port opened
    disconnects: int = 0
    taps: int = 0  # TagEvent delivered
    removals: int = 0  # TagRemoved delivered
    recovered: int = 0  # repairs for lost lines (from a heartbeat, or a tag that came without its removed)
    reannounced: int = 0  # tag lines after a device restart for a tag still on its pad (not a new tap)
    stray_removed: int = 0  # removed lines for a tag not known on that pad
    device_errors: int = 0
    incompatible: int = 0  # lines ignored because the device speaks another protocol version

    def reject(self, reason: str) -> None:
        self.corrupt += 1
        self.corrupt_reasons[reason] = self.corrupt_reasons.get(reason, 0) + 1


Item = ReaderEvent | StatusEvent


class Session:
    """Turns bytes from one device (across reconnects and reboots) into events."""

    def __init__(self, stats: ReaderStats | None = None, log_limit: int = 20) -> None:
        self.stats = stats if stats is not None else ReaderStats()
        self.splitter = LineSplitter()
        self.boot: int | None = None
        self.old_boots: list[int] = []  # earlier boot ids of this device, newest last
        self.last_seq = 0
        self.incompatible = False
        self.hello: DeviceHello | None = None
        self.present: dict[int, str] = {}  # pad -> UID believed to lie there
        self.present_boot: dict[int, int | None] = {}  # pad -> boot id that last confirmed it
        self._log_limit = log_limit
        self._logged: dict[str, int] = {}

    def _warn(self, key: str, msg: str, *args: object) -> None:
        n = self._logged.get(key, 0) + 1
        self._logged[key] = n
        if n <= self._log_limit or n % 1000 == 0:
            log.warning(msg + (f" (#{n})" if n > 1 else ""), *args)

    # -- transport -----------------------------------------------------------
    def feed(self, data: bytes) -> list[Item]:
        out: list[Item] = []
        for raw in self.splitter.feed(data):
            if raw is None:
                self.stats.reject("too_long")
                self._warn("corrupt", "reader: dropped an over-long line")
                continue
            if not raw.strip():
                continue
            try:
                line = decode_line(raw)
            except LineError as e:
                self.stats.reject(e.reason)
                self._warn("corrupt", "reader: rejected line (%s): %r", e, raw[:80])
                continue
            out.extend(self.handle(line))
        return out

    def disconnected(self) -> None:
        """The link dropped: a half-received line is thrown away, never completed by new bytes."""
        if self.splitter.reset():
            self.stats.truncated += 1
            log.warning("reader: dropped a partial line at disconnect")

    # -- lines -----------------------------------------------------------------
    def handle(self, line: DeviceLine) -> list[Item]:
        if line.boot != self.boot:
            if line.boot in self.old_boots:
                # A late line from before the device restarted: its state is superseded.
                self.stats.stale += 1
                self._warn("stale", "reader: dropped a line from an earlier boot %08X", line.boot)
                return []
            if self.boot is not None:
                log.info("reader: device restarted (boot %08X -> %08X)", self.boot, line.boot)
                self.old_boots.append(self.boot)
                del self.old_boots[:-OLD_BOOTS]
            self.stats.boots += 1
            self.boot = line.boot
            self.incompatible = False
        else:
            d = (line.seq - self.last_seq) % SEQ_MOD
            if d == 0 or SEQ_MOD - d <= REPLAY_WINDOW:
                self.stats.duplicates += 1
                self._warn("dup", "reader: dropped repeated line %08X.%04X", line.boot, line.seq)
                return []
            if d > 1:
                self.stats.gaps += 1
                self.stats.missing += d - 1
                self._warn("gap", "reader: %d line(s) missing before %04X", d - 1, line.seq)
        self.last_seq = line.seq
        self.stats.lines += 1
        f = line.fields
        if line.kind == "hello":
            return self._hello(line)
        if self.incompatible:
            self.stats.incompatible += 1
            return []
        if line.kind == "tag":
            return self._tag(int(f["r"]), f["uid"])
        if line.kind == "removed":
            return self._removed(int(f["r"]), f["uid"])
        if line.kind == "hb":
            return self._heartbeat(line)
        if line.kind == "error":
            self.stats.device_errors += 1
            reader = int(f["r"]) if "r" in f else None
            detail = f.get("detail", "")
            self._warn("deverr", "reader: device reports %s (pad %s, %s)", f["code"], reader, detail)
            return [DeviceError(line.boot, f["code"], reader, detail)]
        if line.kind in ("pong", "ok", "nak"):
            if line.kind == "nak":
                self._warn("nak", "reader: device refused command %s (%s)", f["ack"], f.get("reason", ""))
            return [CommandReply(line.boot, line.kind, int(f["ack"], 16), f.get("reason", ""))]
        self.stats.unknown += 1
        return []

    def _hello(self, line: DeviceLine) -> list[Item]:
        f = line.fields
        hello = DeviceHello(
            boot=line.boot,
            proto=int(f["proto"]),
            firmware=f["fw"],
            readers=int(f["readers"]),
            chip=f.get("chip", ""),
            heartbeat_ms=int(f.get("hb", "1000")),
        )
        self.hello = hello
        self.incompatible = hello.proto != PROTO_VERSION
        if self.incompatible:
            self.stats.incompatible += 1
            log.error(
                "reader: device speaks protocol %d, this host speaks %d: ignoring it (update the firmware)",
                hello.proto,
                PROTO_VERSION,
            )
        return [hello]

    def _tag(self, reader: int, uid: str) -> list[Item]:
        current = self.present.get(reader)
        out: list[Item] = []
        if current == uid:
            if self.present_boot.get(reader) != self.boot:
                # The device restarted and announces the tag still lying there: not a new tap.
                self.present_boot[reader] = self.boot
                self.stats.reannounced += 1
                return []
            # Within one boot the device sends `tag` only for a new placement:
            # the `removed` line in between was lost.
            self.stats.recovered += 1
            self._warn(
                "recover", "reader: pad %d: tag again without removed; the removed line was lost", reader
            )
        if current is not None:
            out.append(TagRemoved(reader, current))
            self.stats.removals += 1
        self.present[reader] = uid
        self.present_boot[reader] = self.boot
        self.stats.taps += 1
        out.append(TagEvent(reader, uid))
        return out

    def _removed(self, reader: int, uid: str) -> list[Item]:
        if self.present.get(reader) != uid:
            self.stats.stray_removed += 1
            return []
        del self.present[reader]
        self.stats.removals += 1
        return [TagRemoved(reader, uid)]

    def _heartbeat(self, line: DeviceLine) -> list[Item]:
        tags = tuple(None if t == "-" else t for t in line.fields["tags"].split(","))
        out: list[Item] = []
        readers = set(self.present) | set(range(len(tags)))
        for r in sorted(readers):
            want = tags[r] if r < len(tags) else None
            have = self.present.get(r)
            if want is not None:
                self.present_boot[r] = self.boot
            if want == have:
                continue
            self.stats.recovered += 1
            if have is not None:
                del self.present[r]
                self.stats.removals += 1
                out.append(TagRemoved(r, have))
            if want is not None:
                self.present[r] = want
                self.stats.taps += 1
                out.append(TagEvent(r, want))
        if out:
            self._warn("recover", "reader: heartbeat disagrees with tag lines; %d correction(s)", len(out))
        hb = Heartbeat(line.boot, int(line.fields["up"]), tags, int(line.fields.get("errs", "0")))
        return [*out, hb]
