#!/usr/bin/env bash
# Remove the 18xx table companion installed by deploy/install.sh.
#
#     sudo deploy/uninstall.sh [--purge] [--dry-run] [--root DIR]
#
# Stops and disables the service and the backup timer, removes the units, the
# udev rule, the journald limits and /opt/companion (program and venv).
# Keeps the game database and backups (/var/lib/companion), the configuration
# (/etc/companion) and the 'companion' user, unless --purge is given.
#   --dry-run   print every command that would change the system, change nothing
#   --root DIR  remove files under DIR instead of / (for tests; see install.sh)
set -euo pipefail

root=""
dry_run=0
purge=0

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case "$1" in
    --root) [ $# -ge 2 ] || { echo "uninstall.sh: --root needs a directory" >&2; exit 2; }
            root=$(cd "$2" && pwd); shift 2 ;;
    --root=*) root=$(cd "${1#--root=}" && pwd); shift ;;
    --dry-run) dry_run=1; shift ;;
    --purge) purge=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "uninstall.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

run() {
  if [ "$dry_run" -eq 1 ]; then
    printf '+'; printf ' %q' "$@"; printf '\n'
  else
    "$@"
  fi
}
step() { printf '==> %s\n' "$*"; }

if [ "$(id -u)" -ne 0 ] && [ -z "$root" ] && [ "$dry_run" -eq 0 ]; then
  echo "uninstall.sh must run as root: sudo $0 $*" >&2
  exit 1
fi

step "stopping and disabling the service and the backup timer"
# Only units systemd still knows (after an earlier uninstall they are gone, and systemctl
# would only complain); a failed state is forgotten while the unit exists.
loaded() { [ "$(systemctl show --property=LoadState --value "$1" 2>/dev/null)" = loaded ]; }
for unit in companion.service companion-backup.timer; do
  if loaded "$unit"; then run systemctl disable --now "$unit" || true; fi
done
for unit in companion.service companion-backup.service; do
  if loaded "$unit"; then
    run systemctl stop "$unit" || true
    run systemctl reset-failed "$unit" 2>/dev/null || true
  fi
done

step "removing units, udev rule, journald limits, program"
run rm -f "$root/etc/systemd/system/companion.service" \
  "$root/etc/systemd/system/companion-backup.service" \
  "$root/etc/systemd/system/companion-backup.timer" \
  "$root/etc/udev/rules.d/99-companion-reader.rules" \
  "$root/etc/systemd/journald.conf.d/companion.conf"
run rm -rf "$root/opt/companion"
# the folder install.sh made for the journald limits, if nothing else is in it
[ -d "$root/etc/systemd/journald.conf.d" ] && run rmdir --ignore-fail-on-non-empty "$root/etc/systemd/journald.conf.d"
run systemctl daemon-reload
run udevadm control --reload-rules 2>/dev/null || echo "udev is not running here (a container?): nothing to reload"

if [ "$purge" -eq 1 ]; then
  step "purging configuration, game database, backups and the companion user"
  run rm -rf "$root/etc/companion" "$root/var/lib/companion"
  if getent passwd companion >/dev/null; then
    run userdel companion
  fi
else
  step "kept: $root/etc/companion (configuration), $root/var/lib/companion (game database and backups), user companion"
  echo "remove them too with: sudo $0 --purge"
fi
