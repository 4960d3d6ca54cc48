"""deploy/: shell scripts, systemd units, the udev rule, the installer in a fake root.

Nothing here touches the real system: the installer and uninstaller run with
``--root`` into a temporary directory with stand-ins for apt-get, useradd,
systemctl, udevadm... on PATH that only record how they were called; the
backup script and the device check run for real against temporary files,
a fake /sys and /dev tree and a pseudo-terminal that speaks the reader
firmware's protocol.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import ROOT

REPO = ROOT
DEPLOY = REPO / "deploy"
COMPANION = Path(sys.executable).parent / "companion"
SCRIPTS = ["install.sh", "uninstall.sh", "check", "companion-backup", "companion-wait-devices"]
UNITS = ["companion.service", "companion-backup.service", "companion-backup.timer"]


def test_every_script_in_deploy_is_listed_and_executable() -> None:
    found = sorted(p.name for p in DEPLOY.iterdir() if p.is_file() and p.read_bytes().startswith(b"#!"))
    assert found == sorted(SCRIPTS)
    for name in SCRIPTS:
        assert os.access(DEPLOY / name, os.X_OK), f"deploy/{name} is not executable"


@pytest.mark.parametrize("name", SCRIPTS)
def test_shellcheck(name: str) -> None:
    shellcheck = shutil.which("shellcheck")
    assert shellcheck is not None, (
        "shellcheck is missing: run scripts/ensure-sysdeps as root (apt install shellcheck)"
    )
    result = subprocess.run(
        [shellcheck, "--shell=bash", "--severity=style", str(DEPLOY / name)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_shellcheck_pi_test() -> None:
    """scripts/pi-test (make pi-test) runs only by hand, as root: shellcheck is what make test can do."""
    shellcheck = shutil.which("shellcheck")
    assert shellcheck is not None
    script = REPO / "scripts" / "pi-test"
    assert os.access(script, os.X_OK)
    result = subprocess.run(
        [shellcheck, "--shell=bash", "--severity=style", str(script)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "nice -n 10 scripts/pi-test" in (REPO / "Makefile").read_text()


def test_systemd_units_verify(tmp_path: Path) -> None:
    """``systemd-analyze verify`` on copies whose programs exist on this machine.

    The real units run /opt/companion/... which only exist on an installed Pi, and
    verify refuses a unit whose ExecStart is missing; so the copies point every
    Exec line at /bin/true and everything else (every key, section, dependency,
    the timer) is verified as written.  verify exits 0 even for unknown keys, so
    any output at all fails the test.
    """
    analyze = shutil.which("systemd-analyze")
    assert analyze is not None, (
        "systemd-analyze is missing: run scripts/ensure-sysdeps as root (apt install systemd)"
    )
    for name in UNITS:
        text = (DEPLOY / name).read_text()
        text = re.sub(r"(?m)^(Exec\w+=)/opt/companion/\S+", r"\1/bin/true", text)
        (tmp_path / name).write_text(text)
    result = subprocess.run(
        [analyze, "verify", *[str(tmp_path / n) for n in UNITS]],
        capture_output=True,
        text=True,
        env={**os.environ, "SYSTEMD_LOG_LEVEL": "notice"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and result.stderr == "", result.stdout + result.stderr


def test_service_runs_the_app_full_screen_and_restarts() -> None:
    keys = _unit_keys(DEPLOY / "companion.service")
    assert keys["ExecStart"] == [
        "/opt/companion/venv/bin/companion run --config /etc/companion/companion.toml"
    ]
    env = dict(e.split("=", 1) for e in keys["Environment"])
    assert env["KIVY_WINDOW"] == "sdl2"
    assert env["SDL_VIDEODRIVER"] == "kmsdrm"
    assert env["KIVY_NO_ARGS"] == "1"
    assert keys["Restart"] == ["on-failure"]
    assert keys["User"] == ["companion"]
    assert keys["WantedBy"] == ["multi-user.target"]
    # hardening that would hide /dev/dri, /dev/gpiochip*, /dev/video* must not be there
    for forbidden in (
        "PrivateDevices",
        "DeviceAllow",
        "DevicePolicy",
        "ProtectClock",
        "MemoryDenyWriteExecute",
    ):
        assert forbidden not in keys
    timer = _unit_keys(DEPLOY / "companion-backup.timer")
    assert timer["OnCalendar"] and timer["Persistent"] == ["true"]


def _unit_keys(path: Path) -> dict[str, list[str]]:
    keys: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        if line and not line.startswith(("#", ";", "[")):
            key, _, value = line.partition("=")
            keys.setdefault(key.strip(), []).append(value.strip())
    return keys


# --------------------------------------------------------------------------- udev

_UDEV_MATCH = {
    "SUBSYSTEM",
    "SUBSYSTEMS",
    "KERNEL",
    "KERNELS",
    "ACTION",
    "DRIVER",
    "DRIVERS",
    "ATTR",
    "ATTRS",
    "ENV",
}
_UDEV_ASSIGN = {"SYMLINK", "GROUP", "MODE", "OWNER", "ENV", "TAG", "RUN", "NAME"}
_UDEV_TERM = re.compile(
    r'^(?P<key>[A-Z]+)(?:\{(?P<attr>[A-Za-z0-9_]+)\})?(?P<op>==|!=|\+=|-=|:=|=)"(?P<value>[^"]*)"$'
)


def parse_udev_rules(text: str) -> list[list[tuple[str, str | None, str, str]]]:
    """A strict parser for the subset of udev rule syntax we use (udevadm verify needs systemd >= 254)."""
    rules = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        terms = []
        for raw in line.split(", "):
            match = _UDEV_TERM.match(raw.strip())
            assert match, f"line {number}: cannot parse {raw!r}"
            key, attr, op, value = match["key"], match["attr"], match["op"], match["value"]
            if op in ("==", "!="):
                assert key in _UDEV_MATCH, f"line {number}: {key} cannot be matched"
            else:
                assert key in _UDEV_ASSIGN, f"line {number}: {key} cannot be assigned"
                if key == "GROUP" or key == "MODE" or key == "OWNER":
                    assert op in ("=", ":="), f"line {number}: {key} takes = or :="
            if key in ("ATTR", "ATTRS", "ENV"):
                assert attr, f"line {number}: {key} needs {{name}}"
            else:
                assert attr is None, f"line {number}: {key} takes no {{name}}"
            terms.append((key, attr, op, value))
        assert any(op == "==" for _, _, op, _ in terms), (
            f"line {number}: a rule without a match applies to every device"
        )
        rules.append(terms)
    return rules


def test_udev_rule_names_the_pico_reader() -> None:
    rules = parse_udev_rules((DEPLOY / "99-companion-reader.rules").read_text())
    assert len(rules) == 1
    terms = {(k, a, op): v for k, a, op, v in rules[0]}
    assert terms[("SUBSYSTEM", None, "==")] == "tty"
    assert terms[("ATTRS", "idVendor", "==")] == "2e8a"
    assert terms[("ATTRS", "idProduct", "==")] == "0005"
    assert terms[("SYMLINK", None, "+=")] == "companion-reader"
    assert terms[("GROUP", None, "=")] == "dialout"
    assert terms[("MODE", None, "=")] == "0660"
    assert terms[("ENV", "ID_MM_DEVICE_IGNORE", "=")] == "1"


@pytest.mark.parametrize(
    "bad",
    [
        'SUBSYSTEM=="tty", SYMLINK=="x"',  # SYMLINK is assigned, not matched
        'SUBSYSTEM="tty"',  # only assignments: would apply to every device
        'ATTRS{idVendor}=="2e8a", GROUP+="dialout"',
        'SUBSYSTEM=="tty" SYMLINK+="x"',  # missing comma
        'ATTRS=="2e8a"',
    ],
)
def test_udev_parser_rejects_mistakes(bad: str) -> None:
    with pytest.raises(AssertionError):
        parse_udev_rules(bad)


# --------------------------------------------------------------------------- installer in a fake root

STUB = """#!/usr/bin/env bash
echo "$(basename "$0") $*" >>"$STUB_LOG"
"""

STUBS = {
    "apt-get": STUB,
    # apt-cache policy: every package is there, but those listed in $STUB_APT_MISSING
    "apt-cache": STUB
    + """if [ "$1" = policy ]; then
  echo "$2:"
  case " ${STUB_APT_MISSING-} " in
    *" $2 "*) echo "  Installed: (none)"; echo "  Candidate: (none)" ;;
    *) echo "  Installed: (none)"; echo "  Candidate: 1.0" ;;
  esac
fi
""",
    "journalctl": STUB + 'echo "${STUB_JOURNAL:-error: the last thing the app said}"\n',
    "chown": STUB,
    "udevadm": STUB,
    "usermod": STUB,
    "userdel": STUB,
    "useradd": STUB + 'echo "${@: -1}" >>"$STUB_USERS"\n',
    "getent": STUB
    + """case "$1" in
  passwd) grep -qx "$2" "$STUB_USERS" 2>/dev/null ;;
  group) case "$2" in video|render|input|dialout|gpio) echo "$2:x:1:" ;; *) exit 2 ;; esac ;;
esac
""",
    "systemctl": STUB
    + """case "$1" in
  get-default) echo "${STUB_DEFAULT_TARGET:-multi-user.target}" ;;
  is-enabled) echo "${STUB_ENABLED:-enabled}"; [ "${STUB_ENABLED:-enabled}" = enabled ] ;;
  is-active)
    if [ "${!#}" = companion-backup.timer ]; then [ "${STUB_TIMER_ACTIVE:-active}" = active ]
    else [ "${STUB_ACTIVE:-active}" = active ]; fi ;;
  restart) [ -z "${STUB_RESTART_FAILS-}" ] || [ "${!#}" != companion.service ] ;;
  show)
    case "$2 ${!#}" in
      "--property=LoadState display-manager.service") echo "${STUB_DISPLAY_MANAGER:-not-found}" ;;
      --property=LoadState*) echo loaded ;;
      --property=Result*) echo exit-code ;;
    esac ;;
esac
""",
    "id": """#!/usr/bin/env bash
if [ "$1" = -nG ]; then
  [ -n "${STUB_GROUPS-}" ] || exit 1
  echo "$STUB_GROUPS"
else
  exec /usr/bin/id "$@"
fi
""",
    # python3 -m venv DIR: a fake venv whose pip records and whose companion is the real one
    # the venv's python: pip records how it was called and what the program is built from
    "venv-python": """#!/usr/bin/env bash
echo "venv-python $*" >>"$STUB_LOG"
src=${!#}
src=${src%%[*}
if [ -d "$src" ]; then echo "built from $src: $(ls "$src" | tr '\\n' ' ')" >>"$STUB_LOG"; fi
""",
    "python3": STUB
    + """if [ "$1 $2" = "-m venv" ]; then
  dir=${!#}
  mkdir -p "$dir/bin"
  cp "$(dirname "$0")/venv-python" "$dir/bin/python"
  chmod +x "$dir/bin/python"
  ln -sf "$REAL_COMPANION" "$dir/bin/companion"
  exit 0
fi
exec /usr/bin/python3 "$@"
""",
}


@pytest.fixture
def stubs(tmp_path: Path) -> Iterator[dict[str, str]]:
    bindir = tmp_path / "stubs"
    bindir.mkdir()
    for name, text in STUBS.items():
        (bindir / name).write_text(text)
        (bindir / name).chmod(0o755)
    # a connected display (companion-wait-devices --display-now reads $SYSFS)
    display = tmp_path / "install-sys/class/drm/card1-HDMI-A-1"
    display.mkdir(parents=True)
    (display / "status").write_text("connected\n")
    env = {
        **os.environ,
        "PATH": f"{bindir}:{os.environ['PATH']}",
        "STUB_LOG": str(tmp_path / "stub.log"),
        "STUB_USERS": str(tmp_path / "users"),
        "REAL_COMPANION": str(COMPANION),
        "SYSFS": str(tmp_path / "install-sys"),
        "START_GRACE": "0",
    }
    env.pop("COMPANION_CONFIG", None)
    yield env


def log_of(env: dict[str, str], clear: bool = True) -> list[str]:
    path = Path(env["STUB_LOG"])
    lines = path.read_text().splitlines() if path.exists() else []
    if clear and path.exists():
        path.unlink()
    return lines


def run_script(name: str, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(DEPLOY / name), *args], capture_output=True, text=True, env=env)


def test_install_into_fake_root_writes_everything_and_is_idempotent(
    tmp_path: Path, stubs: dict[str, str]
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    first = run_script("install.sh", "--root", str(root), env=stubs)
    assert first.returncode == 0, first.stdout + first.stderr
    calls = log_of(stubs)

    # files: units, rule, journald limits, config, helpers, state directories
    for src, dst in [
        ("companion.service", "etc/systemd/system/companion.service"),
        ("companion-backup.service", "etc/systemd/system/companion-backup.service"),
        ("companion-backup.timer", "etc/systemd/system/companion-backup.timer"),
        ("99-companion-reader.rules", "etc/udev/rules.d/99-companion-reader.rules"),
        ("journald-companion.conf", "etc/systemd/journald.conf.d/companion.conf"),
        ("companion.toml", "etc/companion/companion.toml"),
        ("kivy-config.ini", "var/lib/companion/kivy/config.ini"),
        ("companion-backup", "opt/companion/bin/companion-backup"),
        ("companion-wait-devices", "opt/companion/bin/companion-wait-devices"),
        ("check", "opt/companion/bin/companion-check"),
    ]:
        assert (root / dst).read_bytes() == (DEPLOY / src).read_bytes(), dst
    assert stat.S_IMODE((root / "etc/systemd/system/companion.service").stat().st_mode) == 0o644
    assert os.access(root / "opt/companion/bin/companion-check", os.X_OK)
    assert stat.S_IMODE((root / "var/lib/companion").stat().st_mode) == 0o750
    assert (root / "var/lib/companion/backups").is_dir()

    # commands: packages, user, groups, venv with system packages, units enabled and started
    apt = next(c for c in calls if c.startswith("apt-get ") and " install " in c)
    for package in ("python3-picamera2", "python3-venv", "libsdl2-2.0-0", "libmtdev1", "libgl1-mesa-dri"):
        assert f" {package}" in apt
    assert "rpicam-apps-lite" in apt  # the stand-in apt-cache says it exists
    assert sum(c.startswith("useradd ") for c in calls) == 1
    assert "--system" in next(c for c in calls if c.startswith("useradd "))
    assert "usermod --append --groups video,render,input,dialout,gpio companion" in calls
    assert f"python3 -m venv --system-site-packages {root}/opt/companion/venv" in calls
    # the program is built from a temporary copy of the checkout (never in the owner's clone), gone afterwards
    pip = next(c for c in calls if c.startswith("venv-python -m pip install") and "--constraint" in c)
    build = pip.split()[-1].removesuffix("[pi]")
    assert build != str(REPO) and "companion-build." in build
    built = next(c for c in calls if c.startswith(f"built from {build}: "))
    assert "pyproject.toml" in built and "companion" in built.split() and ".git" not in built
    assert not Path(build).exists()
    assert f"chown -R -h -P companion:companion {root}/var/lib/companion" in calls
    assert "systemctl daemon-reload" in calls
    assert "udevadm control --reload-rules" in calls
    assert "systemctl enable companion.service companion-backup.timer" in calls
    assert calls.index("systemctl enable companion.service companion-backup.timer") < calls.index(
        "systemctl restart companion.service"
    )
    # the backups run whatever becomes of the app: the timer starts first
    assert calls.index("systemctl start companion-backup.timer") < calls.index(
        "systemctl restart companion.service"
    )
    # packages are looked up after apt-get update, installed in one go
    assert calls.index(next(c for c in calls if c.startswith("apt-get ") and " update" in c)) < calls.index(
        "apt-cache policy python3-picamera2"
    )
    warnings = [line for line in first.stderr.splitlines() if "not a 64-bit Raspberry Pi OS" not in line]
    assert warnings == [], first.stderr

    # second run: the user exists, an edited configuration is kept, everything else refreshed
    config = root / "etc/companion/companion.toml"
    config.write_text('[game]\nplayers = ["Ann", "Bob"]\n')
    (root / "etc/systemd/system/companion.service").write_text("stale")
    second = run_script("install.sh", "--root", str(root), "--no-apt", env=stubs)
    assert second.returncode == 0, second.stdout + second.stderr
    calls = log_of(stubs)
    assert not any(c.startswith(("useradd", "apt-get")) for c in calls)
    assert "user companion exists" in second.stdout
    assert config.read_text() == '[game]\nplayers = ["Ann", "Bob"]\n'
    assert "keeping the existing" in second.stdout
    assert (root / "etc/systemd/system/companion.service").read_bytes() == (
        DEPLOY / "companion.service"
    ).read_bytes()


def test_install_refuses_to_start_with_a_bad_config(tmp_path: Path, stubs: dict[str, str]) -> None:
    root = tmp_path / "root"
    (root / "etc/companion").mkdir(parents=True)
    (root / "etc/companion/companion.toml").write_text("[panel]\nundo = 17\n")
    result = run_script("install.sh", "--root", str(root), "--no-apt", env=stubs)
    assert result.returncode == 1
    assert "panel: GPIO 17 is used by panel.confirm and panel.undo" in result.stderr
    calls = log_of(stubs)
    assert "systemctl enable companion.service companion-backup.timer" in calls
    assert "systemctl restart companion.service" not in calls


def test_install_console_option_and_desktop_warning(tmp_path: Path, stubs: dict[str, str]) -> None:
    root = tmp_path / "root"
    root.mkdir()
    # graphical.target without a display manager (a debootstrapped or Lite system): nothing holds the display
    env = {**stubs, "STUB_DEFAULT_TARGET": "graphical.target"}
    quiet = run_script("install.sh", "--root", str(root), "--no-apt", "--no-start", env=env)
    assert quiet.returncode == 0 and "desktop" not in quiet.stderr
    env["STUB_DISPLAY_MANAGER"] = "loaded"
    warned = run_script("install.sh", "--root", str(root), "--no-apt", "--no-start", env=env)
    assert "boots to the desktop" in warned.stderr
    assert "systemctl restart companion.service" not in log_of(env)
    run_script("install.sh", "--root", str(root), "--no-apt", "--no-start", "--console", env=env)
    assert "systemctl set-default multi-user.target" in log_of(env)


def test_install_dry_run_changes_nothing(tmp_path: Path, stubs: dict[str, str]) -> None:
    root = tmp_path / "root"
    root.mkdir()
    result = run_script("install.sh", "--root", str(root), "--dry-run", env=stubs)
    assert result.returncode == 0, result.stderr
    assert list(root.iterdir()) == []
    assert f"+ install -m 0644 {DEPLOY}/companion.toml {root}/etc/companion/companion.toml" in result.stdout
    assert "+ systemctl enable companion.service companion-backup.timer" in result.stdout
    # only read-only queries reached the stand-ins
    assert {c.split()[0] for c in log_of(stubs)} <= {"getent", "apt-cache", "systemctl"}
    assert not any(c.startswith("systemctl") and "get-default" not in c for c in log_of(stubs, clear=False))


def test_install_rejects_unknown_options(stubs: dict[str, str]) -> None:
    result = run_script("install.sh", "--rooot", "/tmp", env=stubs)
    assert result.returncode == 2
    assert "unknown option '--rooot'" in result.stderr
    assert "--console" in run_script("install.sh", "--help", env=stubs).stdout


def test_uninstall_keeps_data_unless_purged(tmp_path: Path, stubs: dict[str, str]) -> None:
    root = tmp_path / "root"
    root.mkdir()
    assert run_script("install.sh", "--root", str(root), "--no-apt", env=stubs).returncode == 0
    (root / "var/lib/companion/companion.sqlite3").write_text("game")
    log_of(stubs)
    result = run_script("uninstall.sh", "--root", str(root), env=stubs)
    assert result.returncode == 0, result.stderr
    assert not (root / "opt/companion").exists()
    assert not (root / "etc/systemd/system/companion.service").exists()
    assert not (root / "etc/udev/rules.d/99-companion-reader.rules").exists()
    assert (root / "var/lib/companion/companion.sqlite3").read_text() == "game"
    assert (root / "etc/companion/companion.toml").exists()
    calls = log_of(stubs)
    assert "systemctl disable --now companion.service" in calls
    assert "systemctl disable --now companion-backup.timer" in calls
    assert not any(c.startswith("userdel") for c in calls)
    # a failed state is reset while the units exist (after their removal systemctl only complains)
    assert calls.index("systemctl reset-failed companion.service") < calls.index("systemctl daemon-reload")
    assert calls.index("systemctl daemon-reload") > max(i for i, c in enumerate(calls) if "reset-failed" in c)

    result = run_script("uninstall.sh", "--root", str(root), "--purge", env=stubs)
    assert result.returncode == 0, result.stderr
    assert not (root / "var/lib/companion").exists()
    assert not (root / "etc/companion").exists()
    assert "userdel companion" in log_of(stubs)


# --------------------------------------------------------------------------- backups


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "companion.toml"
    path.write_text(text)
    return path


def test_backup_copies_a_live_wal_database_and_keeps_the_newest(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "data" / "companion.sqlite3"
    db.parent.mkdir()
    backups = tmp_path / "backups"
    config = _config(tmp_path, f'[game]\ndatabase = "{db}"\n[backup]\ndirectory = "{backups}"\nkeep = 2\n')
    env = {**os.environ, "COMPANION": str(COMPANION), "PYTHON": sys.executable}

    missing = run_script("companion-backup", str(config), env=env)
    assert missing.returncode == 0 and "nothing to back up" in missing.stdout

    live = sqlite3.connect(db)  # stays open, as the running app's connection would
    live.execute("PRAGMA journal_mode = WAL")
    live.execute("PRAGMA wal_autocheckpoint = 0")  # keep the rows in the -wal file
    live.execute("CREATE TABLE actions (n INTEGER)")
    live.commit()

    def backup_rows() -> list[list[int]]:
        out = []
        for copy in sorted(backups.glob("companion-*.sqlite3")):
            con = sqlite3.connect(copy)
            out.append([n for (n,) in con.execute("SELECT n FROM actions ORDER BY n")])
            assert con.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # standalone file
            con.close()
        return out

    for n in range(1, 4):
        live.execute("INSERT INTO actions VALUES (?)", (n,))
        live.commit()
        result = run_script("companion-backup", str(config), env=env)
        assert result.returncode == 0, result.stderr
        assert "backed up" in result.stdout
    assert backup_rows() == [[1, 2], [1, 2, 3]]
    assert not list(backups.glob(".*part"))

    unchanged = run_script("companion-backup", str(config), env=env)
    assert unchanged.returncode == 0 and "unchanged" in unchanged.stdout
    assert len(backup_rows()) == 2
    live.close()


def test_backup_reports_a_bad_config(tmp_path: Path) -> None:
    config = _config(tmp_path, "[backup]\nkeep = 0\n")
    env = {**os.environ, "COMPANION": str(COMPANION)}
    result = run_script("companion-backup", str(config), env=env)
    assert result.returncode != 0
    assert "backup.keep: 0 is out of range" in result.stderr


# --------------------------------------------------------------------------- device tree


def fake_devices(
    tmp_path: Path, *, touch: bool = True, display: bool = True, gpio: bool = True
) -> tuple[Path, Path]:
    sysfs, dev = tmp_path / "sys", tmp_path / "dev"
    (dev / "input").mkdir(parents=True)
    connector = sysfs / "class/drm/card1-DSI-1"
    connector.mkdir(parents=True)
    (connector / "status").write_text("connected\n" if display else "disconnected\n")
    hdmi = sysfs / "class/drm/card1-HDMI-A-1"
    hdmi.mkdir(parents=True)
    (hdmi / "status").write_text("disconnected\n")
    keyboard = sysfs / "class/input/event0/device"
    (keyboard / "capabilities").mkdir(parents=True)
    (keyboard / "capabilities/abs").write_text("0\n")
    (keyboard / "name").write_text("keyboard\n")
    (dev / "input/event0").touch()
    if touch:
        screen = sysfs / "class/input/event4/device"
        (screen / "capabilities").mkdir(parents=True)
        bits = (1 << 53) | (1 << 54) | (1 << 57) | 0b11  # MT_POSITION_X/Y, MT_TRACKING_ID, X, Y
        (screen / "capabilities/abs").write_text(f"{bits:x}\n")
        (screen / "name").write_text("generic ft5x06 (79)\n")
        (dev / "input/event4").touch()
    if gpio:
        chip = sysfs / "bus/gpio/devices/gpiochip0"
        chip.mkdir(parents=True)
        (chip / "label").write_text("pinctrl-rp1\n")
        (dev / "gpiochip0").touch()
        (dev / "gpiochip0").chmod(0o660)
    return sysfs, dev


def test_wait_devices(tmp_path: Path) -> None:
    sysfs, dev = fake_devices(tmp_path)
    config = _config(tmp_path, '[reader]\nmode = "serial"\nport = "/dev/companion-reader"\n')
    env = {
        **os.environ,
        "COMPANION": str(COMPANION),
        "SYSFS": str(sysfs),
        "DEV": str(dev),
        "READER_WAIT": "0",
    }
    result = run_script("companion-wait-devices", str(config), env=env)
    assert result.returncode == 0, result.stderr
    assert "display ready after 0s" in result.stdout
    assert f"reader {dev}/companion-reader not present after 0s" in result.stderr
    (dev / "companion-reader").touch()
    assert (
        f"reader {dev}/companion-reader ready"
        in run_script("companion-wait-devices", str(config), env=env).stdout
    )

    (sysfs / "class/drm/card1-DSI-1/status").write_text("disconnected\n")
    result = run_script("companion-wait-devices", str(config), env={**env, "DISPLAY_WAIT": "0"})
    assert result.returncode == 1
    assert "no connected display" in result.stderr


class FakeReaderBoard:
    """The far end of a pseudo-terminal answering like the reader firmware (firmware/nfcproto.py)."""

    def __init__(self, readers: int, answer: bool = True) -> None:
        sys.path.insert(0, str(REPO / "firmware"))
        try:
            import nfcproto
        finally:
            sys.path.pop(0)
        self.proto = nfcproto
        self.readers = readers
        self.answer = answer
        self.master, slave = os.openpty()
        self.port = os.ttyname(slave)
        self._slave = slave
        self.commands: list[str] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        buf = b""
        seq = 0
        while True:
            try:
                data = os.read(self.master, 256)
            except OSError:
                return
            if not data:
                return
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    cseq, name, _ = self.proto.parse_command(line.decode())
                except self.proto.LineError:
                    continue
                self.commands.append(name)
                if name == "version" and self.answer:
                    fields = [
                        ("proto", 1),
                        ("fw", "test"),
                        ("readers", self.readers),
                        ("chip", "mfrc522"),
                        ("hb", 1000),
                    ]
                    fields.append(("ack", f"{cseq:04X}"))
                    os.write(self.master, self.proto.encode_event(0xB007, seq, "hello", fields).encode())
                    seq += 1
                elif not self.answer:
                    os.write(self.master, self.proto.encode_event(0xB007, seq, "hb", [("up", 1)]).encode())
                    seq += 1

    def close(self) -> None:
        os.close(self._slave)
        os.close(self.master)


def _group(path: Path | str) -> str:
    import grp

    return grp.getgrgid(os.stat(path).st_gid).gr_name


def check_env(stubs: dict[str, str], sysfs: Path, dev: Path, **extra: str) -> dict[str, str]:
    return {
        **stubs,
        "COMPANION": str(COMPANION),
        "PYTHON": sys.executable,
        "SYSFS": str(sysfs),
        "DEV": str(dev),
        "STUB_GROUPS": "companion video render input dialout gpio",
        "GPIO_GROUP": _group(dev / "gpiochip0") if (dev / "gpiochip0").exists() else "gpio",
        "READER_TIMEOUT": "3",
        **extra,
    }


def test_check_passes_on_a_complete_device(tmp_path: Path, stubs: dict[str, str]) -> None:
    import cv2
    import numpy as np

    sysfs, dev = fake_devices(tmp_path)
    image = tmp_path / "board.png"
    cv2.imwrite(str(image), np.full((120, 160, 3), 90, np.uint8))
    board = FakeReaderBoard(readers=2)
    try:
        config = _config(
            tmp_path,
            f'[reader]\nmode = "serial"\nport = "{board.port}"\nnames = ["bank", "market"]\n'
            f'[panel]\nmode = "gpio"\n[camera]\nmode = "file"\nfile = "{image}"\n',
        )
        env = check_env(stubs, sysfs, dev, READER_GROUP=_group(board.port))
        result = run_script("check", str(config), env=env)
    finally:
        board.close()
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    assert "FAIL" not in out
    assert "OK    display connected: card1-DSI-1" in out
    assert f"OK    touchscreen: generic ft5x06 (79) ({dev}/input/event4)" in out
    assert f"OK    GPIO chip {dev}/gpiochip0 (pinctrl-rp1)" in out
    assert "OK    reader firmware answers: proto=1 fw=test readers=2" in out
    assert "OK    camera (file): 160x120 frame, mean brightness 90" in out
    assert out.rstrip().endswith("all checks passed")
    assert board.commands == ["version"]
    # the running service held the reader: it was stopped for the test and started again
    calls = log_of(stubs)
    assert calls.index("systemctl stop companion.service") < calls.index("systemctl start companion.service")


def test_check_names_everything_that_is_missing(tmp_path: Path, stubs: dict[str, str]) -> None:
    sysfs, dev = fake_devices(tmp_path, touch=False, display=False, gpio=False)
    config = _config(
        tmp_path,
        '[reader]\nmode = "serial"\nport = "/dev/companion-reader"\n[panel]\nmode = "gpio"\n'
        '[camera]\nmode = "file"\nfile = "/nonexistent/board.png"\n',
    )
    env = check_env(
        stubs, sysfs, dev, STUB_ACTIVE="inactive", STUB_ENABLED="disabled", STUB_GROUPS="companion video"
    )
    result = run_script("check", str(config), env=env)
    out = result.stdout
    assert result.returncode == 1
    assert "FAIL  companion.service is not enabled" in out
    assert "FAIL  companion.service is not running" in out
    assert "FAIL  companion-backup.timer is not enabled" in out
    assert "FAIL  user companion is not in the group(s) render input dialout gpio" in out
    assert "FAIL  no connected display" in out
    assert "FAIL  no touchscreen" in out
    assert "FAIL  no GPIO chip of the 40-pin header" in out
    assert (
        f"FAIL  reader {dev}/companion-reader is not present" not in out
    )  # the configured path is checked as is
    assert "FAIL  reader /dev/companion-reader is not present" in out
    assert "FAIL  camera (file): cannot read an image from /nonexistent/board.png" in out
    assert out.rstrip().endswith("9 problem(s) found")


def test_check_reader_with_fewer_readers_than_names(tmp_path: Path, stubs: dict[str, str]) -> None:
    sysfs, dev = fake_devices(tmp_path)
    board = FakeReaderBoard(readers=1)
    try:
        config = _config(
            tmp_path, f'[reader]\nmode = "serial"\nport = "{board.port}"\nnames = ["bank", "market"]\n'
        )
        env = check_env(stubs, sysfs, dev, READER_GROUP=_group(board.port))
        result = run_script("check", str(config), env=env)
    finally:
        board.close()
    assert result.returncode == 1
    assert "but reader.names lists 2 reader(s)" in result.stdout


def test_check_reader_that_does_not_answer(tmp_path: Path, stubs: dict[str, str]) -> None:
    sysfs, dev = fake_devices(tmp_path)
    board = FakeReaderBoard(readers=2, answer=False)
    try:
        config = _config(tmp_path, f'[reader]\nmode = "serial"\nport = "{board.port}"\n')
        env = check_env(stubs, sysfs, dev, READER_GROUP=_group(board.port), READER_TIMEOUT="1")
        result = run_script("check", str(config), env=env)
    finally:
        board.close()
    assert result.returncode == 1
    assert "the board talks ('hb' lines) but did not answer the version request" in result.stdout


def test_check_stops_at_a_bad_config(tmp_path: Path, stubs: dict[str, str]) -> None:
    sysfs, dev = fake_devices(tmp_path)
    config = _config(tmp_path, '[camera]\nmode = "webcam"\n')
    result = run_script("check", str(config), env=check_env(stubs, sysfs, dev))
    assert result.returncode == 1
    assert "camera.mode: 'webcam' is not allowed" in result.stdout
    assert "display" not in result.stdout


# --------------------------------------------------------------------------- what an owner hits (issue 41)


def test_install_on_plain_debian_names_the_raspberry_pi_os_packages(
    tmp_path: Path, stubs: dict[str, str]
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    env = {
        **stubs,
        "STUB_APT_MISSING": "python3-picamera2 python3-libcamera python3-lgpio rpicam-apps-lite libcamera-apps-lite",
    }
    result = run_script("install.sh", "--root", str(root), env=env)
    assert result.returncode == 1
    assert (
        "apt cannot find python3-picamera2 python3-libcamera python3-lgpio libcamera-apps-lite"
        in result.stderr
    )
    assert "come from Raspberry Pi OS" in result.stderr
    calls = log_of(stubs)
    assert any(c.startswith("apt-get ") and " update" in c for c in calls)
    assert not any(c.startswith("apt-get ") and " install " in c for c in calls)
    assert not any(c.startswith(("useradd", "systemctl enable")) for c in calls)
    # a Debian package missing (a wrong OS, broken sources) is said as such
    result = run_script("install.sh", "--root", str(root), env={**stubs, "STUB_APT_MISSING": "libsdl2-2.0-0"})
    assert result.returncode == 1
    assert (
        "apt cannot find libsdl2-2.0-0" in result.stderr and "come from Raspberry Pi OS" not in result.stderr
    )


def test_install_without_a_display_starts_the_waiting_service_and_exits_0(
    tmp_path: Path, stubs: dict[str, str]
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (Path(stubs["SYSFS"]) / "class/drm/card1-HDMI-A-1/status").write_text("disconnected\n")
    result = run_script("install.sh", "--root", str(root), "--no-apt", env=stubs)
    assert result.returncode == 0, result.stderr
    assert "no display is connected: companion.service waits for one" in result.stderr
    calls = log_of(stubs)
    assert calls.index("systemctl start companion-backup.timer") < calls.index(
        "systemctl restart --no-block companion.service"
    )
    assert "systemctl restart companion.service" not in calls
    assert "==> done" in result.stdout


@pytest.mark.parametrize(
    ("stub", "said"),
    [
        ({"STUB_RESTART_FAILS": "1"}, "companion.service did not start: error: no display (kmsdrm)"),
        ({"STUB_ACTIVE": "inactive"}, "companion.service stopped after starting: error: no display (kmsdrm)"),
    ],
)
def test_install_reports_a_failed_app_start_as_a_warning_with_the_reason(
    tmp_path: Path, stubs: dict[str, str], stub: dict[str, str], said: str
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    env = {**stubs, **stub, "STUB_JOURNAL": "error: no display (kmsdrm): Kivy could not open a window"}
    result = run_script("install.sh", "--root", str(root), "--no-apt", env=env)
    assert result.returncode == 0, result.stderr
    assert said in result.stderr
    assert "(result: exit-code)" in result.stderr
    assert "systemctl start companion-backup.timer" in log_of(stubs)
    assert "==> done" in result.stdout


def test_install_removes_root_owned_build_leftovers_from_the_owners_clone(
    tmp_path: Path, stubs: dict[str, str]
) -> None:
    """An older installer ran pip in the clone as root: its build/ and *.egg-info go, once; the
    owner's own files stay, and this installer leaves nothing new in the clone."""
    clone = tmp_path / "clone"
    shutil.copytree(DEPLOY, clone / "deploy")
    shutil.copy(REPO / "pyproject.toml", clone)
    (clone / "companion").mkdir()
    (clone / "companion/__init__.py").write_text("")
    (clone / "build/lib/companion").mkdir(parents=True)
    (clone / "build/lib/companion/deleted_upstream.py").write_text("")
    (clone / "companion.egg-info").mkdir()
    (clone / "notes-owner.txt").write_text("mine")
    (clone / "build-mine").mkdir()
    for path in [clone, *clone.rglob("*")]:
        os.lchown(path, 1000, 1000)
    for path in [clone / "build", *(clone / "build").rglob("*"), clone / "companion.egg-info"]:
        os.lchown(path, 0, 0)
    before = sorted(str(p.relative_to(clone)) for p in clone.rglob("*") if "build/" not in str(p))
    root = tmp_path / "root"
    root.mkdir()
    result = subprocess.run(
        [str(clone / "deploy/install.sh"), "--root", str(root), "--no-apt"],
        capture_output=True,
        text=True,
        env=stubs,
    )
    assert result.returncode == 0, result.stderr
    assert f"removing {clone}/build (left by an older installer" in result.stdout
    after = sorted(str(p.relative_to(clone)) for p in clone.rglob("*"))
    assert after == [p for p in before if p not in ("build", "companion.egg-info")]
    built = next(c for c in log_of(stubs) if c.startswith("built from "))
    assert "build " not in built and "egg-info" not in built and "notes-owner.txt" in built


def test_install_never_follows_links_in_the_companion_users_folder(
    tmp_path: Path, stubs: dict[str, str]
) -> None:
    """Issue 40: /var/lib/companion belongs to the service user, who can plant a link there; the
    installer runs as root and must neither change a link's target nor write through it."""
    root = tmp_path / "root"
    root.mkdir()
    assert run_script("install.sh", "--root", str(root), "--no-apt", env=stubs).returncode == 0
    state = root / "var/lib/companion"
    secret = tmp_path / "etc-shadow"
    secret.write_text("root:x:1:\n")
    secret.chmod(0o600)
    outside = tmp_path / "outside"
    outside.mkdir(mode=0o700)
    for planted, target in [
        (state / "kivy/config.ini", secret),
        (state / "kivy", outside),
        (state / "backups", outside),
    ]:
        shutil.rmtree(planted) if planted.is_dir() and not planted.is_symlink() else planted.unlink()
        planted.symlink_to(target)
        log_of(stubs)
        result = run_script("install.sh", "--root", str(root), "--no-apt", env=stubs)
        assert result.returncode == 1
        assert (
            f"{planted} is a symbolic link (to {target}); the installer does not follow links"
            in result.stderr
        )
        assert secret.read_text() == "root:x:1:\n" and stat.S_IMODE(secret.stat().st_mode) == 0o600
        assert list(outside.iterdir()) == [] and stat.S_IMODE(outside.stat().st_mode) == 0o700
        assert not any(c.startswith("chown") for c in log_of(stubs))
        planted.unlink()
        planted.mkdir() if planted.name != "config.ini" else None
    # a link deeper down (a backup pointing elsewhere) is left alone: chown -h changes the link itself
    (state / "backups/old.sqlite3").symlink_to(secret)
    result = run_script("install.sh", "--root", str(root), "--no-apt", env=stubs)
    assert result.returncode == 0, result.stderr
    assert f"chown -R -h -P companion:companion {state}" in log_of(stubs)
    assert secret.read_text() == "root:x:1:\n"


def test_check_requires_the_backup_timer_to_run(tmp_path: Path, stubs: dict[str, str]) -> None:
    sysfs, dev = fake_devices(tmp_path)
    config = _config(tmp_path, "")
    result = run_script("check", str(config), env=check_env(stubs, sysfs, dev, STUB_TIMER_ACTIVE="inactive"))
    assert result.returncode == 1
    assert "FAIL  companion-backup.timer is enabled but not running" in result.stdout
    result = run_script("check", str(config), env=check_env(stubs, sysfs, dev))
    assert "OK    companion-backup.timer is enabled and running" in result.stdout


def test_wait_devices_waits_for_a_display_plugged_in_later(tmp_path: Path) -> None:
    sysfs, dev = fake_devices(tmp_path, display=False)
    config = _config(tmp_path, "")
    env = {**os.environ, "COMPANION": str(COMPANION), "SYSFS": str(sysfs), "DEV": str(dev)}
    assert run_script("companion-wait-devices", "--display-now", env=env).returncode == 1
    waiting = subprocess.Popen(
        [str(DEPLOY / "companion-wait-devices"), str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert waiting.stderr is not None
        line = waiting.stderr.readline()  # said once the configuration is checked
        assert line.startswith("waiting for a display to be connected (0s so far)")
        assert waiting.poll() is None
        (sysfs / "class/drm/card1-HDMI-A-1/status").write_text("connected\n")
        out, err = waiting.communicate(timeout=30)
    finally:
        waiting.kill()
    assert waiting.returncode == 0, err
    assert re.fullmatch(r"display ready after \d+s\n", out)  # the configuration is checked, not printed
    assert run_script("companion-wait-devices", "--display-now", env=env).returncode == 0


def test_wait_devices_without_kms_says_so(tmp_path: Path) -> None:
    sysfs, dev = fake_devices(tmp_path)
    shutil.rmtree(sysfs / "class/drm")
    env = {**os.environ, "COMPANION": str(COMPANION), "SYSFS": str(sysfs), "DEV": str(dev), "DRM_WAIT": "0"}
    result = run_script("companion-wait-devices", str(_config(tmp_path, "")), env=env)
    assert result.returncode == 1
    assert result.stderr.startswith("no display (KMS/DRM):") and "vc4-kms-v3d" in result.stderr
    bad = run_script("companion-wait-devices", str(_config(tmp_path, "[panel]\nundo = 17\n")), env=env)
    assert bad.returncode == 1 and "panel: GPIO 17 is used" in bad.stderr and bad.stdout == ""


def test_run_without_kms_stops_with_one_line_and_status_3(tmp_path: Path) -> None:
    """No KMS/DRM (a desktop image, no vc4-kms overlay): one clear line and exit status 3, which
    companion.service does not restart (RestartPreventExitStatus=3), instead of an AttributeError loop."""
    assert _unit_keys(DEPLOY / "companion.service")["RestartPreventExitStatus"] == ["3"]
    config = _config(tmp_path, f'[game]\ndatabase = "{tmp_path / "games.sqlite3"}"\n')
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "COMPANION_DB")}
    env.update(SDL_VIDEODRIVER="kmsdrm", KIVY_WINDOW="sdl2", KIVY_GL_BACKEND="sdl2", KIVY_HOME=str(tmp_path))
    result = subprocess.run(
        [str(COMPANION), "run", "--config", str(config)], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 3, result.stderr
    assert result.stderr.splitlines()[-1].startswith(
        "error: no display (kmsdrm): Kivy could not open a window"
    )
    assert "AttributeError" not in result.stderr
