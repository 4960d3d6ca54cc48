#!/usr/bin/env bash
# Install (or update) the 18xx table companion on Raspberry Pi OS Bookworm
# 64-bit (Raspberry Pi 4 or 5).  Run from a clone of the repository:
#
#     sudo deploy/install.sh [--console] [--no-apt] [--no-start] [--dry-run] [--root DIR]
#
#   --console   make the Pi boot to the console (multi-user.target): the app
#               draws on the display itself (KMS/DRM) and a desktop would hold it
#   --no-apt    do not install Debian packages (they are already there)
#   --no-start  install and enable, but do not (re)start the service now
#   --dry-run   print every command that would change the system, change nothing
#   --root DIR  write every file under DIR instead of / (for tests and staging;
#               the commands it runs are still this machine's: combine with
#               --dry-run, or put stand-ins for apt-get, useradd, systemctl... on PATH)
#
# Running it again is safe: existing users, directories and an edited
# /etc/companion/companion.toml are kept; the program and units are updated.
# What it does, step by step, is described in deploy/README.md.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(dirname "$here")
root=""
dry_run=0
use_apt=1
start=1
console=0

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case "$1" in
    --root) [ $# -ge 2 ] || { echo "install.sh: --root needs a directory" >&2; exit 2; }
            root=$(cd "$2" && pwd); shift 2 ;;
    --root=*) root=$(cd "${1#--root=}" && pwd); shift ;;
    --dry-run) dry_run=1; shift ;;
    --no-apt) use_apt=0; shift ;;
    --no-start) start=0; shift ;;
    --console) console=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

# Where things go (all under $root when --root is given).
opt=$root/opt/companion
venv=$opt/venv
etc=$root/etc/companion
config=$etc/companion.toml
state=$root/var/lib/companion
units=$root/etc/systemd/system
rules=$root/etc/udev/rules.d
journald=$root/etc/systemd/journald.conf.d
user=companion
groups_wanted=(video render input dialout gpio)

run() {
  if [ "$dry_run" -eq 1 ]; then
    printf '+'; printf ' %q' "$@"; printf '\n'
  else
    "$@"
  fi
}
step() { printf '==> %s\n' "$*"; }
# apt knows a package that it could install (after apt-get update)
available() {
  local candidate
  candidate=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
  [ -n "$candidate" ] && [ "$candidate" != "(none)" ]
}
warn() { printf 'warning: %s\n' "$*" >&2; }

if [ "$(id -u)" -ne 0 ] && [ -z "$root" ] && [ "$dry_run" -eq 0 ]; then
  echo "install.sh must run as root: sudo $0 $*" >&2
  exit 1
fi

# --------------------------------------------------------------- the system
codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null || true)
codename=${codename:-unknown}
[ "$codename" = bookworm ] || warn "this is '$codename', not Debian/Raspberry Pi OS bookworm: package names may differ"
[ "$(uname -m)" = aarch64 ] || warn "this is $(uname -m), not a 64-bit Raspberry Pi OS (aarch64)"

if [ "$use_apt" -eq 1 ]; then
  step "installing Debian packages"
  packages=(
    python3 python3-venv python3-pip sqlite3 usbutils
    # Kivy on KMS/DRM without a desktop: SDL2, Mesa (OpenGL ES/EGL), multitouch
    libsdl2-2.0-0 libsdl2-image-2.0-0 libsdl2-mixer-2.0-0 libsdl2-ttf-2.0-0
    libmtdev1 libgl1-mesa-dri libegl1 libgles2 libgbm1 libdrm2 fonts-dejavu-core
  )
  # camera (picamera2, libcamera, the camera tools) and GPIO (lgpio, for gpiozero on the
  # Pi 4 and the Pi 5): these come from Raspberry Pi OS's own archive, not from Debian
  pi_packages=(python3-picamera2 python3-libcamera python3-lgpio)
  run env DEBIAN_FRONTEND=noninteractive apt-get update
  # the camera tools were renamed from libcamera-apps to rpicam-apps in late 2023
  if available rpicam-apps-lite; then
    pi_packages+=(rpicam-apps-lite)
  else
    pi_packages+=(libcamera-apps-lite)
  fi
  missing=()
  for package in "${packages[@]}" "${pi_packages[@]}"; do
    available "$package" || missing+=("$package")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "install.sh: apt cannot find ${missing[*]} on this system ('$codename', $(uname -m))." >&2
    pi_missing=0
    for package in "${missing[@]}"; do
      [[ " ${pi_packages[*]} " == *" $package "* ]] && pi_missing=1
    done
    if [ "$pi_missing" -eq 1 ]; then
      echo "The camera and GPIO packages come from Raspberry Pi OS: install on Raspberry Pi OS Bookworm 64-bit (Lite), not plain Debian (deploy/README.md, step 1)." >&2
    else
      echo "Is this Debian 12 (bookworm) or Raspberry Pi OS Bookworm with its usual apt sources? (deploy/README.md, step 1)" >&2
    fi
    echo "Nothing was installed." >&2
    exit 1
  fi
  run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    "${packages[@]}" "${pi_packages[@]}"
fi

step "system user '$user'"
if getent passwd "$user" >/dev/null; then
  echo "user $user exists"
else
  run useradd --system --user-group --home-dir /var/lib/companion --no-create-home \
    --shell /usr/sbin/nologin --comment "18xx table companion" "$user"
fi
groups=()
for group in "${groups_wanted[@]}"; do
  if getent group "$group" >/dev/null; then
    groups+=("$group")
  else
    warn "group '$group' does not exist here: $user cannot use the devices it guards"
  fi
done
if [ ${#groups[@]} -gt 0 ]; then
  run usermod --append --groups "$(IFS=,; echo "${groups[*]}")" "$user"
fi

step "directories"
# The companion user owns $state and can put a symbolic link anywhere in it; this script
# runs as root, so it never follows one there: a link where it writes is refused, and the
# ownership is changed with chown -h (on the links themselves, never on what they point to).
for path in "$state" "$state/backups" "$state/kivy" "$state/kivy/config.ini"; do
  if [ -L "$path" ]; then
    echo "install.sh: $path is a symbolic link (to $(readlink "$path")); the installer does not follow links in the companion user's folder: remove it, then run the installer again" >&2
    exit 1
  fi
done
run install -d -m 0755 "$opt" "$opt/bin" "$opt/share" "$etc" "$units" "$rules" "$journald"
run install -d -m 0750 "$state" "$state/backups" "$state/kivy"
run chown -R -h -P "$user:$user" "$state"

step "program: virtual environment $venv (with the system's picamera2)"
# Built from a temporary copy of the checkout: pip run as root in the owner's clone would leave
# root-owned build/ and *.egg-info there (which the owner cannot delete, and whose stale
# build/lib brings back modules deleted upstream).  Leftovers of older installers go once.
owner=$(stat -c %u "$src")
if [ "$owner" -ne 0 ]; then
  while IFS= read -r -d '' leftover; do
    echo "removing $leftover (left by an older installer, owned by root)"
    run rm -rf -- "$leftover"
  done < <(find "$src" -mindepth 1 -maxdepth 1 \( -name build -o -name '*.egg-info' \) -user 0 -print0)
fi
build=$(mktemp -d "${TMPDIR:-/tmp}/companion-build.XXXXXX")
trap 'rm -rf "$build"' EXIT
tar -C "$src" --exclude=./.git --exclude=./.venv --exclude=./build --exclude='*.egg-info' \
  --exclude=__pycache__ --exclude=.pytest_cache --exclude=.mypy_cache --exclude=.ruff_cache \
  --exclude=./node_modules --exclude=.hypothesis --exclude=./demo-out \
  -cf - . | tar -C "$build" -xf -
run python3 -m venv --system-site-packages "$venv"
run "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  --constraint "$here/constraints-pi.txt" "${build}[pi]"
# pip may keep an installed copy of the same version: make sure this checkout is the one installed
run "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --force-reinstall "$build"

step "helper scripts and documentation in $opt"
run install -m 0755 "$here/companion-backup" "$here/companion-wait-devices" "$opt/bin/"
run install -m 0755 "$here/check" "$opt/bin/companion-check"
run install -m 0644 "$here/README.md" "$here/companion.toml" "$opt/share/"

step "configuration $config"
if [ -e "$config" ]; then
  echo "keeping the existing $config (the example is in $opt/share/companion.toml)"
else
  run install -m 0644 "$here/companion.toml" "$config"
fi
if [ -e "$state/kivy/config.ini" ]; then
  echo "keeping the existing $state/kivy/config.ini"
else
  # (install replaces a file by unlinking it: a link planted since the test above is replaced, not followed)
  run install -m 0640 "$here/kivy-config.ini" "$state/kivy/config.ini"
  run chown -h "$user:$user" "$state/kivy/config.ini"
fi

step "systemd units, udev rule, journald limits"
run install -m 0644 "$here/companion.service" "$here/companion-backup.service" \
  "$here/companion-backup.timer" "$units/"
run install -m 0644 "$here/99-companion-reader.rules" "$rules/99-companion-reader.rules"
run install -m 0644 "$here/journald-companion.conf" "$journald/companion.conf"
run systemctl daemon-reload
run systemctl restart systemd-journald.service
if run udevadm control --reload-rules 2>/dev/null; then
  run udevadm trigger --action=add --subsystem-match=tty
else
  echo "udev is not running here (a container?): the reader's rule applies when it runs"
fi
run systemctl enable companion.service companion-backup.timer

# A desktop (a display manager such as lightdm started by graphical.target) holds the display;
# graphical.target without a display manager is only a name and changes nothing.
if [ "$(systemctl get-default 2>/dev/null || echo unknown)" = graphical.target ]; then
  if [ "$console" -eq 1 ]; then
    run systemctl set-default multi-user.target
    echo "the Pi now boots to the console; the companion draws on the display (reboot to apply)"
  elif [ "$(systemctl show --property=LoadState --value display-manager.service 2>/dev/null)" = loaded ]; then
    warn "the Pi boots to the desktop, which holds the display: run again with --console (or use Raspberry Pi OS Lite)"
  fi
fi

status=0
step "checking $config"
if [ "$dry_run" -eq 1 ]; then
  run "$venv/bin/companion" config check "$config"
elif ! "$venv/bin/companion" config check "$config" >/dev/null; then
  warn "fix $config (see the errors above), then: sudo systemctl restart companion"
  status=1
  start=0
fi

# why companion.service is not running, in one line (the last warning it logged)
why_not_running() {
  local result line
  result=$(systemctl show --property=Result --value companion.service 2>/dev/null || true)
  line=$(journalctl --unit=companion.service --boot --priority=warning --lines=1 --output=cat --no-pager 2>/dev/null || true)
  echo "${line:-no message in the journal} (result: ${result:-unknown})"
}

if [ "$start" -eq 1 ]; then
  step "starting"
  # the backups first: whatever happens to the app below, the games are backed up
  run systemctl start companion-backup.timer
  if [ "$dry_run" -eq 1 ]; then
    run systemctl restart companion.service
  elif ! "$here/companion-wait-devices" --display-now; then
    # the unit waits for a display itself; a blocking restart would wait with it
    systemctl restart --no-block companion.service
    warn "no display is connected: companion.service waits for one and starts the app when it is plugged in (sudo $opt/bin/companion-check tests it)"
  elif ! systemctl restart companion.service; then
    warn "companion.service did not start: $(why_not_running); see journalctl -u companion -b"
  else
    sleep "${START_GRACE:-5}"  # a start that fails does so within seconds (configuration, display, database)
    if ! systemctl is-active --quiet companion.service; then
      warn "companion.service stopped after starting: $(why_not_running); see journalctl -u companion -b"
    fi
  fi
fi

step "done"
cat <<EOF
Next: edit $config if needed, plug in the reader, reboot, then run
    sudo $opt/bin/companion-check
to test the display, touchscreen, reader, camera and GPIO in place.
EOF
exit "$status"
