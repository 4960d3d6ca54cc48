"""NFC tap latency: a fake reader board on a pseudo-terminal -> SerialReader -> TagEvent.

The board side writes the tag line with the firmware's own encoder
(``firmware/nfcproto.py``) into the master end of a pty; the host side is the
real :class:`companion.hardware.reader.SerialReader` on the slave end, through
pyserial.  The figure is the time from the write to the TagEvent being yielded.

:class:`PtyBoard` is also the fake device of the reader tests.
"""

from __future__ import annotations

import importlib.util
import os
import queue
import select
import statistics
import threading
import time
import tty
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from companion.hardware.events import TagEvent, TagRemoved
from companion.hardware.protocol import encode_device_line

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"


class PtyBoard:
    """A fake reader board on a pseudo-terminal.

    What it writes to the master end arrives at the slave end, which pyserial
    opens like a USB serial port.  With ``link`` set, the port is reachable at
    that path (a symlink, like a udev name); :meth:`unplug` removes it and
    closes the pty (reads on the host side fail), :meth:`plug` makes a new pty
    at the same path.  Host commands are collected in ``commands`` and passed
    to ``on_command``.
    """

    def __init__(self, link: Path | None = None, on_command: Callable[[bytes], None] | None = None) -> None:
        self.link = link
        self.on_command = on_command
        self.commands: list[bytes] = []
        self.master = -1
        self.slave = -1
        self.slave_path = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.plug()

    @property
    def path(self) -> str:
        return str(self.link) if self.link is not None else self.slave_path

    @property
    def plugged(self) -> bool:
        return self.master >= 0

    def plug(self) -> None:
        if self.plugged:
            raise RuntimeError("already plugged in")
        self.commands = []
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.slave_path = os.ttyname(self.slave)
        if self.link is not None:
            tmp = self.link.with_name(self.link.name + ".new")
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(self.slave_path)
            os.replace(tmp, self.link)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._drain, args=(self.master, self._stop), daemon=True)
        self._thread.start()

    def _drain(self, fd: int, stop: threading.Event) -> None:
        buf = b""
        while not stop.is_set():
            try:
                ready, _, _ = select.select([fd], [], [], 0.02)
                if not ready:
                    continue
                data = os.read(fd, 4096)
            except OSError:
                return
            if not data:
                return
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                self.commands.append(line)
                if self.on_command is not None:
                    self.on_command(line + b"\n")

    def wait_host(self, timeout: float = 10.0) -> None:
        """Wait until the host has opened this pty (it sends ``version`` on every connect).

        pyserial flushes its input when it opens a port, so a fake board that
        wants its lines read writes them only after this.
        """
        deadline = time.monotonic() + timeout
        while not self.commands:
            if time.monotonic() > deadline:
                raise TimeoutError("the host never opened the port")
            time.sleep(0.005)

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = os.write(self.master, view)
            view = view[n:]

    def unplug(self) -> None:
        if not self.plugged:
            return
        if self.link is not None:
            self.link.unlink(missing_ok=True)
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        os.close(self.master)
        os.close(self.slave)
        self.master = self.slave = -1

    def close(self) -> None:
        self.unplug()


def load_firmware_module(name: str) -> ModuleType | None:
    """Import ``firmware/<name>.py`` (a source checkout only); None if it is not there."""
    path = FIRMWARE / f"{name}.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location(f"_firmware_{name}", path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def measure(taps: int = 300, seed_boot: int = 0x5EED0001) -> dict[str, float]:
    """Latencies in ms of ``taps`` tag lines (each followed by its removed line)."""
    from companion.hardware.reader import SerialReader

    fw = load_firmware_module("nfcproto")

    def encode(seq: int, kind: str, fields: list[tuple[str, str | int]]) -> bytes:
        if fw is not None:
            return str(fw.encode_event(seed_boot, seq, kind, fields)).encode()
        return encode_device_line(seed_boot, seq, kind, fields)

    board = PtyBoard()
    reader = SerialReader(board.path, silence_timeout=None)
    arrived: queue.Queue[tuple[float, object]] = queue.Queue()

    def consume() -> None:
        for ev in reader.events():
            arrived.put((time.perf_counter(), ev))

    thread = threading.Thread(target=consume, daemon=True)
    thread.start()
    latencies: list[float] = []
    seq = 0
    try:
        board.wait_host()
        board.write(encode(seq, "hello", [("proto", 1), ("fw", "bench"), ("readers", 4), ("hb", 1000)]))
        seq += 1
        for i in range(taps):
            uid = f"04{i:012X}"
            line = encode(seq, "tag", [("r", i % 4), ("uid", uid)])
            t0 = time.perf_counter()
            board.write(line)
            t1, ev = arrived.get(timeout=10)
            if ev != TagEvent(i % 4, uid):
                raise RuntimeError(f"unexpected event {ev}")
            latencies.append((t1 - t0) * 1000)
            board.write(encode(seq + 1, "removed", [("r", i % 4), ("uid", uid)]))
            if arrived.get(timeout=10)[1] != TagRemoved(i % 4, uid):
                raise RuntimeError("removal lost")
            seq += 2
            time.sleep(0.002)
    finally:
        reader.close()
        thread.join(timeout=5)
        board.close()
    latencies.sort()
    return {
        "n": float(len(latencies)),
        "median": statistics.median(latencies),
        "p95": latencies[int(0.95 * (len(latencies) - 1))],
        "max": latencies[-1],
        "corrupt": float(reader.stats.corrupt),
    }


def bench() -> str:
    r = measure()
    verdict = "meets" if r["p95"] < 50 else "misses"
    return (
        "## NFC tap latency\n\n"
        "From the fake board writing a `tag` line (firmware encoder) into a pseudo-terminal to "
        "`SerialReader.events()` yielding the `TagEvent` (pyserial, strict decoder, session "
        f"dedup). {int(r['n'])} taps in one run.\n\n"
        "| median | p95 | max |\n|---|---|---|\n"
        f"| {r['median']:.2f} ms | {r['p95']:.2f} ms | {r['max']:.2f} ms |\n\n"
        f"The p95 {verdict} the 50 ms goal for the host side. Not measured here: the board "
        "itself. It sees a placement within one poll round: a 15 ms pause plus about 2 ms "
        "per empty pad (the MFRC522 receive timeout) and a few ms for a pad with a tag, "
        "so roughly 20-30 ms with four pads (an estimate from the firmware's timings, not a "
        "measurement on a Pico), plus USB CDC transfer (about 1 ms). The game-state side is "
        "measured separately.\n"
    )


if __name__ == "__main__":
    print(bench())
