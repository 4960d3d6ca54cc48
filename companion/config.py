"""The companion's configuration: one TOML file, validated into frozen dataclasses.

Every setting has a default, and the defaults are "simulated everything", so a
development machine needs no file at all::

    config = load_config(None)               # defaults
    config = load_config("/etc/companion/companion.toml")

A bad file raises :class:`ConfigError`, which lists *every* problem found, each
naming the key, the bad value and what is allowed, e.g.::

    /etc/companion/companion.toml: reader.baud: 'fast' is not an integer (allowed: 1200..4000000)
    /etc/companion/companion.toml: panel: unknown key 'confrim' (did you mean 'confirm'?)

What is checked when loading: types, ranges, enumerations, unknown sections
and keys, GPIO pins used twice, the title and its optional rules and player
count.  Device paths (``reader.port``, ``camera.file``) are *not* checked to
exist at load time: the reader may be plugged in later; ``deploy/check`` tests
the devices in place.

Relative paths in a file are resolved against the directory of that file.
See ``docs/CONFIGURATION.md`` for every key.
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

from companion.inputfile import parse_toml, read_text
from companion.titles import DEFAULT_TITLE

__all__ = [
    "BackupConfig",
    "CameraConfig",
    "Config",
    "ConfigError",
    "DisplayConfig",
    "GameConfig",
    "PanelConfig",
    "ReaderConfig",
    "config_value",
    "dump_toml",
    "load_config",
    "parse_config",
    "PICO_USB_ID",
    "READER_MODES",
    "PANEL_MODES",
    "CAMERA_MODES",
]

PICO_USB_ID: Final = "2E8A:0005"
"""USB vendor:product of a Raspberry Pi Pico running MicroPython (the reader board)."""

READER_MODES: Final = ("serial", "simulated")
PANEL_MODES: Final = ("gpio", "simulated")
CAMERA_MODES: Final = ("picamera2", "usb", "file", "simulated")
PANEL_PINS: Final = ("confirm", "cancel", "undo", "led_green", "led_red", "buzzer")
GPIO_RANGE: Final = (2, 27)
"""BCM numbers of the general-purpose pins on the 40-pin header (0 and 1 are the HAT ID EEPROM bus)."""
BAUD_RANGE: Final = (1200, 4_000_000)
MAX_READERS: Final = 8
_NAME_RE: Final = re.compile(r"^[a-z][a-z0-9_-]{0,23}$")
_SIZE_RE: Final = re.compile(r"^\s*(\d+)\s*[xX×]\s*(\d+)\s*$")
_USB_ID_RE: Final = re.compile(r"^[0-9A-Fa-f]{4}:[0-9A-Fa-f]{4}$")


def default_data_dir() -> Path:
    """Where a development machine keeps the game database: ``$XDG_DATA_HOME/companion``."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "companion"


# --------------------------------------------------------------------------- sections


@dataclass(frozen=True)
class GameConfig:
    """``[game]``: which title, who plays, optional rules, where the action log lives."""

    title: str = DEFAULT_TITLE
    players: tuple[str, ...] = ()
    """Player names in seating order; empty means "ask on the touchscreen"."""
    rules: tuple[str, ...] = ()
    """Optional rules of the title (their 18xx.games symbols, e.g. ``finish_on_400``)."""
    database: Path = field(default_factory=lambda: default_data_dir() / "companion.sqlite3")


@dataclass(frozen=True)
class ReaderConfig:
    """``[reader]``: the NFC reader board (USB serial) or its simulation."""

    mode: str = "simulated"
    port: str = "auto"
    """A serial device path, or ``auto``: the first USB serial device with ``usb_id``."""
    usb_id: str = PICO_USB_ID
    baud: int = 115200
    names: tuple[str, ...] = ("bank", "market")
    """Name of the reader at each index of the firmware (index 0 first)."""

    def name_of(self, index: int) -> str:
        """The configured name of reader ``index`` (``reader<index>`` if unnamed)."""
        return self.names[index] if 0 <= index < len(self.names) else f"reader{index}"


@dataclass(frozen=True)
class PanelConfig:
    """``[panel]``: three buttons, two LEDs and a buzzer on the Pi's GPIO (BCM numbers)."""

    mode: str = "simulated"
    confirm: int = 17
    cancel: int = 27
    undo: int = 22
    led_green: int = 23
    led_red: int = 24
    buzzer: int = 25

    def pins(self) -> dict[str, int]:
        """``{role: BCM pin}`` for every device of the panel."""
        return {name: getattr(self, name) for name in PANEL_PINS}


@dataclass(frozen=True)
class CameraConfig:
    """``[camera]``: the overhead camera that checks the tiles on the board."""

    mode: str = "simulated"
    resolution: tuple[int, int] = (1640, 1232)
    device: int = 0
    """OpenCV device index for ``usb`` mode."""
    file: Path | None = None
    """Image or video file for ``file`` mode."""
    check_interval: float = 10.0
    """Seconds between board checks."""


@dataclass(frozen=True)
class DisplayConfig:
    """``[display]``: the touchscreen window."""

    fullscreen: bool = False
    size: tuple[int, int] = (800, 480)


@dataclass(frozen=True)
class BackupConfig:
    """``[backup]``: online copies of the game database (``deploy/companion-backup``)."""

    directory: Path = field(default_factory=lambda: default_data_dir() / "backups")
    keep: int = 14


@dataclass(frozen=True)
class Config:
    """The whole configuration; ``source`` is the file it came from (``None``: defaults)."""

    game: GameConfig = field(default_factory=GameConfig)
    reader: ReaderConfig = field(default_factory=ReaderConfig)
    panel: PanelConfig = field(default_factory=PanelConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    backup: BackupConfig = field(default_factory=BackupConfig)
    source: Path | None = None


SECTIONS: Final[dict[str, type[Any]]] = {
    "game": GameConfig,
    "reader": ReaderConfig,
    "panel": PanelConfig,
    "camera": CameraConfig,
    "display": DisplayConfig,
    "backup": BackupConfig,
}


class ConfigError(ValueError):
    """A configuration file could not be used; ``problems`` lists every reason."""

    def __init__(self, problems: list[str], source: Path | None = None) -> None:
        self.problems = list(problems)
        self.source = source
        prefix = f"{source}: " if source is not None else ""
        super().__init__("\n".join(prefix + p for p in self.problems))


# --------------------------------------------------------------------------- loading


def load_config(path: str | os.PathLike[str] | None = None) -> Config:
    """Read and validate ``path``; ``None`` gives the defaults (simulated everything).

    Raises :class:`~companion.inputfile.InputFileError` when the file cannot be used as a file
    (missing, not a regular file, too large, binary, not UTF-8, nested too deep: the same refusal,
    and exit code, as every other input file), :class:`ConfigError` when it is not TOML or not
    valid; nothing is partially applied.
    """
    if path is None:
        return Config()
    source = Path(path)
    return parse_config(read_text(source, "configuration"), source=source)


def parse_config(text: str, source: Path | None = None) -> Config:
    """Validate TOML ``text``; relative paths resolve against ``source``'s directory."""
    try:
        raw = parse_toml(text, str(source or "configuration"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([f"not valid TOML: {exc}"], source) from None
    base = source.parent if source is not None else Path.cwd()
    v = _Validator(base)
    for section in raw:
        if section not in SECTIONS:
            v.problem(f"unknown section [{section}]{_hint(section, SECTIONS)}")
        elif not isinstance(raw[section], dict):
            v.problem(f"{section}: must be a table [{section}], not {_show(raw[section])}")
    tables: dict[str, dict[str, Any]] = {
        name: raw[name] for name in SECTIONS if isinstance(raw.get(name), dict)
    }
    config = Config(
        game=v.game(tables.get("game", {})),
        reader=v.reader(tables.get("reader", {})),
        panel=v.panel(tables.get("panel", {})),
        camera=v.camera(tables.get("camera", {})),
        display=v.display(tables.get("display", {})),
        backup=v.backup(tables.get("backup", {})),
        source=source,
    )
    if v.problems:
        raise ConfigError(v.problems, source)
    return config


def _show(value: Any) -> str:
    """A value as the user wrote it (TOML-ish), for error messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    return repr(value)


def _hint(word: str, choices: Mapping[str, Any] | tuple[str, ...]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


T = TypeVar("T")


class _Validator:
    """Collects problems while turning raw TOML tables into section dataclasses."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.problems: list[str] = []

    def problem(self, message: str) -> None:
        self.problems.append(message)

    # -- generic helpers -------------------------------------------------------

    def _keys(self, section: str, table: dict[str, Any], allowed: tuple[str, ...]) -> None:
        for key in table:
            if key not in allowed:
                self.problem(
                    f"{section}: unknown key {key!r}{_hint(key, allowed)}; allowed keys: {', '.join(allowed)}"
                )

    def _get(
        self,
        section: str,
        table: dict[str, Any],
        key: str,
        default: T,
        convert: Callable[[str, Any], T | None],
    ) -> T:
        if key not in table:
            return default
        value = convert(f"{section}.{key}", table[key])
        return default if value is None else value

    def _int(self, lo: int, hi: int) -> Callable[[str, Any], int | None]:
        def convert(name: str, value: Any) -> int | None:
            if isinstance(value, bool) or not isinstance(value, int):
                self.problem(f"{name}: {_show(value)} is not an integer (allowed: {lo}..{hi})")
                return None
            if not lo <= value <= hi:
                self.problem(f"{name}: {value} is out of range (allowed: {lo}..{hi})")
                return None
            return value

        return convert

    def _float(self, lo: float, hi: float) -> Callable[[str, Any], float | None]:
        def convert(name: str, value: Any) -> float | None:
            if isinstance(value, bool) or not isinstance(value, int | float):
                self.problem(f"{name}: {_show(value)} is not a number (allowed: {lo:g}..{hi:g})")
                return None
            if not lo <= value <= hi:
                self.problem(f"{name}: {value} is out of range (allowed: {lo:g}..{hi:g})")
                return None
            return float(value)

        return convert

    def _bool(self, name: str, value: Any) -> bool | None:
        if not isinstance(value, bool):
            self.problem(f"{name}: {_show(value)} is not a boolean (allowed: true, false)")
            return None
        return value

    def _choice(self, choices: tuple[str, ...]) -> Callable[[str, Any], str | None]:
        def convert(name: str, value: Any) -> str | None:
            if not isinstance(value, str) or value not in choices:
                hint = _hint(value, choices) if isinstance(value, str) else ""
                self.problem(f"{name}: {_show(value)} is not allowed{hint} (allowed: {', '.join(choices)})")
                return None
            return value

        return convert

    def _text(self, name: str, value: Any) -> str | None:
        if not isinstance(value, str) or not value.strip():
            self.problem(f"{name}: {_show(value)} is not allowed (allowed: a non-empty string)")
            return None
        return value

    def _path(self, name: str, value: Any) -> Path | None:
        text = self._text(name, value)
        if text is None:
            return None
        path = Path(text).expanduser()
        return path if path.is_absolute() else self.base / path

    def _size(self, lo: int, hi: int) -> Callable[[str, Any], tuple[int, int] | None]:
        def convert(name: str, value: Any) -> tuple[int, int] | None:
            match = _SIZE_RE.match(value) if isinstance(value, str) else None
            if match is None:
                self.problem(
                    f'{name}: {_show(value)} is not a size (allowed: "WIDTHxHEIGHT", e.g. "800x480")'
                )
                return None
            width, height = int(match.group(1)), int(match.group(2))
            if not (lo <= width <= hi and lo <= height <= hi):
                self.problem(f"{name}: {value!r} is out of range (allowed: each side {lo}..{hi} pixels)")
                return None
            return (width, height)

        return convert

    def _strings(
        self, name: str, value: Any, *, pattern: re.Pattern[str] | None, max_items: int, what: str
    ) -> tuple[str, ...] | None:
        if not isinstance(value, list):
            self.problem(f"{name}: {_show(value)} is not a list (allowed: a list of {what})")
            return None
        ok = True
        for i, item in enumerate(value):
            bad = not isinstance(item, str) or not item.strip()
            if not bad and pattern is not None:
                bad = pattern.match(item) is None
            if bad:
                self.problem(f"{name}[{i}]: {_show(item)} is not allowed (allowed: {what})")
                ok = False
        if not ok:
            return None
        if len(value) > max_items:
            self.problem(f"{name}: {len(value)} entries is too many (allowed: at most {max_items})")
            return None
        seen: set[str] = set()
        for item in value:
            if item in seen:
                self.problem(f"{name}: {item!r} appears twice (allowed: each name once)")
                return None
            seen.add(item)
        return tuple(value)

    # -- sections --------------------------------------------------------------

    def game(self, table: dict[str, Any]) -> GameConfig:
        d = GameConfig()
        self._keys("game", table, _field_names(GameConfig))
        from companion.titles import known_titles, title_info

        title = self._get("game", table, "title", d.title, self._choice(tuple(known_titles())))
        players = d.players
        if "players" in table:
            got = self._strings(
                "game.players", table["players"], pattern=None, max_items=99, what="player names"
            )
            players = got if got is not None else d.players
        rules = d.rules
        info = title_info(title) if title in known_titles() else None
        if "rules" in table:
            known = tuple(r.sym for r in info.optional_rules) if info else ()
            got = self._strings("game.rules", table["rules"], pattern=None, max_items=99, what="rule names")
            if got is not None:
                # a title's settings (``dividends_track=12``) are checked as its engine checks them
                valued = [r for r in got if "=" in r and info is not None]
                unknown = [r for r in got if r not in known and r not in valued]
                bad_setting = False
                if valued and info is not None:
                    from companion.engine.errors import GameError
                    from companion.titles import chosen_settings

                    try:
                        chosen_settings(title, info.settings, valued)
                    except GameError as exc:
                        self.problem(f"game.rules: {exc}")
                        bad_setting = True
                for r in unknown:
                    allowed = ", ".join(known) if known else "none"
                    self.problem(
                        f"game.rules: {r!r} is not an optional rule of {title}{_hint(r, known)} "
                        f"(allowed: {allowed})"
                    )
                if not unknown and not bad_setting:
                    rules = got
        if players and info is not None:
            lo, hi = info.min_players, info.max_players
            if not lo <= len(players) <= hi:
                count = f"{len(players)} player{'' if len(players) == 1 else 's'}"
                self.problem(
                    f"game.players: {count} cannot play {title} "
                    f"(allowed: {lo}..{hi} players, "
                    "or an empty list to ask on the touchscreen)"
                )
        database = self._get("game", table, "database", d.database, self._path)
        return GameConfig(title=title, players=players, rules=rules, database=database)

    def reader(self, table: dict[str, Any]) -> ReaderConfig:
        d = ReaderConfig()
        self._keys("reader", table, _field_names(ReaderConfig))
        mode = self._get("reader", table, "mode", d.mode, self._choice(READER_MODES))
        port = d.port
        if "port" in table:
            value = table["port"]
            if not isinstance(value, str) or not (value == "auto" or value.startswith("/")):
                self.problem(
                    f"reader.port: {_show(value)} is not allowed "
                    '(allowed: "auto" or an absolute device path such as "/dev/companion-reader")'
                )
            else:
                port = value
        usb_id = d.usb_id
        if "usb_id" in table:
            value = table["usb_id"]
            if not isinstance(value, str) or _USB_ID_RE.match(value) is None:
                self.problem(
                    f"reader.usb_id: {_show(value)} is not allowed "
                    f'(allowed: "VVVV:PPPP" in hexadecimal, e.g. "{PICO_USB_ID}")'
                )
            else:
                usb_id = value.upper()
        baud = self._get("reader", table, "baud", d.baud, self._int(*BAUD_RANGE))
        names = d.names
        if "names" in table:
            got = self._strings(
                "reader.names",
                table["names"],
                pattern=_NAME_RE,
                max_items=MAX_READERS,
                what='short lower-case names such as "bank", "market", "seat1"',
            )
            if got is not None and not got:
                self.problem("reader.names: the list is empty (allowed: 1 to 8 names, one per reader)")
            elif got is not None:
                names = got
        return ReaderConfig(mode=mode, port=port, usb_id=usb_id, baud=baud, names=names)

    def panel(self, table: dict[str, Any]) -> PanelConfig:
        d = PanelConfig()
        self._keys("panel", table, _field_names(PanelConfig))
        mode = self._get("panel", table, "mode", d.mode, self._choice(PANEL_MODES))
        pins = {
            name: self._get("panel", table, name, getattr(d, name), self._int(*GPIO_RANGE))
            for name in PANEL_PINS
        }
        users: dict[int, list[str]] = {}
        for name, pin in pins.items():
            users.setdefault(pin, []).append(name)
        for pin, names in sorted(users.items()):
            if len(names) > 1:
                self.problem(
                    f"panel: GPIO {pin} is used by {' and '.join('panel.' + n for n in names)} "
                    "(allowed: each pin once)"
                )
        return PanelConfig(mode=mode, **pins)

    def camera(self, table: dict[str, Any]) -> CameraConfig:
        d = CameraConfig()
        self._keys("camera", table, _field_names(CameraConfig))
        mode = self._get("camera", table, "mode", d.mode, self._choice(CAMERA_MODES))
        resolution = self._get("camera", table, "resolution", d.resolution, self._size(64, 9248))
        device = self._get("camera", table, "device", d.device, self._int(0, 63))
        file = self._get("camera", table, "file", d.file, self._path)
        interval = self._get("camera", table, "check_interval", d.check_interval, self._float(0.5, 3600))
        if mode == "file" and file is None and "file" not in table:
            self.problem('camera.file: missing (required when camera.mode = "file": an image or video path)')
        return CameraConfig(
            mode=mode, resolution=resolution, device=device, file=file, check_interval=interval
        )

    def display(self, table: dict[str, Any]) -> DisplayConfig:
        d = DisplayConfig()
        self._keys("display", table, _field_names(DisplayConfig))
        fullscreen = self._get("display", table, "fullscreen", d.fullscreen, self._bool)
        size = self._get("display", table, "size", d.size, self._size(320, 7680))
        return DisplayConfig(fullscreen=fullscreen, size=size)

    def backup(self, table: dict[str, Any]) -> BackupConfig:
        d = BackupConfig()
        self._keys("backup", table, _field_names(BackupConfig))
        directory = self._get("backup", table, "directory", d.directory, self._path)
        keep = self._get("backup", table, "keep", d.keep, self._int(1, 10_000))
        return BackupConfig(directory=directory, keep=keep)


def _field_names(cls: type[Any]) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


# --------------------------------------------------------------------------- output


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, Path):
        return _toml_value(str(value))
    if isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return _toml_value(f"{value[0]}x{value[1]}")
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        return f'"{escaped}"'
    raise TypeError(f"cannot write {value!r} as TOML")


def dump_toml(config: Config) -> str:
    """The effective configuration as a TOML file that :func:`load_config` reads back unchanged."""
    lines: list[str] = []
    for name in SECTIONS:
        section = getattr(config, name)
        lines.append(f"[{name}]")
        for f in fields(section):
            value = getattr(section, f.name)
            if value is None:
                lines.append(f"# {f.name} is not set")
                continue
            lines.append(f"{f.name} = {_toml_value(value)}")
        lines.append("")
    return "\n".join(lines)


def config_value(config: Config, key: str) -> str:
    """One setting as plain text, for shell scripts: ``config_value(c, "backup.keep") == "14"``.

    Sizes print as ``WxH``, lists one item per line, an unset path as an empty string.
    Raises ``KeyError`` with a "did you mean" hint for an unknown key.
    """
    section_name, _, name = key.partition(".")
    if section_name not in SECTIONS:
        raise KeyError(f"unknown section {section_name!r}{_hint(section_name, SECTIONS)}")
    section = getattr(config, section_name)
    names = _field_names(type(section))
    if name not in names:
        raise KeyError(f"unknown key {key!r}{_hint(name, names)}; allowed keys: {', '.join(names)}")
    value = getattr(section, name)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return f"{value[0]}x{value[1]}"
    if isinstance(value, tuple):
        return "\n".join(str(v) for v in value)
    assert not is_dataclass(value)
    return str(value)
