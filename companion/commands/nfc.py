"""``companion nfc monitor``: print every tag event from the reader as one JSON object per line.

``companion nfc check``: talk to the reader board once (hello, ping, optional
feedback) and say what it is; for bring-up and the installer's checks.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import os
import signal
import sys
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, TextIO

from companion.hardware.events import TagEvent, TagRemoved, TagSource
from companion.hardware.protocol import (
    CommandReply,
    DeviceError,
    DeviceHello,
    Heartbeat,
    StatusEvent,
)
from companion.hardware.reader import (
    PICO_PID,
    PICO_VID,
    SCRIPT_HELP,
    ScriptError,
    SerialReader,
    SimulatedReader,
    find_reader_port,
    parse_script,
)
from companion.inputfile import read_text


def register(subparsers: Any) -> None:
    nfc = subparsers.add_parser("nfc", help="NFC reader tools", description="NFC reader tools")
    sub = nfc.add_subparsers(dest="nfc_command", metavar="SUBCOMMAND")
    nfc.set_defaults(func=lambda args: _no_subcommand(nfc))
    mon = sub.add_parser(
        "monitor",
        help="print tag events as JSON lines",
        description="Print one JSON object per tag event on stdout; problems go to stderr. "
        "Without --port or --simulate the reader board is looked for by USB id "
        f"{PICO_VID:04X}:{PICO_PID:04X}.",
        epilog=SCRIPT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    src = mon.add_mutually_exclusive_group()
    src.add_argument("--port", metavar="DEV", help="serial device of the reader board, e.g. /dev/ttyACM0")
    src.add_argument(
        "--simulate",
        nargs="?",
        const="-",
        metavar="SCRIPT",
        help="simulated reader playing SCRIPT (default: read script lines from stdin)",
    )
    mon.add_argument(
        "--all", action="store_true", help="also print hello, heartbeat, device errors and replies"
    )
    mon.add_argument("--speed", type=float, default=1.0, help="simulated reader: speed factor for waits")
    mon.add_argument(
        "--wait", action="store_true", help="wait for the board to be plugged in instead of failing"
    )
    mon.set_defaults(func=monitor)
    chk = sub.add_parser(
        "check",
        help="ask the reader board who it is and whether it answers",
        description="Open the board, wait for its hello and a pong, print one JSON summary. "
        "Exit 0 if it answered, 1 if not.",
    )
    chk.add_argument(
        "--port", metavar="DEV", help=f"serial device (default: find USB {PICO_VID:04X}:{PICO_PID:04X})"
    )
    chk.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for answers (default 5)")
    chk.add_argument(
        "--feedback", choices=["accept", "reject"], help="also blink/beep the board's accept or reject signal"
    )
    chk.set_defaults(func=check)


def _no_subcommand(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def event_json(item: TagEvent | TagRemoved | StatusEvent) -> dict[str, Any]:
    """The JSON object printed for one event."""
    if isinstance(item, TagEvent):
        return {"event": "tag", "reader": item.reader, "uid": item.uid, "time": _now()}
    if isinstance(item, TagRemoved):
        return {"event": "removed", "reader": item.reader, "uid": item.uid, "time": _now()}
    names = {DeviceHello: "hello", Heartbeat: "heartbeat", DeviceError: "device_error", CommandReply: "reply"}
    data = asdict(item)
    data["boot"] = f"{item.boot:08X}"
    if isinstance(item, Heartbeat):
        data["tags"] = list(item.tags)
    return {"event": names[type(item)], **data, "time": _now()}


def _emit(out: TextIO, item: TagEvent | TagRemoved | StatusEvent) -> None:
    out.write(json.dumps(event_json(item)) + "\n")
    out.flush()


def monitor(args: argparse.Namespace) -> int:
    # Problems (rejected lines, reconnects, bad script lines) go to stderr.
    hw_log = logging.getLogger("companion.hardware")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    saved = (hw_log.level, hw_log.propagate)
    hw_log.addHandler(handler)
    hw_log.setLevel(logging.INFO)
    hw_log.propagate = False
    old_term = None
    if threading.current_thread() is threading.main_thread():
        old_term = signal.signal(signal.SIGTERM, _interrupt)  # systemd stop: end like Ctrl-C
    try:
        return _monitor(args)
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
        hw_log.removeHandler(handler)
        hw_log.setLevel(saved[0])
        hw_log.propagate = saved[1]


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def _monitor(args: argparse.Namespace) -> int:
    out = sys.stdout
    source: TagSource
    serial_reader: SerialReader | None = None
    if args.speed <= 0:
        print("error: --speed must be positive", file=sys.stderr)
        return 2
    if args.simulate is not None:
        if args.simulate == "-":
            source = SimulatedReader.from_stream(sys.stdin, speed=args.speed)
        else:
            text = read_text(Path(args.simulate), "reader script")  # InputFileError: exit 3
            try:
                source = SimulatedReader(parse_script(text), speed=args.speed)
            except ScriptError as exc:
                print(f"error: {args.simulate}: {exc}", file=sys.stderr)
                return 2
    else:
        port = args.port
        if port is not None and not args.wait and not os.path.exists(port):
            print(f"error: {port} does not exist; plug the board in, or pass --wait", file=sys.stderr)
            return 1
        if port is None and not args.wait and find_reader_port() is None:
            print(
                f"error: no reader board found (USB {PICO_VID:04X}:{PICO_PID:04X}); "
                "plug it in, or pass --port DEV, --wait or --simulate",
                file=sys.stderr,
            )
            return 1
        serial_reader = SerialReader(port, on_status=(lambda s: _emit(out, s)) if args.all else None)
        source = serial_reader
    try:
        for event in source.events():
            _emit(out, event)
    except KeyboardInterrupt:
        pass
    except BrokenPipeError:
        # stdout went away (e.g. piped into head): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        source.close()
    if serial_reader is not None:
        stats = serial_reader.stats
        print(
            f"reader: {stats.taps} taps, {stats.removals} removals, {stats.lines} lines, "
            f"{stats.corrupt} rejected, {stats.duplicates} repeated, {stats.missing} missing, "
            f"{stats.connects} connects",
            file=sys.stderr,
        )
    return 0


def check(args: argparse.Namespace) -> int:
    """Hello + ping (+ feedback) round trip with the board."""
    if args.timeout <= 0:
        print("error: --timeout must be positive", file=sys.stderr)
        return 2
    port = args.port if args.port is not None else find_reader_port()
    if port is None or not os.path.exists(port):
        where = port or f"USB {PICO_VID:04X}:{PICO_PID:04X}"
        print(f"error: no reader board found ({where})", file=sys.stderr)
        return 1
    got: list[StatusEvent] = []
    answered = threading.Event()
    reader = SerialReader(port, silence_timeout=None, on_status=got.append)
    thread = threading.Thread(target=lambda: [None for _ in reader.events()], daemon=True)
    thread.start()
    deadline = time.monotonic() + args.timeout
    sent: dict[str, bool] = {}
    try:
        while time.monotonic() < deadline:
            hello = next((s for s in got if isinstance(s, DeviceHello)), None)
            replies = [s for s in got if isinstance(s, CommandReply)]
            if hello is not None and "ping" not in sent:
                sent["ping"] = reader.send("ping")
                if args.feedback:
                    sent["feedback"] = reader.feedback(args.feedback == "accept")
            want = 1 + (1 if args.feedback else 0)
            if hello is not None and len(replies) >= want:
                answered.set()
                break
            time.sleep(0.02)
    finally:
        reader.close()
        thread.join(timeout=2)
    hello = next((s for s in got if isinstance(s, DeviceHello)), None)
    replies = [s for s in got if isinstance(s, CommandReply)]
    errors = [s for s in got if isinstance(s, DeviceError)]
    summary: dict[str, Any] = {"port": port, "answered": answered.is_set()}
    if hello is not None:
        summary.update(
            boot=f"{hello.boot:08X}",
            protocol=hello.proto,
            firmware=hello.firmware,
            readers=hello.readers,
            chip=hello.chip,
        )
    summary["replies"] = [r.kind for r in replies]
    summary["device_errors"] = [{"code": e.code, "reader": e.reader, "detail": e.detail} for e in errors]
    print(json.dumps(summary))
    if not answered.is_set():
        print(f"error: the board on {port} did not answer within {args.timeout:g} s", file=sys.stderr)
        return 1
    if any(r.kind == "nak" for r in replies):
        print("error: the board refused a command (old firmware?)", file=sys.stderr)
        return 1
    return 0
