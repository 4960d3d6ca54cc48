"""The one reader of input files: game exports, tag CSVs, the configuration, table scripts.

Every file a command is handed goes through :func:`read_text` (and :func:`read_json`,
:func:`read_toml`, :func:`read_csv_text` on top of it), which refuses at once, with one line
naming the file and the cause, and before reading more than the limit:

* anything that is not a regular file (a folder, a FIFO, a device such as a link to ``/dev/zero``),
  opened without blocking so a FIFO cannot hang the command;
* a file larger than the limit for its kind (read at most one byte past it: memory stays bounded);
* binary content (a NUL byte) and text that is not UTF-8 (a leading BOM is allowed);
* JSON or TOML that does not parse, nests deeper than :data:`MAX_DEPTH`, holds ``NaN``,
  ``Infinity`` or a number too large for a float (``1e999``), or whose top level is not the
  expected type (``null``, a list where an object is wanted);
* a CSV that does not parse (an unterminated quote) or has a field longer than
  :data:`MAX_CSV_FIELD` characters.

Each refusal is an :class:`InputFileError`; every command prints it as ``error: <sentence>`` and
exits with :data:`EXIT_BAD_FILE`, the same code for the same error whichever command read the file.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import stat
import tomllib
from typing import Any, Final

__all__ = [
    "EXIT_BAD_FILE",
    "InputFileError",
    "LIMITS",
    "MAX_CSV_FIELD",
    "MAX_DEPTH",
    "read_csv_text",
    "read_json",
    "read_stream",
    "read_text",
    "read_toml",
]

EXIT_BAD_FILE: Final = 3
"""The exit code of every command refusing an input file (2 is argparse's for a bad command line)."""

MAX_DEPTH: Final = 64
"""Deepest nesting of lists and objects in a JSON or TOML file (an export nests about 6 deep)."""

MAX_CSV_FIELD: Final = 4096
"""Longest field of a CSV (a tag export's longest, a card label, is under 100 characters)."""

_MB: Final = 1024 * 1024
LIMITS: Final = {
    "export": 64 * _MB,  # an 18xx.games export of a long game is a few MB
    "trace": 256 * _MB,
    "tags CSV": 4 * _MB,  # every card of every title is about 100 kB
    "configuration": 1 * _MB,
    "table script": 16 * _MB,
    "reader script": 16 * _MB,
}


class InputFileError(Exception):
    """An input file that cannot be used; the message is one sentence naming the file."""


def _a(what: str) -> str:
    """``what`` with its article: "a table script", "an export"."""
    return f"an {what}" if what[0] in "aeiou" else f"a {what}"


def _size(n: int) -> str:
    return f"{n / _MB:.0f} MB" if n >= _MB else f"{n // 1024} kB" if n >= 1024 else f"{n} bytes"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_bytes(path: str | os.PathLike[str], what: str) -> bytes:
    """The bytes of the regular file ``path``, at most ``LIMITS[what]`` of them, else refused."""
    limit = LIMITS[what]
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputFileError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputFileError(f"{path}: cannot open the {what} ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputFileError(f"{path}: is {_kind(info.st_mode)}, not {_a(what)} file")
        if info.st_size > limit:
            raise InputFileError(
                f"{path}: is {_size(info.st_size)}, more than the {_size(limit)} {_a(what)} may be"
            )
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, _MB))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise InputFileError(f"{path}: is more than the {_size(limit)} {_a(what)} may be")
    return data


def _decode(data: bytes, source: str, what: str) -> str:
    if b"\0" in data:
        raise InputFileError(f"{source}: is a binary file, not {_a(what)}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFileError(
            f"{source}: is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            f"save the {what} as UTF-8"
        ) from None


def read_text(path: str | os.PathLike[str], what: str) -> str:
    """The text of ``path`` (a regular file, within its limit, UTF-8 without NUL bytes)."""
    return _decode(read_bytes(path, what), str(path), what)


def read_stream(stream: Any, source: str, what: str) -> str:
    """Like :func:`read_text` for an open binary (or text) stream such as stdin."""
    limit = LIMITS[what]
    buffer = getattr(stream, "buffer", stream)
    data = buffer.read(limit + 1)
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    if len(data) > limit:
        raise InputFileError(f"{source}: is more than the {_size(limit)} {_a(what)} may be")
    return _decode(data, source, what)


def _depth_ok(value: object) -> bool:
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > MAX_DEPTH:
            return False
        stack.extend((child, depth + 1) for child in children)
    return True


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false"}.get(
        type(value), "a number"
    )


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"the number {text} is too large")
    return number


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def read_json(path: str | os.PathLike[str], what: str, top: type = dict) -> Any:
    """The JSON value of ``path``, whose top level must be a ``top`` (an object by default)."""
    text = read_text(path, what)
    try:
        value = json.loads(text, parse_float=_finite, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise InputFileError(
            f"{path}: is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    except ValueError as exc:
        raise InputFileError(f"{path}: is not usable JSON ({exc})") from None
    except RecursionError:
        raise InputFileError(f"{path}: nests deeper than {MAX_DEPTH} levels") from None
    if not _depth_ok(value):
        raise InputFileError(f"{path}: nests deeper than {MAX_DEPTH} levels")
    if not isinstance(value, top):
        raise InputFileError(
            f"{path}: the top level is {_type_name(value)}, not {_type_name(top())}; not {_a(what)}"
        )
    return value


def read_json_lines(path: str | os.PathLike[str], what: str) -> list[Any]:
    """Every non-blank line of ``path`` as a JSON object (a trace)."""
    values = []
    for n, line in enumerate(read_text(path, what).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line, parse_float=_finite, parse_constant=_no_constant)
        except (ValueError, RecursionError) as exc:
            raise InputFileError(
                f"{path}: line {n} is not a JSON object ({str(exc) or 'too deep'})"
            ) from None
        if not isinstance(value, dict) or not _depth_ok(value):
            raise InputFileError(f"{path}: line {n} is not a JSON object of at most {MAX_DEPTH} levels")
        values.append(value)
    return values


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """``text`` as TOML (``tomllib.TOMLDecodeError`` for bad syntax), refused if it nests too deep."""
    try:
        value = tomllib.loads(text)
    except RecursionError:
        raise InputFileError(f"{source}: nests deeper than {MAX_DEPTH} levels") from None
    if not _depth_ok(value):
        raise InputFileError(f"{source}: nests deeper than {MAX_DEPTH} levels")
    return value


def read_toml(path: str | os.PathLike[str], what: str) -> dict[str, Any]:
    text = read_text(path, what)
    try:
        return parse_toml(text, str(path))
    except tomllib.TOMLDecodeError as exc:
        raise InputFileError(f"{path}: is not TOML ({exc})") from None


def check_csv(text: str, source: str) -> str:
    """``text`` if it parses as CSV with no field over :data:`MAX_CSV_FIELD` characters."""
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        for row in reader:
            for cell in row:
                if len(cell) > MAX_CSV_FIELD:
                    raise InputFileError(
                        f"{source}: line {reader.line_num} has a field of {len(cell)} characters, "
                        f"more than the {MAX_CSV_FIELD} a CSV field may be"
                    )
    except csv.Error as exc:
        raise InputFileError(f"{source}: is not CSV (line {reader.line_num}: {exc})") from None
    return text


def read_csv_text(path: str | os.PathLike[str], what: str) -> str:
    """The text of the CSV file ``path``, checked by :func:`check_csv`."""
    return check_csv(read_text(path, what), str(path))


def export_problem(data: dict[str, Any]) -> str | None:
    """What makes a parsed JSON object no 18xx.games export this companion can read (the types of
    its title, players, settings and actions), or None; the actions themselves are the engine's."""
    for key in ("title", "players", "actions"):
        if key not in data:
            return f"not an 18xx.games export (no {key!r})"
    if not isinstance(data["title"], str) or not data["title"]:
        return f"the title must be a name, not {_type_name(data['title'])}"
    from companion.interop.actions import ExportError, export_players

    try:  # the forms 18xx.games writes players in, as the export reader takes them
        export_players(data["players"])
    except ExportError as exc:
        return str(exc)
    if not isinstance(data["actions"], list):
        return f"actions must be a list, not {_type_name(data['actions'])}"
    for n, action in enumerate(data["actions"], start=1):
        if not isinstance(action, dict):
            return f"action {n} is {_type_name(action)}, not an object"
    settings = data.get("settings")
    if settings is None:
        return None
    if not isinstance(settings, dict):
        return f"settings must be an object, not {_type_name(settings)}"
    rules = settings.get("optional_rules")
    if rules is not None and not (isinstance(rules, list) and all(isinstance(r, str) for r in rules)):
        shown = f"the string {rules!r}" if isinstance(rules, str) else _type_name(rules)
        return f"settings.optional_rules must be a list of rule names, not {shown}"
    seed = settings.get("seed")
    whole = isinstance(seed, int) and not isinstance(seed, bool)
    digits = isinstance(seed, str) and seed.strip().lstrip("-").isdigit() and len(seed) < 40
    if seed not in (None, "") and not whole and not digits:
        return f"settings.seed must be a whole number, not {seed!r}"
    return None
