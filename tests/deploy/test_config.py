"""Configuration: defaults, the Pi example file, every kind of error, the CLI."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.cli import main
from companion.config import (
    GPIO_RANGE,
    PANEL_PINS,
    Config,
    ConfigError,
    config_value,
    dump_toml,
    load_config,
    parse_config,
)
from companion.inputfile import InputFileError
from tests.support.paths import ROOT

REPO = ROOT
EXAMPLE = REPO / "deploy" / "companion.toml"


def errors(text: str) -> list[str]:
    with pytest.raises(ConfigError) as info:
        parse_config(text)
    return info.value.problems


def one_error(text: str) -> str:
    problems = errors(text)
    assert len(problems) == 1, problems
    return problems[0]


def test_defaults_are_simulated_everything(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    config = load_config(None)
    assert config.reader.mode == "simulated"
    assert config.panel.mode == "simulated"
    assert config.camera.mode == "simulated"
    assert config.game.title == "1870"
    assert config.camera.resolution == (1640, 1232)
    assert config.display.fullscreen is False
    assert config.game.database == tmp_path / "companion" / "companion.sqlite3"
    assert config.backup.directory == tmp_path / "companion" / "backups"
    assert config.source is None
    # an empty file is the same as no file
    assert dataclasses.replace(parse_config(""), source=None) == config


def test_pi_example_file_is_valid() -> None:
    config = load_config(EXAMPLE)
    assert config.source == EXAMPLE
    assert config.reader.mode == "serial"
    assert config.reader.port == "/dev/companion-reader"
    assert config.reader.usb_id == "2E8A:0005"
    assert config.panel.mode == "gpio"
    assert config.camera.mode == "picamera2"
    assert config.display.fullscreen is True
    assert config.game.database == Path("/var/lib/companion/companion.sqlite3")
    assert config.backup.directory == Path("/var/lib/companion/backups")


def test_config_is_frozen() -> None:
    config = load_config(None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.reader.baud = 9600  # type: ignore[misc]


def test_full_file_round_trips_through_dump(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        """
[game]
title = "1861"
players = ["Ann", "Bob", "Cid"]
rules = ["column_market"]
database = "games/db.sqlite3"
[reader]
mode = "serial"
port = "auto"
usb_id = "2e8a:0005"
baud = 9600
names = ["bank", "market", "seat1"]
[panel]
mode = "gpio"
confirm = 5
cancel = 6
undo = 13
led_green = 19
led_red = 26
buzzer = 21
[camera]
mode = "file"
file = "board.png"
resolution = "4608 x 2592"
check_interval = 2
[display]
fullscreen = true
size = "1280x720"
[backup]
directory = "/srv/backups"
keep = 3
"""
    )
    config = load_config(path)
    assert config.game.players == ("Ann", "Bob", "Cid")
    assert config.game.rules == ("column_market",)
    assert config.game.database == tmp_path / "games" / "db.sqlite3"  # relative to the file
    assert config.reader.usb_id == "2E8A:0005"
    assert config.reader.name_of(2) == "seat1"
    assert config.reader.name_of(5) == "reader5"
    assert config.panel.pins() == {
        "confirm": 5,
        "cancel": 6,
        "undo": 13,
        "led_green": 19,
        "led_red": 26,
        "buzzer": 21,
    }
    assert config.camera.file == tmp_path / "board.png"
    assert config.camera.resolution == (4608, 2592)
    assert config.camera.check_interval == 2.0
    assert config.display.size == (1280, 720)
    assert config.backup.keep == 3
    again = tmp_path / "again.toml"
    again.write_text(dump_toml(config))
    assert dataclasses.replace(load_config(again), source=path) == config


def test_not_toml() -> None:
    message = one_error("[game\ntitle = 1870")
    assert message.startswith("not valid TOML")
    assert "line 1" in message


def test_missing_file_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(InputFileError) as info:
        load_config(tmp_path / "nope.toml")
    assert str(info.value) == f"{tmp_path / 'nope.toml'}: no such file"


def test_unknown_section_and_key_get_a_hint() -> None:
    assert one_error("[camra]\nmode='file'") == "unknown section [camra] (did you mean 'camera'?)"
    message = one_error("[panel]\nconfrim = 5")
    assert message.startswith("panel: unknown key 'confrim' (did you mean 'confirm'?)")
    assert "allowed keys: mode, confirm, cancel, undo, led_green, led_red, buzzer" in message
    assert one_error("reader = 3") == "reader: must be a table [reader], not 3"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[reader]\nbaud = "fast"', "reader.baud: 'fast' is not an integer (allowed: 1200..4000000)"),
        ("[reader]\nbaud = 12", "reader.baud: 12 is out of range (allowed: 1200..4000000)"),
        ("[reader]\nbaud = true", "reader.baud: true is not an integer (allowed: 1200..4000000)"),
        (
            '[reader]\nmode = "serail"',
            "reader.mode: 'serail' is not allowed (did you mean 'serial'?) (allowed: serial, simulated)",
        ),
        (
            '[camera]\nmode = "webcam"',
            "camera.mode: 'webcam' is not allowed (allowed: picamera2, usb, file, simulated)",
        ),
        (
            '[reader]\nport = "ttyACM0"',
            "reader.port: 'ttyACM0' is not allowed (allowed: \"auto\" or an absolute device path "
            'such as "/dev/companion-reader")',
        ),
        (
            '[reader]\nusb_id = "2e8a-0005"',
            "reader.usb_id: '2e8a-0005' is not allowed (allowed: \"VVVV:PPPP\" in hexadecimal, "
            'e.g. "2E8A:0005")',
        ),
        ("[panel]\nbuzzer = 40", "panel.buzzer: 40 is out of range (allowed: 2..27)"),
        ("[panel]\nconfirm = 1", "panel.confirm: 1 is out of range (allowed: 2..27)"),
        (
            "[display]\nfullscreen = 1",
            "display.fullscreen: 1 is not a boolean (allowed: true, false)",
        ),
        (
            '[display]\nsize = "big"',
            'display.size: \'big\' is not a size (allowed: "WIDTHxHEIGHT", e.g. "800x480")',
        ),
        (
            '[display]\nsize = "100x100"',
            "display.size: '100x100' is out of range (allowed: each side 320..7680 pixels)",
        ),
        (
            "[camera]\ncheck_interval = 0",
            "camera.check_interval: 0 is out of range (allowed: 0.5..3600)",
        ),
        (
            '[camera]\nmode = "file"',
            'camera.file: missing (required when camera.mode = "file": an image or video path)',
        ),
        ("[backup]\nkeep = 0", "backup.keep: 0 is out of range (allowed: 1..10000)"),
        ('[backup]\ndirectory = ""', "backup.directory: '' is not allowed (allowed: a non-empty string)"),
        (
            '[game]\ntitle = "1830"',
            "game.title: '1830' is not allowed (did you mean '1870'?) (allowed: 1870, 1867, 1861, 1833NE, TSR, CoBS)",
        ),
        (
            '[game]\nplayers = ["Ann"]',
            "game.players: 1 player cannot play 1870 (allowed: 2..7 players, "
            "or an empty list to ask on the touchscreen)",
        ),
        ('[game]\nplayers = ["Ann", "Ann"]', "game.players: 'Ann' appears twice (allowed: each name once)"),
        ('[game]\nplayers = "Ann"', "game.players: 'Ann' is not a list (allowed: a list of player names)"),
        (
            '[reader]\nnames = ["bank", "Seat 1"]',
            "reader.names[1]: 'Seat 1' is not allowed (allowed: short lower-case names such as "
            '"bank", "market", "seat1")',
        ),
        ("[reader]\nnames = []", "reader.names: the list is empty (allowed: 1 to 8 names, one per reader)"),
        (
            "[reader]\nnames = [" + ", ".join(f'"r{i}"' for i in range(9)) + "]",
            "reader.names: 9 entries is too many (allowed: at most 8)",
        ),
    ],
)
def test_each_bad_value_is_named_with_what_is_allowed(text: str, expected: str) -> None:
    assert one_error(text) == expected


def test_unknown_optional_rule_lists_the_titles_rules() -> None:
    message = one_error('[game]\nrules = ["finish_on_40"]')
    assert message.startswith("game.rules: 'finish_on_40' is not an optional rule of 1870")
    assert "(did you mean 'finish_on_400'?)" in message
    assert "original_market" in message
    # rules are checked against the configured title
    assert "column_market" in one_error('[game]\ntitle = "1861"\nrules = ["diesels"]')


def test_pin_conflict_names_both_keys() -> None:
    assert one_error("[panel]\nundo = 17") == (
        "panel: GPIO 17 is used by panel.confirm and panel.undo (allowed: each pin once)"
    )


def test_all_problems_are_reported_at_once_and_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[reader]\nbaud = "x"\nmode = 3\n[panel]\ncancel = 17\n[camra]\n')
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert len(info.value.problems) == 4
    assert all(line.startswith(f"{path}: ") for line in str(info.value).splitlines())


@given(
    pins=st.lists(
        st.integers(GPIO_RANGE[0], GPIO_RANGE[1]), min_size=len(PANEL_PINS), max_size=len(PANEL_PINS)
    )
)
def test_pins_load_exactly_when_all_distinct(pins: list[int]) -> None:
    text = "[panel]\n" + "\n".join(f"{name} = {pin}" for name, pin in zip(PANEL_PINS, pins, strict=True))
    if len(set(pins)) == len(pins):
        assert list(parse_config(text).panel.pins().values()) == pins
    else:
        problems = errors(text)
        assert problems and all("is used by" in p for p in problems)


@given(width=st.integers(0, 10_000), height=st.integers(0, 10_000))
def test_display_size_is_accepted_exactly_in_range(width: int, height: int) -> None:
    text = f'[display]\nsize = "{width}x{height}"'
    if 320 <= width <= 7680 and 320 <= height <= 7680:
        assert parse_config(text).display.size == (width, height)
    else:
        assert one_error(text).startswith("display.size:")


def test_config_value_for_scripts() -> None:
    config = load_config(EXAMPLE)
    assert config_value(config, "backup.keep") == "14"
    assert config_value(config, "game.database") == "/var/lib/companion/companion.sqlite3"
    assert config_value(config, "display.size") == "800x480"
    assert config_value(config, "display.fullscreen") == "true"
    assert config_value(config, "reader.names") == "bank\nmarket"
    assert config_value(config, "camera.file") == ""
    with pytest.raises(KeyError, match="did you mean 'keep'"):
        config_value(config, "backup.kept")
    with pytest.raises(KeyError, match="unknown section 'bakup'"):
        config_value(config, "bakup.keep")


def test_cli_check_prints_effective_config(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "check", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"# effective configuration from {EXAMPLE}: OK\n")
    assert 'mode = "picamera2"' in out
    # the printed text is itself a valid configuration equal to the file
    assert dataclasses.replace(parse_config(out), source=EXAMPLE) == load_config(EXAMPLE)


def test_cli_check_reports_errors_with_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[panel]\nundo = 17\n")
    assert main(["config", "check", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "NOT valid (1 problem(s))" in captured.err
    assert f"{path}: panel: GPIO 17 is used by panel.confirm and panel.undo" in captured.err


def test_cli_uses_companion_config_env(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COMPANION_CONFIG", str(EXAMPLE))
    assert main(["config", "get", "reader.port"]) == 0
    assert capsys.readouterr().out == "/dev/companion-reader\n"
    monkeypatch.delenv("COMPANION_CONFIG")
    assert main(["config", "get", "reader.port"]) == 0
    assert capsys.readouterr().out == "auto\n"
    assert main(["config", "get", "reader.prot"]) == 2
    assert "did you mean 'port'" in capsys.readouterr().err


def test_config_type_has_every_section() -> None:
    names = {f.name for f in dataclasses.fields(Config)}
    assert names == {"game", "reader", "panel", "camera", "display", "backup", "source"}


def test_cli_shell_output_evaluates_in_bash(tmp_path: Path) -> None:
    import subprocess

    path = tmp_path / "c.toml"
    path.write_text('[game]\nplayers = ["Ann O\'Neil", "Bob $HOME"]\n[backup]\nkeep = 3\n')
    companion = Path(sys.executable).parent / "companion"
    script = (
        'settings=$("$1" config shell "$2") && eval "$settings" && '
        'printf "%s|%s|%s" "$backup_keep" "$game_players" "$camera_file"'
    )
    result = subprocess.run(
        ["bash", "-c", script, "-", str(companion), str(path)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "3|Ann O'Neil\nBob $HOME|"
    bad = tmp_path / "bad.toml"
    bad.write_text("[backup]\nkeep = 0\n")
    result = subprocess.run(
        ["bash", "-c", script, "-", str(companion), str(bad)], capture_output=True, text=True
    )
    assert result.returncode == 1
    assert "backup.keep: 0 is out of range" in result.stderr
