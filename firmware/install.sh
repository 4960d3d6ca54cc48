#!/usr/bin/env bash
# Copy the reader firmware onto a Raspberry Pi Pico that already runs MicroPython.
#   firmware/install.sh                # the first board mpremote finds
#   firmware/install.sh /dev/ttyACM0   # a given port
# Needs mpremote (pip install mpremote). Optional: a readercfg.py next to this
# script with your pin overrides is copied too (see README.md).
set -euo pipefail
cd "$(dirname "$0")"
port=${1:-auto}
files=(nfcproto.py iso14443a.py mfrc522.py pn532.py presence.py reader_app.py main.py)
[ -f readercfg.py ] && files+=(readercfg.py)
if ! command -v mpremote >/dev/null; then
  echo "mpremote not found: pip install mpremote" >&2
  exit 1
fi
for f in "${files[@]}"; do
  echo "copying $f"
  mpremote connect "$port" fs cp "$f" ":$f"
done
mpremote connect "$port" reset
echo "done: the board restarts and runs main.py; check it with: companion nfc monitor --all"
