# Line protocol of the NFC reader board (device side).  See PROTOCOL.md.
#
# Runs under MicroPython and CPython (the tests import it); plain Python only,
# no typing, no dataclasses, no f-strings.

PROTO_VERSION = 1
MAX_LINE = 200  # bytes, without the line end
MAX_VALUE = 180  # characters of one field value

_TOKEN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.,:+-"
_HEX = "0123456789ABCDEF"


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor)."""
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc


def hexstr(data):
    """Upper-case hex of a bytes-like object (MicroPython has no reliable bytes.hex)."""
    out = ""
    for b in data:
        out += _HEX[b >> 4] + _HEX[b & 0x0F]
    return out


def is_token(text):
    if not text:
        return False
    for ch in text:
        if ch not in _TOKEN_CHARS:
            return False
    return True


def clean_token(text):
    """Make ``text`` a valid field value: forbidden characters become '_'."""
    text = str(text)
    out = ""
    for ch in text[:MAX_VALUE]:
        out += ch if ch in _TOKEN_CHARS else "_"
    return out or "_"


def frame(head, kind, fields):
    """One protocol line: ``<head> <kind> k=v ... *CRC`` plus ``\\n``.

    ``fields`` is a list of (key, value) pairs, kept in order.
    """
    body = head + " " + kind
    for key, value in fields:
        body += " " + key + "=" + clean_token(value)
    crc = crc16(body.encode())
    return body + " *" + _HEX[crc >> 12] + _HEX[(crc >> 8) & 15] + _HEX[(crc >> 4) & 15] + _HEX[crc & 15] + "\n"


def device_head(boot, seq):
    """``BBBBBBBB.SSSS``: boot id and sequence number, both upper-case hex."""
    return "%08X.%04X" % (boot & 0xFFFFFFFF, seq & 0xFFFF)


def encode_event(boot, seq, kind, fields):
    return frame(device_head(boot, seq), kind, fields)


def encode_command(seq, name, fields):
    """Host -> device line (the host uses companion.hardware.protocol; tests use this)."""
    return frame("%04X" % (seq & 0xFFFF), name, fields)


class LineError(Exception):
    pass


def _is_hex(text, length):
    if len(text) != length:
        return False
    for ch in text:
        if ch not in _HEX:
            return False
    return True


def split_checked(line):
    """Check length, characters and CRC of one line; return its tokens before ``*CRC``.

    ``line`` is str or bytes without (or with) the trailing line end.
    Raises LineError(reason) for anything malformed.
    """
    if isinstance(line, (bytes, bytearray)):
        for b in line:
            if b < 0x20 and b not in (0x0A, 0x0D) or b > 0x7E:
                raise LineError("not_ascii")
        line = bytes(line).decode()
    line = line.rstrip("\r\n")
    if len(line) > MAX_LINE:
        raise LineError("too_long")
    star = line.rfind(" *")
    if star < 0:
        raise LineError("no_crc")
    body = line[:star]
    crc_text = line[star + 2 :]
    if not _is_hex(crc_text, 4):
        raise LineError("bad_crc_field")
    if crc16(body.encode()) != int(crc_text, 16):
        raise LineError("crc")
    tokens = body.split(" ")
    if len(tokens) < 2:
        raise LineError("format")
    return tokens


def parse_fields(tokens):
    fields = {}
    for tok in tokens:
        eq = tok.find("=")
        if eq <= 0:
            raise LineError("field")
        key = tok[:eq]
        value = tok[eq + 1 :]
        if not is_token(key) or not is_token(value) or key in fields:
            raise LineError("field")
        fields[key] = value
    return fields


def parse_command(line):
    """Parse a host -> device line; returns (seq, name, fields dict)."""
    tokens = split_checked(line)
    if not _is_hex(tokens[0], 4):
        raise LineError("seq")
    name = tokens[1]
    if not is_token(name):
        raise LineError("format")
    return int(tokens[0], 16), name, parse_fields(tokens[2:])


def parse_event(line):
    """Parse a device -> host line; returns (boot, seq, kind, fields dict).

    The host has its own stricter decoder (companion.hardware.protocol); this
    one exists so firmware-side tools and tests can read their own output.
    """
    tokens = split_checked(line)
    head = tokens[0]
    if len(head) != 13 or head[8] != "." or not _is_hex(head[:8], 8) or not _is_hex(head[9:], 4):
        raise LineError("head")
    return int(head[:8], 16), int(head[9:], 16), tokens[1], parse_fields(tokens[2:])


class LineBuffer:
    """Collects bytes into lines; drops (and reports) lines longer than MAX_LINE."""

    def __init__(self, limit=MAX_LINE + 2):
        self.limit = limit
        self.buf = bytearray()
        self.overflow = False

    def feed(self, data):
        """Returns a list of complete lines (bytes, without the line end); None marks a dropped line."""
        out = []
        for b in data:
            if b == 0x0A:
                if self.overflow:
                    out.append(None)
                else:
                    out.append(bytes(self.buf).rstrip(b"\r"))
                self.buf = bytearray()
                self.overflow = False
            elif not self.overflow:
                self.buf.append(b)
                if len(self.buf) > self.limit:
                    self.overflow = True
                    self.buf = bytearray()
        return out
