"""The table and touchscreen tests of the titles without a map (Trans-Siberian Railroad, City of the
Big Shoulders), one helper for both: a new table game driven by taps, touches and confirms through
the table service (``Table``, ``open_table``), and the screen tests' drives (``screen_shots``,
``cell``, ``companion_run_twice``, ``demo_night``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import pytest

from companion.engine.core import TableGame
from companion.store import Store
from companion.table.script import demo_uid, enroll_demo_tags
from companion.table.service import Proposal, Result, TableService
from companion.table.tags import TagRegistry, find_item
from tests.support.ui import Started, companion_run, drive, selected

GameT = TypeVar("GameT", bound=TableGame)


@dataclass
class Table(Generic[GameT]):
    """A new game of ``title`` at the table, every card with its demo tag."""

    title: str
    game_type: type[GameT]
    service: TableService
    store: Store
    registry: TagRegistry

    @property
    def game(self) -> GameT:
        game = self.service.game
        assert isinstance(game, self.game_type)
        return game

    def uid(self, card: str) -> str:
        return demo_uid(find_item(self.title, card))

    def tap(self, card: str) -> Proposal:
        out = self.service.tap(self.uid(card))
        assert isinstance(out, Proposal), out
        return out

    def touch(self, label: str) -> Proposal:
        out = self.service.touch(label)
        assert isinstance(out, Proposal), out
        return out

    def refused(self, card: str) -> str:
        """Tap ``card``, which must be refused: the game, everyone's cash, the store and the pending
        proposal are as they were; the reason."""
        before, stored = self.game.trace_state(), len(self.store.actions(self.service.game_id))
        cash, pending = self.game.cash_table(), self.service.proposal
        out = self.service.tap(self.uid(card))
        assert isinstance(out, Result) and not out.ok, out
        assert self.game.trace_state() == before and self.game.cash_table() == cash
        assert len(self.store.actions(self.service.game_id)) == stored
        assert self.service.proposal == pending
        return out.text

    def confirm(self) -> Result:
        out = self.service.press("confirm")
        assert isinstance(out, Result) and out.ok and out.applied, out
        return out


@contextmanager
def open_table(
    tmp_path: Path, title: str, names: list[str], game_type: type[GameT]
) -> Iterator[Table[GameT]]:
    """A new ``title`` game of ``names`` at a table (store and tag registry in ``tmp_path``), closed after."""
    db = tmp_path / f"{title.lower()}.sqlite3"
    store, registry = Store.open(db), TagRegistry.open(db)
    try:
        enroll_demo_tags(registry, title)
        service = TableService.new(store, registry, title, names)
        yield Table(title, game_type, service, store, registry)
    finally:
        store.close()
        registry.close()


def companion(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m companion ARGS`` without the device's configuration."""
    return subprocess.run(
        [sys.executable, "-m", "companion", *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "COMPANION_CONFIG": ""},
        timeout=120,
    )


def tags_sheet(tmp_path: Path, title: str) -> tuple[str, str]:
    """``companion tags sheet --title TITLE``: what it says, and the sheet it wrote."""
    out = tmp_path / f"{title.lower()}.svg"
    done = companion("tags", "sheet", "--title", title, str(out))
    assert done.returncode == 0, done.stderr
    return done.stdout, out.read_text()


# -- the screen tests (under Xvfb: the ``display`` fixture) ------------------------------------------------
def screen_shots(
    tmp_path_factory: pytest.TempPathFactory, display: str, body: str, name: str
) -> dict[str, Any]:
    """``ui_drive.drive(body)`` in a new folder: each step's texts and tagged widgets, and ``out``."""
    out = tmp_path_factory.mktemp(name)
    result = drive(body, out, display)
    result["out"] = out
    return result


def cell(shot: dict[str, Any], panel: int, row: int, col: int) -> str:
    """The text of a title panel's cell on a screenshot."""
    return str(shot["labelled"][f"cell:{panel}:{row}:{col}"]["text"])


def cells_inside(shot: dict[str, Any], width: int) -> bool:
    """Every title panel's cell on a screenshot lies within the window's ``width``."""
    boxes = [v["box"] for k, v in shot["labelled"].items() if k.startswith("cell:")]
    return bool(boxes) and all(x >= 0 and x + w <= width + 1 for x, _y, w, _h in boxes)


def companion_run_twice(
    tmp_path: Path, display: str, title: str, players: list[str], stored: dict[str, Any]
) -> tuple[list[str], list[str]]:
    """``companion run`` with ``game.title = title``, then again after ``stored`` was appended to its
    game in the store (as a confirmed action is): the texts on the screen each time."""
    names = ", ".join(f'"{p}"' for p in players)
    (tmp_path / "c.toml").write_text(
        f'[game]\ntitle = "{title}"\nplayers = [{names}]\ndatabase = "db.sqlite3"\n'
    )
    texts = []
    for shot in ("shot", "again"):
        proc = companion_run(
            ["--config", "c.toml", "--exit-after", "4", "--screenshot", f"{shot}.png"], display, tmp_path
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        texts.append((tmp_path / f"{shot}.txt").read_text().splitlines())
        if shot == "shot":
            with Store.open(tmp_path / "db.sqlite3") as store:
                (game,) = store.games()
                assert game.title == title
                store.append(game.id, stored)
    return texts[0], texts[1]


@dataclass(frozen=True)
class DemoNight:
    """What ``companion demo --title TITLE`` left: its transcript and its screens' records, in order."""

    transcript: str
    records: list[dict[str, Any]]


def start_demo_night(out: Path, display: str, title: str) -> Started:
    """Start ``companion demo --headless --title TITLE`` into ``out``, in the background."""
    return Started(
        [sys.executable, "-m", "companion", "demo", "--headless", "--title", title, "--out", str(out)],
        env=dict(os.environ, DISPLAY=display),
    )


def night_in_background(
    request: Any, tmp_path_factory: Any, display: str, title: str, test: str
) -> Iterator[tuple[Path, Started] | None]:
    """The body of a module fixture: ``companion demo --title TITLE``'s game night started with the
    module's first test and waited for by ``test`` (its folder and run; None when ``test`` does not
    run in this session)."""
    if not selected(request, test):
        yield None
        return
    folder = tmp_path_factory.mktemp(f"{title.lower()}-night")
    started = start_demo_night(folder / "demo", display, title)
    yield folder, started
    started.stop()


def demo_night(
    tmp_path: Path, display: str, title: str, timeout: int, started: Started | None = None
) -> DemoNight:
    """``companion demo --headless --title TITLE``: the title's scripted night (taps on the simulated
    reader, touch buttons, confirms), a screenshot after each scene; or the one ``started`` into
    ``tmp_path / "demo"`` (:func:`start_demo_night`), waited for."""
    out = tmp_path / "demo"
    proc = (started or start_demo_night(out, display, title)).finished(timeout)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return DemoNight((out / "transcript.txt").read_text(), json.loads((out / "screens.json").read_text()))
