"""Crash safety of the game store, with real processes and real SIGKILL.

A writer process appends actions in a loop and prints each sequence number
after ``append`` returns: that is the moment a player would be told.  The test
kills it with SIGKILL at random moments, reopens the database, and checks that
every acknowledged action is there, in order and intact, and nothing else is.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from companion.store import Store

# The writer: appends action n (whose content is a pure function of n) forever,
# printing n after each append has returned.
WRITER = r"""
import sys
from companion.store import Store

def make(n, tag):
    return {"type": "pass", "entity": tag, "entity_type": "player", "n": n, "pad": "x" * ((n * 37) % 2000)}

path, tag, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
store = Store.open(path)
games = store.games()
game = games[-1].id if games else store.create_game("1870", ["Ann", "Bob"], [], 7)
count = 0
while limit < 0 or count < limit:
    n = len(store.actions(game)) + 1 if tag == "solo" else count + 1
    seq = store.append(game, make(n, tag))
    print(seq, n, flush=True)
    count += 1
"""


def make(n: int, tag: str) -> dict[str, object]:
    return {"type": "pass", "entity": tag, "entity_type": "player", "n": n, "pad": "x" * ((n * 37) % 2000)}


def start_writer(db: Path, tag: str, limit: int) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db), tag, str(limit)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


class LineCollector:
    """Reads a child's stdout in a thread so the pipe never fills; keeps whole lines only."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        self.first = threading.Event()
        assert proc.stdout is not None
        self._stream = proc.stdout
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        for line in self._stream:
            if line.endswith("\n"):  # a line cut off by the kill was never acknowledged
                self.lines.append(line)
                self.first.set()
        self.first.set()

    def join(self) -> list[str]:
        self._thread.join(timeout=30)
        return self.lines


def test_sigkill_never_loses_an_acknowledged_action(tmp_path: Path) -> None:
    db = tmp_path / "crash.db"
    rng = random.Random(1870)
    acknowledged: list[int] = []
    kills_mid_run = 0
    for round_no in range(8):
        proc = start_writer(db, "solo", -1)
        collector = LineCollector(proc)
        if round_no % 4 == 3:
            time.sleep(rng.uniform(0.0, 0.15))  # sometimes during start-up or opening
        else:
            assert collector.first.wait(timeout=30), "the writer never acknowledged an action"
            time.sleep(rng.uniform(0.01, 0.3))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        acks = [int(line.split()[0]) for line in collector.join()]
        if acks:
            kills_mid_run += 1
        assert acks == sorted(acks)
        acknowledged.extend(acks)

        with Store.open(db) as store:
            assert store.check(replay=False) == []
            (game,) = store.games()
            stored = store.actions(game.id)
        seqs = [a["id"] for a in stored]
        # everything stored is a contiguous log 1..k, each action exactly as written
        assert seqs == list(range(1, len(stored) + 1))
        assert stored == [{**make(s, "solo"), "id": s} for s in seqs]
        # every acknowledged action is there; at most the one in flight was stored unacknowledged
        assert set(acknowledged) <= set(seqs)
        assert len(stored) - (max(acknowledged) if acknowledged else 0) <= 1
    assert kills_mid_run >= 4
    assert len(acknowledged) > 10


def test_concurrent_writers_and_reader(tmp_path: Path) -> None:
    db = tmp_path / "wal.db"
    with Store.open(db) as store:
        game = store.create_game("1870", ["Ann", "Bob"])
    writers = [start_writer(db, tag, 150) for tag in ("A", "B")]
    collectors = [LineCollector(p) for p in writers]
    seen = 0
    reads = 0
    with Store.open(db) as reader:
        while any(p.poll() is None for p in writers) or reads == 0:
            stored = reader.actions(game)
            # a reader always sees a consistent prefix of the log while writers commit
            assert [a["id"] for a in stored] == list(range(1, len(stored) + 1))
            assert len(stored) >= seen
            seen = len(stored)
            reads += 1
        final = reader.actions(game)
    for proc in writers:
        assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
    assert len(final) == 300
    for tag, collector in zip(("A", "B"), collectors, strict=True):
        mine = [a for a in final if a["entity"] == tag]
        assert [a["n"] for a in mine] == list(range(1, 151))
        assert sorted(int(line.split()[0]) for line in collector.join()) == [a["id"] for a in mine]
    assert reads >= 1


@pytest.mark.parametrize("kill_after", [0.0, 0.05])
def test_kill_while_creating_the_database(tmp_path: Path, kill_after: float) -> None:
    db = tmp_path / "new.db"
    proc = start_writer(db, "solo", -1)
    time.sleep(kill_after)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    with Store.open(db) as store:  # opens (or creates) cleanly whatever moment the kill hit
        assert store.check(replay=False) == []
        for game in store.games():
            json.dumps(store.actions(game.id))
