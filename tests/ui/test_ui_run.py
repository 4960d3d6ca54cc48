"""``companion run``: the touchscreen app from a configuration, under a private Xvfb."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.store import Store
from tests.support.ui import Started, companion_run, selected

WATCHED = ["1870", "1867"]


@pytest.fixture(scope="module", autouse=True)
def watches(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, display: str
) -> Iterator[dict[str, tuple[Path, Started]]]:
    """``companion run`` with a simulated camera for each title of
    ``test_the_board_watch_looks_every_check_interval``, both started with the module's first test
    and waited for by their own: they run together, and while the other tests run theirs."""
    out = {}
    wanted = selected(request, "test_the_board_watch_looks_every_check_interval")
    for title in WATCHED if wanted else []:
        folder = tmp_path_factory.mktemp(f"watch-{title}")
        (folder / "c.toml").write_text(
            f'[game]\ntitle = "{title}"\nplayers = ["Ann", "Bob", "Cy", "Di"]\ndatabase = "db.sqlite3"\n'
            '[camera]\nmode = "simulated"\ncheck_interval = 1.0\n'
            '[display]\nsize = "800x480"\n'
        )
        args = [
            "--config",
            "c.toml",
            "--exit-after",
            "100",
            "--exit-when",
            "[camera]",
            "--screenshot",
            "shot.png",
        ]
        started = Started(
            [sys.executable, "-m", "companion", "run", *args],
            env=dict(os.environ, DISPLAY=display),
            cwd=folder,
        )
        out[title] = (folder, started)
    yield out
    for _folder, started in out.values():
        started.stop()


def test_run_starts_then_resumes_the_game_in_the_store(tmp_path: Path, display: str) -> None:
    (tmp_path / "c.toml").write_text(
        '[game]\ntitle = "1870"\nplayers = ["Ann", "Bob", "Cy", "Di"]\ndatabase = "db.sqlite3"\n'
        '[display]\nsize = "1280x720"\n'
    )
    proc = companion_run(
        ["--config", "c.toml", "--exit-after", "4", "--screenshot", "shot.png"], display, tmp_path
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    # the loaded game is out of the garbage collector's way before the first touch (companion/runtime.py)
    assert "garbage collector settled" in (tmp_path / "logs" / "companion.log").read_text()
    texts = (tmp_path / "shot.txt").read_text().splitlines()
    assert "Bank $9,900" in texts and "Ann to act" in texts  # 1870: $12,000 less 4 × $525
    assert (tmp_path / "shot.png").stat().st_size > 10_000
    with Store.open(tmp_path / "db.sqlite3") as store:
        (game,) = store.games()
        assert game.players == ["Ann", "Bob", "Cy", "Di"] and game.status == "active"
        store.append(game.id, {"type": "pass", "entity": 1, "entity_type": "player"})
    proc = companion_run(
        ["--config", "c.toml", "--exit-after", "4", "--screenshot", "again.png"], display, tmp_path
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    texts = (tmp_path / "again.txt").read_text().splitlines()
    assert "Bob to act" in texts, texts  # the same game, resumed after Ann's pass
    with Store.open(tmp_path / "db.sqlite3") as store:
        assert len(store.games()) == 1


def test_run_refuses_a_bad_configuration(tmp_path: Path, display: str) -> None:
    (tmp_path / "bad.toml").write_text('[game]\ntitle = "1870"\nplayers = ["Ann"]\n')
    proc = companion_run(["--config", "bad.toml", "--exit-after", "1"], display, tmp_path)
    assert proc.returncode == 2
    assert "players" in proc.stderr
    assert not (tmp_path / "shot.png").exists()


@pytest.mark.parametrize("title", WATCHED)
def test_the_board_watch_looks_every_check_interval(
    watches: dict[str, tuple[Path, Started]], title: str
) -> None:
    """With a camera configured, the app looks at the board every ``camera.check_interval`` seconds
    without anyone asking; the simulated table follows the game, so the board matches it (on 1870's
    map and on 1867's, whose hexes are flat-topped and whose cities print labels)."""
    folder, started = watches[title]
    proc = started.finished(timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    happened = (folder / "shot.txt").read_text().split("what happened:\n", 1)[1].splitlines()
    camera = [line for line in happened if line.startswith("[camera]")]
    assert camera and camera[0].startswith("[camera] the board matches the game"), happened
    hidden = int(camera[0].split("(")[1].split()[0]) if "hidden" in camera[0] else 0
    assert hidden < 20, camera[0]  # the first verdict waits for three frames, which see most of the board
    # (that a verdict which does not change is not written again: tests/table/test_camera_watch.py)
